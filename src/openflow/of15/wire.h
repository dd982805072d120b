// Wire helpers the OpenFlow 1.5 translation files share (codec, groups, stats).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/constants.h"
#include "openflow/errors.h"

namespace flowlab::of::of15 {

inline constexpr size_t kMultipartBodyOff = 16;  // header + type, flags, pad
inline constexpr uint16_t kMpFlowStats = 17;     // OFPMP_FLOW_STATS

inline size_t pad8(size_t n) { return (8 - n % 8) % 8; }

inline OfError bad_len(std::string msg, size_t at) {
  return OfError::make(BadRequestCode::kBadLen, std::move(msg), at);
}

// A translated message with its version and length set; past 65535 bytes OFPBRC_BAD_LEN.
inline Result<Bytes, OfError> checked(Bytes out, uint8_t version) {
  if (out.size() > kMaxMessageLen)
    return unexpected(bad_len("translated message longer than 65535 bytes", 0));
  out[0] = version;
  store_be16(&out[2], uint16_t(out.size()));
  return out;
}

// The padded length of the ofp_match at `at`, or 0 if it does not fit.
inline size_t match_span(ByteSpan wire, size_t at) {
  if (wire.size() < at + 4) return 0;
  const size_t len = load_be16(&wire[at + 2]);
  if (len < 4 || len + pad8(len) > wire.size() - at) return 0;
  return len + pad8(len);
}

}  // namespace flowlab::of::of15

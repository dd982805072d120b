// Wire helpers the OpenFlow 1.4 files share (ports, stats, flow monitoring): one
// definition each, so a unity batch of the library sees each name once.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include "openflow/errors.h"

namespace flowlab::of::of14 {

// OFPET_BAD_REQUEST / OFPBRC_BAD_LEN at byte `at` of the message.
inline OfError bad_len(std::string msg, size_t at) {
  return OfError::make(BadRequestCode::kBadLen, std::move(msg), at);
}

}  // namespace flowlab::of::of14

// Splits a TCP byte stream into whole OpenFlow messages.
//
// append() adds received bytes; next() yields one complete message at a time
// (a view valid until the next append/next call). A header length < 8 or a
// length the peer could never complete is a framing error: the connection must
// be closed, since the stream can no longer be re-synchronised.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"

namespace flowlab::of {

class StreamFramer {
 public:
  enum class State { kMessage, kNeedMore, kError };

  void append(ByteSpan data);
  // kMessage: `out` views one whole message. kNeedMore: wait for more bytes.
  // kError: error() says why (e.g. "header length 4 < 8 at stream offset 120").
  State next(ByteSpan& out);
  const OfError& error() const { return error_; }
  size_t buffered() const { return buf_.size() - pos_; }

 private:
  Bytes buf_;
  size_t pos_ = 0;
  uint64_t stream_offset_ = 0;
  OfError error_;
};

}  // namespace flowlab::of

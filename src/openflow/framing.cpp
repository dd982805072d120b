// StreamFramer: splits a TCP byte stream into whole OpenFlow messages.
//
// Idea: bytes are appended to one buffer; `pos_` marks the start of the first
// message not yet handed out. next() looks only at buf_[pos_, size): fewer than
// 8 bytes or fewer than the header's length -> kNeedMore; a length below 8 can
// never be resynchronised -> kError (sticky). A returned view points into buf_
// and stays valid until the next append()/next(), which is why compaction (moving
// the unread tail to the front) happens only at the start of those calls.
// Cost: each byte is copied once on append and at most once more per compaction;
// compaction runs when everything was consumed or the consumed prefix is at least
// half the buffer, so it is amortised O(1) per byte.
#include "openflow/framing.h"

#include <fmt/format.h>

#include "openflow/constants.h"

namespace flowlab::of {
namespace {
constexpr size_t kCompactMin = 4096;
}  // namespace

void StreamFramer::append(ByteSpan data) {
  if (pos_ > 0 && (pos_ == buf_.size() || (pos_ >= kCompactMin && pos_ * 2 >= buf_.size()))) {
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(pos_));
    pos_ = 0;
  }
  buf_.insert(buf_.end(), data.begin(), data.end());
}

StreamFramer::State StreamFramer::next(ByteSpan& out) {
  if (!error_.message.empty()) return State::kError;
  if (pos_ == buf_.size() && pos_ > 0) {
    buf_.clear();
    pos_ = 0;
  }
  const size_t avail = buf_.size() - pos_;
  if (avail < kHeaderLen) return State::kNeedMore;
  const uint8_t* p = buf_.data() + pos_;
  const uint16_t length = load_be16(p + 2);
  if (length < kHeaderLen) {
    error_ = OfError::make(BadRequestCode::kBadLen,
                           fmt::format("header length {} < 8 (version 0x{:02x}, type {}) at stream offset {}",
                                       length, p[0], p[1], stream_offset_),
                           static_cast<size_t>(stream_offset_));
    return State::kError;
  }
  if (avail < length) return State::kNeedMore;
  out = ByteSpan(p, length);
  pos_ += length;
  stream_offset_ += length;
  return State::kMessage;
}

}  // namespace flowlab::of

// PackedMatch: a flow's match as the flow-mod gave it (its fields in order,
// masks, experimenter fields, OF1.0's wildcards word), packed into one byte
// block that a flow entry holds inline up to 24 bytes (a typical match: two or
// three fields) and in one heap block beyond. Flow stats, flow-removed and
// traces unpack it to an of::Match; forwarding never reads it (it uses the
// compiled key).
//
// Why: an of::Match is a vector of OxmFields, each holding its value (and mask)
// in vectors of its own: three to five heap blocks and ~150 bytes per flow,
// where the packed form needs none and 32 bytes.
//
// Layout, per field: field number, flags (bit 0: has mask, bit 1: not the
// basic class), value length, [class, 2 bytes, when not basic], value, [mask,
// as long as the value, when masked].
#pragma once

#include <cstdint>

#include "openflow/oxm.h"

namespace flowlab::dp {

class PackedMatch {
 public:
  PackedMatch() = default;
  PackedMatch(const of::Match& m) { pack(m); }  // NOLINT(google-explicit-constructor): a match stores as one
  PackedMatch& operator=(const of::Match& m);
  PackedMatch(const PackedMatch& o) { copy_from(o); }
  PackedMatch& operator=(const PackedMatch& o);
  PackedMatch(PackedMatch&& o) noexcept;
  PackedMatch& operator=(PackedMatch&& o) noexcept;
  ~PackedMatch() { release(); }

  of::Match unpack() const;
  bool empty() const { return count_ == 0; }
  size_t field_count() const { return count_; }
  // Bytes of the packed fields (on the heap when past kInline).
  size_t packed_size() const { return size_; }

  static constexpr size_t kInline = 24;
  static constexpr size_t kMaxFields = 255, kMaxBytes = 65535;  // what size_ and count_ hold

 private:
  void pack(const of::Match& m);
  void copy_from(const PackedMatch& o);
  void release();
  bool on_heap() const { return size_ > kInline; }
  const uint8_t* data() const { return on_heap() ? heap_ : inline_; }

  union {
    uint8_t inline_[kInline];
    uint8_t* heap_;  // owned: from std::make_unique<uint8_t[]>, freed in release()
  };
  uint16_t size_ = 0;
  uint8_t count_ = 0;
  uint32_t of10_wildcards_ = 0;
};

}  // namespace flowlab::dp

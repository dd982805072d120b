// PackedMatch (see packed_match.h): packing an of::Match and unpacking it.
#include "datapath/packed_match.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace flowlab::dp {
namespace {

constexpr uint8_t kMasked = 1;
constexpr uint8_t kNotBasic = 2;

// Bytes `f` packs into. An OXM's length byte bounds value + mask to 255.
size_t packed_size_of(const of::OxmField& f) {
  return 3 + (f.is_basic() ? 0 : 2) + f.value.size() + (f.has_mask ? f.value.size() : 0);
}

}  // namespace

PackedMatch& PackedMatch::operator=(const of::Match& m) {
  release();
  pack(m);
  return *this;
}

PackedMatch& PackedMatch::operator=(const PackedMatch& o) {
  if (this != &o) {
    release();
    copy_from(o);
  }
  return *this;
}

PackedMatch::PackedMatch(PackedMatch&& o) noexcept
    : size_(o.size_), count_(o.count_), of10_wildcards_(o.of10_wildcards_) {
  std::memcpy(inline_, o.inline_, kInline);  // the heap pointer, if any, moves with the bytes
  o.size_ = 0;
  o.count_ = 0;
}

PackedMatch& PackedMatch::operator=(PackedMatch&& o) noexcept {
  if (this != &o) {
    release();
    std::memcpy(inline_, o.inline_, kInline);
    size_ = o.size_;
    count_ = o.count_;
    of10_wildcards_ = o.of10_wildcards_;
    o.size_ = 0;
    o.count_ = 0;
  }
  return *this;
}

void PackedMatch::release() {
  if (on_heap()) {
    const std::unique_ptr<uint8_t[]> owned(heap_);  // frees it
  }
  size_ = 0;
  count_ = 0;
}

void PackedMatch::copy_from(const PackedMatch& o) {
  size_ = o.size_;
  count_ = o.count_;
  of10_wildcards_ = o.of10_wildcards_;
  if (o.on_heap()) {
    auto block = std::make_unique<uint8_t[]>(size_);
    std::memcpy(block.get(), o.heap_, size_);
    heap_ = block.release();
  } else {
    std::memcpy(inline_, o.inline_, kInline);
  }
}

void PackedMatch::pack(const of::Match& m) {
  // A match validate_match accepted packs into well under 2 KB (each field at
  // most once); anything past the sizes' bounds is cut, never overrun.
  size_t n = 0, count = 0;
  for (const of::OxmField& f : m.fields) {
    if (count == kMaxFields || n + packed_size_of(f) > kMaxBytes || f.value.size() > 255) break;
    n += packed_size_of(f);
    ++count;
  }
  uint8_t* out = inline_;
  std::unique_ptr<uint8_t[]> block;
  if (n > kInline) {
    block = std::make_unique<uint8_t[]>(n);
    out = block.get();
  }
  for (size_t i = 0; i < count; ++i) {
    const of::OxmField& f = m.fields[i];
    *out++ = f.field;
    *out++ = uint8_t((f.has_mask ? kMasked : 0) | (f.is_basic() ? 0 : kNotBasic));
    *out++ = uint8_t(f.value.size());
    if (!f.is_basic()) {
      *out++ = uint8_t(f.oxm_class >> 8);
      *out++ = uint8_t(f.oxm_class);
    }
    if (!f.value.empty()) std::memcpy(out, f.value.data(), f.value.size());
    out += f.value.size();
    if (f.has_mask) {
      // A mask is as long as its value on the wire; a shorter one (built by
      // hand) is padded with zeros, a longer one cut.
      const size_t k = std::min(f.mask.size(), f.value.size());
      if (k) std::memcpy(out, f.mask.data(), k);
      std::memset(out + k, 0, f.value.size() - k);
      out += f.value.size();
    }
  }
  if (block) heap_ = block.release();
  size_ = uint16_t(n);
  count_ = uint8_t(count);
  of10_wildcards_ = m.of10_wildcards;
}

of::Match PackedMatch::unpack() const {
  of::Match m;
  m.of10_wildcards = of10_wildcards_;
  m.fields.reserve(count_);
  const uint8_t* p = data();
  for (size_t i = 0; i < count_; ++i) {
    of::OxmField& f = m.fields.emplace_back();
    f.field = p[0];
    f.has_mask = p[1] & kMasked;
    const size_t len = p[2];
    p += 3;
    if (p[-2] & kNotBasic) {
      f.oxm_class = uint16_t(p[0] << 8 | p[1]);
      p += 2;
    }
    f.value.assign(p, p + len);
    p += len;
    if (f.has_mask) {
      f.mask.assign(p, p + len);
      p += len;
    }
  }
  return m;
}

}  // namespace flowlab::dp

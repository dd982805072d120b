// Big-endian byte readers and writers over spans, bounds-checked.
//
// ByteReader never reads past its span: every get returns false / sets a failure
// flag instead. ByteWriter appends to a vector and can patch lengths afterwards.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace flowlab {

using Bytes = std::vector<uint8_t>;
using ByteSpan = std::span<const uint8_t>;

inline uint16_t load_be16(const uint8_t* p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
inline uint64_t load_be64(const uint8_t* p) { return uint64_t(load_be32(p)) << 32 | load_be32(p + 4); }
inline void store_be16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v >> 8);
  p[1] = uint8_t(v);
}
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}
inline void store_be64(uint8_t* p, uint64_t v) {
  store_be32(p, uint32_t(v >> 32));
  store_be32(p + 4, uint32_t(v));
}

class ByteReader {
 public:
  explicit ByteReader(ByteSpan s) : s_(s) {}

  size_t offset() const { return pos_; }
  size_t remaining() const { return s_.size() - pos_; }
  bool empty() const { return remaining() == 0; }
  ByteSpan rest() const { return s_.subspan(pos_); }
  ByteSpan whole() const { return s_; }

  bool u8(uint8_t& v) {
    if (remaining() < 1) return false;
    v = s_[pos_++];
    return true;
  }
  bool u16(uint16_t& v) {
    if (remaining() < 2) return false;
    v = load_be16(&s_[pos_]);
    pos_ += 2;
    return true;
  }
  bool u32(uint32_t& v) {
    if (remaining() < 4) return false;
    v = load_be32(&s_[pos_]);
    pos_ += 4;
    return true;
  }
  bool u64(uint64_t& v) {
    if (remaining() < 8) return false;
    v = load_be64(&s_[pos_]);
    pos_ += 8;
    return true;
  }
  bool skip(size_t n) {
    if (remaining() < n) return false;
    pos_ += n;
    return true;
  }
  bool bytes(size_t n, ByteSpan& out) {
    if (remaining() < n) return false;
    out = s_.subspan(pos_, n);
    pos_ += n;
    return true;
  }
  bool copy(void* dst, size_t n) {
    if (remaining() < n) return false;
    if (n) std::memcpy(dst, &s_[pos_], n);
    pos_ += n;
    return true;
  }
  // Fixed-size, NUL-padded string field.
  bool str(size_t n, std::string& out) {
    ByteSpan b;
    if (!bytes(n, b)) return false;
    size_t len = 0;
    while (len < n && b[len] != 0) ++len;
    out.assign(reinterpret_cast<const char*>(b.data()), len);
    return true;
  }

 private:
  ByteSpan s_;
  size_t pos_ = 0;
};

class ByteWriter {
 public:
  ByteWriter() = default;
  explicit ByteWriter(Bytes& out) : ext_(&out) {}

  Bytes& buf() { return ext_ ? *ext_ : own_; }
  size_t size() { return buf().size(); }

  void u8(uint8_t v) { buf().push_back(v); }
  void u16(uint16_t v) {
    size_t o = grow(2);
    store_be16(&buf()[o], v);
  }
  void u32(uint32_t v) {
    size_t o = grow(4);
    store_be32(&buf()[o], v);
  }
  void u64(uint64_t v) {
    size_t o = grow(8);
    store_be64(&buf()[o], v);
  }
  void zeros(size_t n) { buf().insert(buf().end(), n, 0); }
  void bytes(ByteSpan b) { buf().insert(buf().end(), b.begin(), b.end()); }
  void bytes(const void* p, size_t n) {
    auto* c = static_cast<const uint8_t*>(p);
    buf().insert(buf().end(), c, c + n);
  }
  // Fixed-size, NUL-padded string field (truncated to n-1 chars so it stays terminated).
  void str(std::string_view s, size_t n) {
    size_t len = s.size() < n ? s.size() : (n ? n - 1 : 0);
    bytes(s.data(), len);
    zeros(n - len);
  }
  // Pads with zeros to a multiple of `align` counted from `start`.
  void pad_to(size_t start, size_t align) {
    size_t len = size() - start;
    zeros((align - len % align) % align);
  }
  void patch_u16(size_t off, uint16_t v) { store_be16(&buf()[off], v); }
  void patch_u32(size_t off, uint32_t v) { store_be32(&buf()[off], v); }

  Bytes take() { return std::move(buf()); }

 private:
  size_t grow(size_t n) {
    size_t o = buf().size();
    buf().resize(o + n);
    return o;
  }
  Bytes own_;
  Bytes* ext_ = nullptr;
};

std::string to_hex(ByteSpan b);
// Parses hex with optional spaces/colons; false on odd digits or bad chars.
bool from_hex(std::string_view s, Bytes& out);

}  // namespace flowlab

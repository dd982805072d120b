#include "core/bytes.h"

namespace flowlab {

std::string to_hex(ByteSpan b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) {
    s.push_back(kDigits[c >> 4]);
    s.push_back(kDigits[c & 15]);
  }
  return s;
}

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool from_hex(std::string_view s, Bytes& out) {
  out.clear();
  int hi = -1;
  for (char c : s) {
    if (c == ' ' || c == ':' || c == '\n' || c == '\t' || c == '\r') continue;
    int v = hex_value(c);
    if (v < 0) return false;
    if (hi < 0) {
      hi = v;
    } else {
      out.push_back(uint8_t(hi << 4 | v));
      hi = -1;
    }
  }
  return hi < 0;
}

}  // namespace flowlab

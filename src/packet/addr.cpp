#include "packet/addr.h"

#include <arpa/inet.h>
#include <fmt/format.h>

namespace flowlab {

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<MacAddr> MacAddr::parse(std::string_view s) {
  MacAddr m;
  size_t pos = 0;
  for (int i = 0; i < 6; ++i) {
    if (i > 0) {
      if (pos >= s.size() || (s[pos] != ':' && s[pos] != '-')) return std::nullopt;
      ++pos;
    }
    int digits = 0, v = 0;
    while (pos < s.size() && digits < 2 && hex_digit(s[pos]) >= 0) {
      v = v * 16 + hex_digit(s[pos]);
      ++pos;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
    m.b[i] = uint8_t(v);
  }
  if (pos != s.size()) return std::nullopt;
  return m;
}

std::string MacAddr::to_string() const {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", b[0], b[1], b[2], b[3], b[4], b[5]);
}

std::optional<Ipv4Addr> Ipv4Addr::parse(std::string_view s) {
  uint32_t v = 0;
  size_t pos = 0;
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      if (pos >= s.size() || s[pos] != '.') return std::nullopt;
      ++pos;
    }
    int digits = 0;
    uint32_t octet = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9' && digits < 3) {
      octet = octet * 10 + uint32_t(s[pos] - '0');
      ++pos;
      ++digits;
    }
    if (digits == 0 || octet > 255) return std::nullopt;
    v = v << 8 | octet;
  }
  if (pos != s.size()) return std::nullopt;
  return Ipv4Addr{v};
}

std::string Ipv4Addr::to_string() const {
  return fmt::format("{}.{}.{}.{}", v >> 24, (v >> 16) & 255, (v >> 8) & 255, v & 255);
}

std::optional<Ipv6Addr> Ipv6Addr::parse(std::string_view s) {
  if (s.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  char buf[INET6_ADDRSTRLEN];
  s.copy(buf, s.size());
  buf[s.size()] = 0;
  Ipv6Addr a;
  if (inet_pton(AF_INET6, buf, a.b.data()) != 1) return std::nullopt;
  return a;
}

std::string Ipv6Addr::to_string() const {
  char buf[INET6_ADDRSTRLEN];
  inet_ntop(AF_INET6, b.data(), buf, sizeof buf);
  return buf;
}

}  // namespace flowlab

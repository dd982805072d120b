// Address types (MAC, IPv4, IPv6) with parsing and the usual text forms.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flowlab {

struct MacAddr {
  std::array<uint8_t, 6> b{};

  static std::optional<MacAddr> parse(std::string_view s);  // "00:11:22:33:44:55"
  std::string to_string() const;
  bool is_multicast() const { return b[0] & 1; }
  bool is_broadcast() const { return b == std::array<uint8_t, 6>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}; }
  bool is_zero() const { return b == std::array<uint8_t, 6>{}; }
  uint64_t to_u64() const {
    uint64_t v = 0;
    for (uint8_t c : b) v = v << 8 | c;
    return v;
  }
  static MacAddr from_u64(uint64_t v) {
    MacAddr m;
    for (int i = 5; i >= 0; --i, v >>= 8) m.b[i] = uint8_t(v);
    return m;
  }
  auto operator<=>(const MacAddr&) const = default;
};

// IPv4 address in host byte order.
struct Ipv4Addr {
  uint32_t v = 0;
  static std::optional<Ipv4Addr> parse(std::string_view s);  // dotted quad
  std::string to_string() const;
  auto operator<=>(const Ipv4Addr&) const = default;
};

struct Ipv6Addr {
  std::array<uint8_t, 16> b{};
  static std::optional<Ipv6Addr> parse(std::string_view s);  // RFC 4291 text
  std::string to_string() const;                             // RFC 5952 compressed
  auto operator<=>(const Ipv6Addr&) const = default;
};

}  // namespace flowlab

// Flow text of the tcp_flags match, ovs-ofctl's syntax: `+syn-ack` (the flags
// named must be set (+) or clear (-), the others are wildcarded), `syn|ack`
// (exactly these flags), or a number with an optional mask (`0x002/0x012`).
// Printed as ovs-ofctl prints it: `syn|ack` when all 12 bits are matched,
// `+syn-ack` otherwise. Bits 9..11 have no name: `[200]`, `[400]`, `[800]`.
#include <fmt/format.h>

#include <array>

#include "openflow/text/internal.h"

namespace flowlab::of::text {
namespace {

constexpr uint16_t kAllTcpFlags = 0xfff;
constexpr std::array<std::string_view, 12> kTcpFlagNames{"fin", "syn", "rst", "psh",   "ack",   "urg",
                                                         "ece", "cwr", "ns",  "[200]", "[400]", "[800]"};

std::optional<uint16_t> tcp_flag_bit(std::string_view name) {
  for (size_t i = 0; i < kTcpFlagNames.size(); ++i)
    if (kTcpFlagNames[i] == name) return uint16_t(1u << i);
  return std::nullopt;
}

}  // namespace

TResult<OxmField> parse_tcp_flags(std::string_view s, size_t offset) {
  if (s.empty()) return text_fail(offset, "tcp_flags needs a value (+syn-ack, syn|ack or 0x002/0x012)");
  const bool signed_form = s[0] == '+' || s[0] == '-';
  if (!signed_form && (s[0] < 'a' || s[0] > 'z') && s[0] != '[')
    return parse_field(OxmId::kTcpFlags, s, offset, true);
  uint16_t value = 0, mask = 0;
  for (size_t at = 0; at < s.size();) {
    bool set = true;
    if (signed_form) {
      set = s[at] == '+';
      if (s[at] != '+' && s[at] != '-')
        return text_fail(offset + at, "tcp_flags: each flag needs + (set) or - (clear), e.g. +syn-ack");
      ++at;
    } else if (at > 0) {
      if (s[at] != '|') return text_fail(offset + at, "tcp_flags: separate the flags with |, e.g. syn|ack");
      ++at;
    }
    size_t end = at;
    while (end < s.size() && s[end] != '+' && s[end] != '-' && s[end] != '|') ++end;
    const std::string_view name = s.substr(at, end - at);
    const auto bit = tcp_flag_bit(name);
    if (!bit)
      return text_fail(offset + at, fmt::format("tcp_flags: unknown flag '{}' (fin, syn, rst, psh, ack, urg, "
                                                "ece, cwr, ns)",
                                                name));
    if (mask & *bit) return text_fail(offset + at, fmt::format("tcp_flags: {} is named twice", name));
    mask |= *bit;
    if (set) value |= *bit;
    at = end;
  }
  if (!signed_form) return make_field(OxmId::kTcpFlags, value);
  return make_field_masked(OxmId::kTcpFlags, value, mask);
}

std::string format_tcp_flags(const OxmField& f) {
  const uint64_t value = f.value_u64();
  const uint64_t mask = f.has_mask ? f.mask_u64() : 0xffff;
  std::string s;
  if ((mask & kAllTcpFlags) == kAllTcpFlags) {
    if (value & ~uint64_t{kAllTcpFlags}) return fmt::format("{:#06x}", value);
    for (size_t i = 0; i < kTcpFlagNames.size(); ++i)
      if (value >> i & 1) s += (s.empty() ? "" : "|") + std::string(kTcpFlagNames[i]);
    return s.empty() ? "0" : s;
  }
  if (mask & ~uint64_t{kAllTcpFlags}) return fmt::format("{:#05x}/{:#05x}", value, mask);
  for (size_t i = 0; i < kTcpFlagNames.size(); ++i)
    if (mask >> i & 1) s += ((value >> i & 1) ? "+" : "-") + std::string(kTcpFlagNames[i]);
  return s;
}

}  // namespace flowlab::of::text

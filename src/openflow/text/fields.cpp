// Flow text: the pieces both the parser and the printer need — splitting text
// into pieces, field names and value syntax (integers, MAC, IPv4, IPv6, ports).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <unordered_map>
#include <utility>

#include "openflow/oxm_limits.h"
#include "openflow/text/flow_text.h"
#include "openflow/text/internal.h"
#include "packet/addr.h"

namespace flowlab::of::text {

Error wrap_error(std::string_view kind, std::string_view text, const TextError& e) {
  return Error::format("bad {} \"{}\": {} at column {}", kind, text, e.what, e.offset + 1);
}

TResult<std::vector<Piece>> split_pieces(std::string_view s, size_t base) {
  std::vector<Piece> out;
  out.reserve(8);  // a flow's match or action list: one allocation, not three
  int depth = 0;
  size_t start = 0;
  size_t open_at = 0;
  auto flush = [&](size_t end) {
    if (end > start) out.push_back({s.substr(start, end - start), base + start});
    start = end + 1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(') {
      if (depth++ == 0) open_at = i;
    } else if (c == ')') {
      if (depth == 0) return text_fail(base + i, "unbalanced ')'");
      --depth;
    } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      flush(i);
    }
  }
  if (depth != 0) return text_fail(base + open_at, "unbalanced '('");
  flush(s.size());
  return out;
}

KeyValue split_key_value(const Piece& p, char sep) {
  KeyValue kv;
  kv.key_offset = p.offset;
  size_t eq = p.text.find(sep);
  if (eq == std::string_view::npos) {
    kv.key = p.text;
    kv.value_offset = p.offset + p.text.size();
    return kv;
  }
  kv.key = p.text.substr(0, eq);
  kv.value = p.text.substr(eq + 1);
  kv.has_value = true;
  kv.value_offset = p.offset + eq + 1;
  return kv;
}

std::string lower(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = char(std::tolower(static_cast<unsigned char>(c)));
  return r;
}

std::optional<uint64_t> parse_uint(std::string_view s, uint64_t max) {
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return std::nullopt;
    if (v > (UINT64_MAX - uint64_t(d)) / uint64_t(base)) return std::nullopt;
    v = v * uint64_t(base) + uint64_t(d);
  }
  if (v > max) return std::nullopt;
  return v;
}

TResult<uint64_t> parse_uint_at(std::string_view s, size_t offset, uint64_t max, std::string_view what) {
  auto v = parse_uint(s, max);
  if (!v) {
    if (s.empty()) return text_fail(offset, fmt::format("{} needs a value", what));
    return text_fail(offset, fmt::format("{} value '{}' is not a number in 0..{}", what, s, max));
  }
  return *v;
}

bool prints_hex(OxmId id) {
  switch (id) {
    case OxmId::kMetadata:
    case OxmId::kTunnelId:
    case OxmId::kIpv6Flabel:
    case OxmId::kPbbIsid:
    case OxmId::kIpv6Exthdr:
    case OxmId::kEthType:
      return true;
    default:
      return false;
  }
}

namespace {

struct NameAlias {
  std::string_view name;
  OxmId id;
};
constexpr std::array kNames = {
    NameAlias{"in_port", OxmId::kInPort},         NameAlias{"in_phy_port", OxmId::kInPhyPort},
    NameAlias{"metadata", OxmId::kMetadata},      NameAlias{"eth_dst", OxmId::kEthDst},
    NameAlias{"dl_dst", OxmId::kEthDst},          NameAlias{"eth_src", OxmId::kEthSrc},
    NameAlias{"dl_src", OxmId::kEthSrc},          NameAlias{"eth_type", OxmId::kEthType},
    NameAlias{"dl_type", OxmId::kEthType},        NameAlias{"vlan_vid", OxmId::kVlanVid},
    NameAlias{"vlan_pcp", OxmId::kVlanPcp},       NameAlias{"dl_vlan_pcp", OxmId::kVlanPcp},
    NameAlias{"ip_dscp", OxmId::kIpDscp},         NameAlias{"ip_ecn", OxmId::kIpEcn},
    NameAlias{"nw_ecn", OxmId::kIpEcn},           NameAlias{"ip_proto", OxmId::kIpProto},
    NameAlias{"ipv4_src", OxmId::kIpv4Src},       NameAlias{"ip_src", OxmId::kIpv4Src},
    NameAlias{"ipv4_dst", OxmId::kIpv4Dst},       NameAlias{"ip_dst", OxmId::kIpv4Dst},
    NameAlias{"tcp_src", OxmId::kTcpSrc},         NameAlias{"tcp_dst", OxmId::kTcpDst},
    NameAlias{"udp_src", OxmId::kUdpSrc},         NameAlias{"udp_dst", OxmId::kUdpDst},
    NameAlias{"sctp_src", OxmId::kSctpSrc},       NameAlias{"sctp_dst", OxmId::kSctpDst},
    NameAlias{"icmpv4_type", OxmId::kIcmpv4Type}, NameAlias{"icmpv4_code", OxmId::kIcmpv4Code},
    NameAlias{"arp_op", OxmId::kArpOp},           NameAlias{"arp_spa", OxmId::kArpSpa},
    NameAlias{"arp_tpa", OxmId::kArpTpa},         NameAlias{"arp_sha", OxmId::kArpSha},
    NameAlias{"arp_tha", OxmId::kArpTha},         NameAlias{"ipv6_src", OxmId::kIpv6Src},
    NameAlias{"ipv6_dst", OxmId::kIpv6Dst},       NameAlias{"ipv6_flabel", OxmId::kIpv6Flabel},
    NameAlias{"ipv6_label", OxmId::kIpv6Flabel},  NameAlias{"icmpv6_type", OxmId::kIcmpv6Type},
    NameAlias{"icmpv6_code", OxmId::kIcmpv6Code}, NameAlias{"ipv6_nd_target", OxmId::kIpv6NdTarget},
    NameAlias{"nd_target", OxmId::kIpv6NdTarget}, NameAlias{"ipv6_nd_sll", OxmId::kIpv6NdSll},
    NameAlias{"nd_sll", OxmId::kIpv6NdSll},       NameAlias{"ipv6_nd_tll", OxmId::kIpv6NdTll},
    NameAlias{"nd_tll", OxmId::kIpv6NdTll},       NameAlias{"mpls_label", OxmId::kMplsLabel},
    NameAlias{"mpls_tc", OxmId::kMplsTc},         NameAlias{"mpls_bos", OxmId::kMplsBos},
    NameAlias{"pbb_isid", OxmId::kPbbIsid},       NameAlias{"tunnel_id", OxmId::kTunnelId},
    NameAlias{"tun_id", OxmId::kTunnelId},        NameAlias{"ipv6_exthdr", OxmId::kIpv6Exthdr},
    NameAlias{"pbb_uca", OxmId::kPbbUca},         NameAlias{"actset_output", OxmId::kActsetOutput},
};

size_t field_width(OxmId id) {
  const OxmFieldInfo* info = oxm_info(id);
  return info ? info->length : 0;
}

// Largest value a field can hold: its narrower legal range, else its bytes.
uint64_t field_max(OxmId id) {
  if (uint64_t m = oxm_max_value(id)) return m;
  size_t w = field_width(id);
  return w >= 8 ? UINT64_MAX : (uint64_t{1} << (8 * w)) - 1;
}

Bytes be(uint64_t v, size_t len) {
  Bytes b(len);
  for (size_t i = len; i-- > 0; v >>= 8) b[i] = uint8_t(v);
  return b;
}

bool all_ones(const Bytes& b) {
  return std::all_of(b.begin(), b.end(), [](uint8_t c) { return c == 0xff; });
}

// Prefix length of a CIDR mask of `bits` bits, or nullopt when it is not one.
std::optional<int> prefix_len(const Bytes& mask) {
  int n = 0;
  bool seen_zero = false;
  for (uint8_t byte : mask) {
    for (int bit = 7; bit >= 0; --bit) {
      bool one = byte >> bit & 1;
      if (one && seen_zero) return std::nullopt;
      if (one)
        ++n;
      else
        seen_zero = true;
    }
  }
  return n;
}

Bytes prefix_mask(int len, size_t bytes) {
  Bytes m(bytes, 0);
  for (int i = 0; i < len; ++i) m[size_t(i / 8)] |= uint8_t(0x80 >> (i % 8));
  return m;
}

TResult<Bytes> parse_bytes_value(OxmId id, ValueKind kind, std::string_view s, size_t offset, bool is_mask) {
  std::string_view what = is_mask ? "mask" : "value";
  std::string_view name = oxm_info(id)->name;
  switch (kind) {
    case ValueKind::kMac: {
      auto m = MacAddr::parse(s);
      if (!m) return text_fail(offset, fmt::format("{} {} '{}' is not a MAC address", name, what, s));
      return Bytes(m->b.begin(), m->b.end());
    }
    case ValueKind::kIpv4: {
      auto a = Ipv4Addr::parse(s);
      if (!a) {
        if (is_mask) {
          auto len = parse_uint(s, 32);
          if (len && s.find('x') == std::string_view::npos) return prefix_mask(int(*len), 4);
        }
        return text_fail(offset, fmt::format("{} {} '{}' is not an IPv4 address", name, what, s));
      }
      return be(a->v, 4);
    }
    case ValueKind::kIpv6: {
      auto a = Ipv6Addr::parse(s);
      if (!a) {
        if (is_mask) {
          auto len = parse_uint(s, 128);
          if (len && s.find('x') == std::string_view::npos) return prefix_mask(int(*len), 16);
        }
        return text_fail(offset, fmt::format("{} {} '{}' is not an IPv6 address", name, what, s));
      }
      return Bytes(a->b.begin(), a->b.end());
    }
    case ValueKind::kPort: {
      auto p = parse_port(s);
      if (!p.ok()) return text_fail(offset, fmt::format("{}: {}", name, p.error().message));
      return be(*p, 4);
    }
    case ValueKind::kUint: {
      uint64_t max = is_mask
                         ? (field_width(id) >= 8 ? UINT64_MAX : (uint64_t{1} << (8 * field_width(id))) - 1)
                         : field_max(id);
      auto v = parse_uint(s, max);
      if (!v) {
        if (s.empty()) return text_fail(offset, fmt::format("{} needs a {}", name, what));
        return text_fail(offset, fmt::format("{} {} '{}' is not a number in 0..{:#x}", name, what, s, max));
      }
      return be(*v, field_width(id));
    }
  }
  return text_fail(offset, "unreachable");
}

}  // namespace

std::optional<OxmId> field_by_name(std::string_view name) {
  // One hash lookup: the parser asks for every key of every flow it reads.
  static const std::unordered_map<std::string_view, OxmId> by_name = [] {
    std::unordered_map<std::string_view, OxmId> m;
    for (const auto& n : kNames) m.emplace(n.name, n.id);
    return m;
  }();
  if (auto it = by_name.find(name); it != by_name.end()) return it->second;
  return std::nullopt;
}

TResult<OxmField> parse_field(OxmId id, std::string_view s, size_t offset, bool allow_mask) {
  const OxmFieldInfo* info = oxm_info(id);
  ValueKind kind = value_kind(id);
  size_t slash = s.find('/');
  std::string_view vtext = s.substr(0, slash);
  auto value = parse_bytes_value(id, kind, vtext, offset, false);
  if (!value.ok()) return unexpected(value.error());
  OxmField f;
  f.field = static_cast<uint8_t>(id);
  f.value = std::move(*value);
  if (slash == std::string_view::npos) return f;
  std::string_view mtext = s.substr(slash + 1);
  size_t moff = offset + slash + 1;
  if (!allow_mask) return text_fail(moff - 1, fmt::format("{} takes no mask here", info->name));
  if (!info->maskable) return text_fail(moff - 1, fmt::format("{} cannot be masked", info->name));
  auto mask = parse_bytes_value(id, kind, mtext, moff, true);
  if (!mask.ok()) return unexpected(mask.error());
  if (kind == ValueKind::kUint) {
    // Masks of narrow fields (vlan_vid 13 bits, ipv6_label 20 bits) stay in range.
    uint64_t m = 0;
    for (uint8_t c : *mask) m = m << 8 | c;
    m &= field_max(id);
    *mask = be(m, field_width(id));
    if (m == field_max(id)) return f;  // all ones: exact match
  }
  if (all_ones(*mask)) return f;
  for (size_t i = 0; i < f.value.size(); ++i) f.value[i] &= (*mask)[i];
  f.has_mask = true;
  f.mask = std::move(*mask);
  return f;
}

OxmField make_field(OxmId id, uint64_t value) { return OxmField::basic(id, value); }
OxmField make_field_masked(OxmId id, uint64_t value, uint64_t mask) {
  return OxmField::basic_masked(id, value, mask);
}

void canonicalize(Match& m) {
  // Insertion sort: stable, and a match holds a handful of fields (std::stable_sort
  // would allocate a buffer for them).
  auto key = [](const OxmField& f) { return f.is_basic() ? int(f.field) : 1000; };
  auto& v = m.fields;
  for (size_t i = 1; i < v.size(); ++i) {
    if (key(v[i - 1]) <= key(v[i])) continue;
    OxmField f = std::move(v[i]);
    size_t j = i;
    for (; j > 0 && key(v[j - 1]) > key(f); --j) v[j] = std::move(v[j - 1]);
    v[j] = std::move(f);
  }
}

std::string hex_alt(uint64_t v) { return v == 0 ? "0" : fmt::format("{:#x}", v); }

// ---- value printing ------------------------------------------------------------

std::string format_bytes_value(OxmId id, const Bytes& v, bool is_mask) {
  switch (value_kind(id)) {
    case ValueKind::kMac: {
      if (v.size() != 6) break;
      MacAddr m;
      std::copy(v.begin(), v.end(), m.b.begin());
      return m.to_string();
    }
    case ValueKind::kIpv4: {
      if (v.size() != 4) break;
      return Ipv4Addr{load_be32(v.data())}.to_string();
    }
    case ValueKind::kIpv6: {
      if (v.size() != 16) break;
      Ipv6Addr a;
      std::copy(v.begin(), v.end(), a.b.begin());
      return a.to_string();
    }
    case ValueKind::kPort:
      if (v.size() != 4) break;
      return format_port(load_be32(v.data()));
    case ValueKind::kUint: {
      if (v.size() > 8) break;
      uint64_t x = 0;
      for (uint8_t c : v) x = x << 8 | c;
      return (is_mask || prints_hex(id)) ? hex_alt(x) : fmt::format("{}", x);
    }
  }
  return "0x" + to_hex(v);
}

// An address with a mask: CIDR length when the mask is a prefix.
std::string format_masked_addr(OxmId id, const OxmField& f) {
  std::string s = format_bytes_value(id, f.value, false);
  if (!f.has_mask) return s;
  auto len = prefix_len(f.mask);
  ValueKind k = value_kind(id);
  if (len && (k == ValueKind::kIpv4 || k == ValueKind::kIpv6)) return fmt::format("{}/{}", s, *len);
  return s + "/" + format_bytes_value(id, f.mask, false);
}

}  // namespace flowlab::of::text

namespace flowlab::of {

std::string format_field_value(const OxmField& f) {
  if (!f.is_basic() || f.field >= kNumBasicOxm) {
    std::string s = "0x" + to_hex(f.value);
    if (f.has_mask) s += "/0x" + to_hex(f.mask);
    return s;
  }
  OxmId id = f.id();
  if (value_kind(id) != ValueKind::kUint) return text::format_masked_addr(id, f);
  std::string s = text::format_bytes_value(id, f.value, false);
  if (f.has_mask) s += "/" + text::format_bytes_value(id, f.mask, true);
  return s;
}

std::string_view set_field_name(OxmId id) {
  switch (id) {
    case OxmId::kIpEcn:
      return "nw_ecn";
    case OxmId::kIpProto:
      return "nw_proto";
    case OxmId::kIpv4Src:
      return "ip_src";
    case OxmId::kIpv4Dst:
      return "ip_dst";
    case OxmId::kIcmpv4Type:
      return "icmp_type";
    case OxmId::kIcmpv4Code:
      return "icmp_code";
    case OxmId::kIpv6Flabel:
      return "ipv6_label";
    case OxmId::kIpv6NdTarget:
      return "nd_target";
    case OxmId::kIpv6NdSll:
      return "nd_sll";
    case OxmId::kIpv6NdTll:
      return "nd_tll";
    case OxmId::kTunnelId:
      return "tun_id";
    default: {
      const OxmFieldInfo* info = oxm_info(id);
      return info ? info->name : "unknown";
    }
  }
}

Result<uint32_t> parse_port(std::string_view text) {
  std::string l = text::lower(text);
  struct Named {
    std::string_view name;
    uint32_t port;
  };
  static constexpr std::array kPorts = {
      Named{"in_port", port::kInPort}, Named{"table", port::kTable}, Named{"normal", port::kNormal},
      Named{"flood", port::kFlood},    Named{"all", port::kAll},     Named{"controller", port::kController},
      Named{"local", port::kLocal},    Named{"any", port::kAny},     Named{"none", port::kAny},
  };
  for (const auto& n : kPorts)
    if (l == n.name) return n.port;
  auto v = text::parse_uint(text, 0xffffffff);
  if (!v) return fail("'{}' is not a port number or name (LOCAL, CONTROLLER, IN_PORT, ...)", text);
  // OF1.0 spellings of the reserved ports (0xfff8..0xffff) widen to 32 bits.
  if (*v >= 0xfff8 && *v <= 0xffff) return uint32_t(*v) | 0xffff0000u;
  return uint32_t(*v);
}

std::string format_port(uint32_t p) {
  switch (p) {
    case port::kInPort:
      return "IN_PORT";
    case port::kTable:
      return "TABLE";
    case port::kNormal:
      return "NORMAL";
    case port::kFlood:
      return "FLOOD";
    case port::kAll:
      return "ALL";
    case port::kController:
      return "CONTROLLER";
    case port::kLocal:
      return "LOCAL";
    case port::kAny:
      return "ANY";
    default:
      return fmt::format("{}", p);
  }
}

}  // namespace flowlab::of

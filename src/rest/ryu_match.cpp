// Ryu match JSON <-> of::Match (see ryu_json.h).
#include <algorithm>
#include <array>
#include <string_view>

#include "openflow/text/flow_text.h"
#include "packet/addr.h"
#include "rest/ryu_json.h"

namespace flowlab::rest {

namespace {

// Every field name Ryu's ofctl_v1_3 / ofctl_v1_0 accept. Ranked so that the
// fields others depend on (eth_type, then ip_proto) reach the parser first.
struct RyuField {
  std::string_view name;
  int rank;
};
constexpr std::array kRyuFields = {
    RyuField{"dl_type", 0},        RyuField{"eth_type", 0},    RyuField{"nw_proto", 1},
    RyuField{"ip_proto", 1},       RyuField{"in_port", 2},     RyuField{"in_phy_port", 2},
    RyuField{"metadata", 2},       RyuField{"dl_dst", 2},      RyuField{"dl_src", 2},
    RyuField{"eth_dst", 2},        RyuField{"eth_src", 2},     RyuField{"dl_vlan", 2},
    RyuField{"vlan_vid", 2},       RyuField{"vlan_pcp", 2},    RyuField{"dl_vlan_pcp", 2},
    RyuField{"ip_dscp", 2},        RyuField{"ip_ecn", 2},      RyuField{"nw_tos", 2},
    RyuField{"nw_src", 2},         RyuField{"nw_dst", 2},      RyuField{"ipv4_src", 2},
    RyuField{"ipv4_dst", 2},       RyuField{"tp_src", 2},      RyuField{"tp_dst", 2},
    RyuField{"tcp_src", 2},        RyuField{"tcp_dst", 2},     RyuField{"udp_src", 2},
    RyuField{"udp_dst", 2},        RyuField{"sctp_src", 2},    RyuField{"sctp_dst", 2},
    RyuField{"icmpv4_type", 2},    RyuField{"icmpv4_code", 2}, RyuField{"arp_op", 2},
    RyuField{"arp_spa", 2},        RyuField{"arp_tpa", 2},     RyuField{"arp_sha", 2},
    RyuField{"arp_tha", 2},        RyuField{"ipv6_src", 2},    RyuField{"ipv6_dst", 2},
    RyuField{"ipv6_flabel", 2},    RyuField{"icmpv6_type", 2}, RyuField{"icmpv6_code", 2},
    RyuField{"ipv6_nd_target", 2}, RyuField{"ipv6_nd_sll", 2}, RyuField{"ipv6_nd_tll", 2},
    RyuField{"mpls_label", 2},     RyuField{"mpls_tc", 2},     RyuField{"mpls_bos", 2},
    RyuField{"pbb_isid", 2},       RyuField{"tunnel_id", 2},   RyuField{"ipv6_exthdr", 2},
};

const RyuField* ryu_field(std::string_view name) {
  for (const auto& f : kRyuFields)
    if (f.name == name) return &f;
  return nullptr;
}

// A JSON value as flow text: a non-negative integer or a string of safe characters.
Result<std::string> value_text(const Json& v, std::string_view what) {
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return fail("{}: {} is negative", what, v.get<int64_t>());
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (!plain_value(s)) return fail("{}: '{}' is not a value (digits, letters and . : / _ - only)", what, s);
    return s;
  }
  return fail("{}: expected a number or a string, got {}", what, v.type_name());
}

bool is_decimal(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool plain_value(std::string_view s) {
  if (s.empty() || s.size() > 128) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
           c == ':' || c == '/' || c == '_' || c == '-';
  });
}

std::string plain_text_error(std::string s) {
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  if (s.rfind("bad ", 0) == 0)
    if (auto p = s.find("\": "); p != std::string::npos) s = s.substr(p + 3);
  if (auto p = s.rfind(" at column "); p != std::string::npos) s.resize(p);
  return s;
}

Result<of::Match> match_from_json(const Json& j, uint8_t version) {
  if (j.is_null()) return of::Match{};
  if (!j.is_object()) return fail("match: expected an object of fields, got {}", j.type_name());
  struct Piece {
    int rank;
    std::string key, text;
  };
  std::vector<Piece> pieces;
  for (const auto& [key, value] : j.items()) {
    const RyuField* f = ryu_field(key);
    if (!f) return fail("match: unknown field '{}'", key);
    FLOWLAB_ASSIGN_OR_RETURN(auto text, value_text(value, "match field '" + key + "'"));
    std::string name = key;
    if (name == "dl_vlan" || name == "vlan_vid") {
      // Ryu: a decimal VLAN id gets OFPVID_PRESENT; a hex or masked value is the raw OXM value.
      name = is_decimal(text) ? "dl_vlan" : "vlan_vid";
    }
    pieces.push_back({f->rank, key, name + "=" + text});
  }
  std::stable_sort(pieces.begin(), pieces.end(),
                   [](const auto& a, const auto& b) { return a.rank < b.rank; });
  if (pieces.empty()) return of::Match{};
  std::string text;
  for (const auto& p : pieces) text += (text.empty() ? "" : ",") + p.text;
  auto r = of::parse_flow_stats_request(text, version);
  if (r.ok()) return std::move(r->match);
  // Name the user's key: the first prefix of the fields that fails ends with it.
  std::string prefix;
  for (const auto& p : pieces) {
    prefix += (prefix.empty() ? "" : ",") + p.text;
    auto part = of::parse_flow_stats_request(prefix, version);
    if (!part.ok()) return fail("match field '{}': {}", p.key, plain_text_error(part.error().message));
  }
  return fail("match: {}", plain_text_error(r.error().message));
}

namespace {

std::string bytes_text(of::ValueKind k, const Bytes& b) {
  if (k == of::ValueKind::kMac && b.size() == 6) {
    MacAddr m;
    std::copy(b.begin(), b.end(), m.b.begin());
    return m.to_string();
  }
  if (k == of::ValueKind::kIpv4 && b.size() == 4)
    return Ipv4Addr{uint32_t(b[0]) << 24 | b[1] << 16 | b[2] << 8 | b[3]}.to_string();
  if (k == of::ValueKind::kIpv6 && b.size() == 16) {
    Ipv6Addr a;
    std::copy(b.begin(), b.end(), a.b.begin());
    return a.to_string();
  }
  std::string s = "0x";
  for (uint8_t c : b) s += fmt::format("{:02x}", c);
  return s;
}

// Ryu prints the old names for the fields OF1.0 had.
std::string_view ryu_name(of::OxmId id, std::string_view oxm_name) {
  using of::OxmId;
  switch (id) {
    case OxmId::kEthSrc:
      return "dl_src";
    case OxmId::kEthDst:
      return "dl_dst";
    case OxmId::kEthType:
      return "dl_type";
    case OxmId::kVlanVid:
      return "dl_vlan";
    case OxmId::kIpv4Src:
      return "nw_src";
    case OxmId::kIpv4Dst:
      return "nw_dst";
    case OxmId::kIpProto:
      return "nw_proto";
    case OxmId::kTcpSrc:
    case OxmId::kUdpSrc:
      return "tp_src";
    case OxmId::kTcpDst:
    case OxmId::kUdpDst:
      return "tp_dst";
    default:
      return oxm_name;
  }
}

}  // namespace

Json match_to_json(const of::Match& m) {
  Json out = Json::object();
  for (const auto& f : m.fields) {
    if (!f.is_basic()) continue;
    const auto* info = of::oxm_info(f.id());
    if (!info) continue;
    std::string name(ryu_name(f.id(), info->name));
    if (out.contains(name)) continue;  // Ryu keeps the first of two fields with one old name
    of::ValueKind k = of::value_kind(f.id());
    if (f.id() == of::OxmId::kVlanVid) {
      uint64_t v = f.value_u64();
      if (f.has_mask)
        out[name] = fmt::format("0x{:04x}/0x{:04x}", v, f.mask_u64());
      else if (v & of::kVlanPresent)
        out[name] = v & ~uint64_t(of::kVlanPresent);
      else
        out[name] = fmt::format("0x{:04x}", v);
    } else if (f.id() == of::OxmId::kInPort) {
      out[name] = port_to_json(uint32_t(f.value_u64()));
    } else if ((k == of::ValueKind::kUint || k == of::ValueKind::kPort) && f.value.size() <= 8) {
      if (f.has_mask)
        out[name] = fmt::format("{}/{}", f.value_u64(), f.mask_u64());
      else
        out[name] = f.value_u64();
    } else {
      std::string v = bytes_text(k, f.value);
      if (f.has_mask) v += "/" + bytes_text(k, f.mask);
      out[name] = v;
    }
  }
  return out;
}

}  // namespace flowlab::rest

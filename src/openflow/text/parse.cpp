// Flow text parser: ovs-ofctl flow syntax -> FlowMod / FlowStatsRequest.
//
// The text is split at the first top-level "actions=" into a match part and an
// action part. The match part is read in three passes so that the order of
// tokens does not matter, as in ovs-ofctl: (1) shorthands and dl_type,
// (2) nw_proto, whose meaning depends on dl_type (arp_op for ARP), (3) all other
// fields, whose meaning may depend on both (tp_dst is tcp_dst after "tcp").
// Afterwards every field's prerequisites are checked, with the column of the
// field that lacks them, and the match is sorted into canonical OXM order.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "openflow/text/flow_text.h"
#include "openflow/text/internal.h"

namespace flowlab::of {
namespace {

using text::KeyValue;
using text::Piece;
using text::text_fail;
using text::TextError;
using text::TResult;

struct Shorthand {
  std::string_view name;
  uint16_t eth_type;
  int ip_proto;  // -1: none
};
constexpr std::array kShorthands = {
    Shorthand{"ip", 0x0800, -1},     Shorthand{"ipv4", 0x0800, -1},  Shorthand{"ipv6", 0x86dd, -1},
    Shorthand{"arp", 0x0806, -1},    Shorthand{"rarp", 0x8035, -1},  Shorthand{"tcp", 0x0800, 6},
    Shorthand{"udp", 0x0800, 17},    Shorthand{"sctp", 0x0800, 132}, Shorthand{"icmp", 0x0800, 1},
    Shorthand{"igmp", 0x0800, 2},    Shorthand{"tcp6", 0x86dd, 6},   Shorthand{"udp6", 0x86dd, 17},
    Shorthand{"sctp6", 0x86dd, 132}, Shorthand{"icmp6", 0x86dd, 58}, Shorthand{"mpls", 0x8847, -1},
    Shorthand{"mplsm", 0x8848, -1},
};

struct FlagName {
  std::string_view name;
  uint16_t flag;
};
constexpr std::array kFlags = {
    FlagName{"send_flow_rem", flow_mod_flags::kSendFlowRem},
    FlagName{"check_overlap", flow_mod_flags::kCheckOverlap},
    FlagName{"reset_counts", flow_mod_flags::kResetCounts},
    FlagName{"no_packet_counts", flow_mod_flags::kNoPktCounts},
    FlagName{"no_byte_counts", flow_mod_flags::kNoBytCounts},
};

// The match being built, with the text offset of each field for error messages.
class MatchBuilder {
 public:
  std::optional<TextError> add(OxmField f, size_t offset, std::string_view token) {
    for (size_t i = 0; i < m_.fields.size(); ++i) {
      if (m_.fields[i].oxm_class == f.oxm_class && m_.fields[i].field == f.field) {
        if (m_.fields[i] == f) return std::nullopt;  // "ip,dl_type=0x0800" is fine
        return TextError{
            fmt::format("'{}' conflicts with an earlier {} in the same match", token, oxm_info(f.id())->name),
            offset};
      }
    }
    m_.fields.push_back(std::move(f));
    offsets_.push_back(offset);
    return std::nullopt;
  }
  // The value of a field matched exactly, if any.
  std::optional<uint64_t> exact(OxmId id) const {
    const OxmField* f = m_.find(id);
    if (!f || f->has_mask) return std::nullopt;
    return f->value_u64();
  }
  bool has(OxmId id) const { return m_.find(id) != nullptr; }
  void reserve(size_t n) {
    m_.fields.reserve(n + 1);  // a shorthand such as "tcp" adds two fields
    offsets_.reserve(n + 1);
  }
  const Match& match() const { return m_; }
  Match take() {
    text::canonicalize(m_);
    return std::move(m_);
  }
  std::optional<TextError> check_prerequisites() const;

 private:
  Match m_;
  std::vector<size_t> offsets_;
};

std::optional<TextError> MatchBuilder::check_prerequisites() const {
  auto eth_is = [&](std::initializer_list<uint64_t> v) {
    auto e = exact(OxmId::kEthType);
    return e && std::find(v.begin(), v.end(), *e) != v.end();
  };
  auto proto_is = [&](uint64_t p) {
    auto e = exact(OxmId::kIpProto);
    return e && *e == p;
  };
  for (size_t i = 0; i < m_.fields.size(); ++i) {
    const OxmField& f = m_.fields[i];
    if (!f.is_basic()) continue;
    std::string_view need;
    switch (f.id()) {
      case OxmId::kIpDscp:
      case OxmId::kIpEcn:
      case OxmId::kIpProto:
        if (!eth_is({0x0800, 0x86dd})) need = "ip or ipv6";
        break;
      case OxmId::kIpv4Src:
      case OxmId::kIpv4Dst:
        if (!eth_is({0x0800})) need = "ip (dl_type=0x0800)";
        break;
      case OxmId::kTcpSrc:
      case OxmId::kTcpDst:
      case OxmId::kTcpFlags:
        if (!proto_is(6)) need = "tcp or tcp6 (nw_proto=6)";
        break;
      case OxmId::kUdpSrc:
      case OxmId::kUdpDst:
        if (!proto_is(17)) need = "udp or udp6 (nw_proto=17)";
        break;
      case OxmId::kSctpSrc:
      case OxmId::kSctpDst:
        if (!proto_is(132)) need = "sctp or sctp6 (nw_proto=132)";
        break;
      case OxmId::kIcmpv4Type:
      case OxmId::kIcmpv4Code:
        if (!proto_is(1) || !eth_is({0x0800})) need = "icmp";
        break;
      case OxmId::kArpOp:
      case OxmId::kArpSpa:
      case OxmId::kArpTpa:
      case OxmId::kArpSha:
      case OxmId::kArpTha:
        if (!eth_is({0x0806})) need = "arp";
        break;
      case OxmId::kIpv6Src:
      case OxmId::kIpv6Dst:
      case OxmId::kIpv6Flabel:
      case OxmId::kIpv6Exthdr:
        if (!eth_is({0x86dd})) need = "ipv6";
        break;
      case OxmId::kIcmpv6Type:
      case OxmId::kIcmpv6Code:
        if (!proto_is(58) || !eth_is({0x86dd})) need = "icmp6";
        break;
      case OxmId::kIpv6NdTarget: {
        auto t = exact(OxmId::kIcmpv6Type);
        if (!t || (*t != 135 && *t != 136)) need = "icmp6,icmp_type=135 or 136";
        break;
      }
      case OxmId::kIpv6NdSll: {
        auto t = exact(OxmId::kIcmpv6Type);
        if (!t || *t != 135) need = "icmp6,icmp_type=135";
        break;
      }
      case OxmId::kIpv6NdTll: {
        auto t = exact(OxmId::kIcmpv6Type);
        if (!t || *t != 136) need = "icmp6,icmp_type=136";
        break;
      }
      case OxmId::kMplsLabel:
      case OxmId::kMplsTc:
      case OxmId::kMplsBos:
        if (!eth_is({0x8847, 0x8848})) need = "mpls or mplsm";
        break;
      case OxmId::kPbbIsid:
      case OxmId::kPbbUca:
        if (!eth_is({0x88e7})) need = "dl_type=0x88e7";
        break;
      case OxmId::kVlanPcp: {
        const OxmField* v = m_.find(OxmId::kVlanVid);
        if (!v || !(v->value_u64() & kVlanPresent)) need = "dl_vlan or vlan_vid (a VLAN tag)";
        break;
      }
      default:
        break;
    }
    if (!need.empty())
      return TextError{fmt::format("{} needs {}", oxm_info(f.id())->name, need), offsets_[i]};
  }
  return std::nullopt;
}

// Where "actions=" starts at the top level, or npos.
size_t find_actions(std::string_view s, size_t& value_at) {
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    if (depth != 0) continue;
    if (i != 0 && s[i - 1] != ',' && s[i - 1] != ' ' && s[i - 1] != '\t') continue;
    for (std::string_view kw : {"actions=", "action=", "instructions="}) {
      if (s.substr(i, kw.size()) == kw) {
        value_at = i + kw.size();
        return i;
      }
    }
  }
  return std::string_view::npos;
}

// Resolves names whose field depends on the match (nw_src, tp_dst, icmp_type, ...).
TResult<OxmId> contextual_field(std::string_view key, const KeyValue& kv, const MatchBuilder& mb) {
  auto eth = mb.exact(OxmId::kEthType);
  auto proto = mb.exact(OxmId::kIpProto);
  bool arp = eth && (*eth == 0x0806 || *eth == 0x8035);
  if (key == "nw_src") return arp ? OxmId::kArpSpa : OxmId::kIpv4Src;
  if (key == "nw_dst") return arp ? OxmId::kArpTpa : OxmId::kIpv4Dst;
  if (key == "tp_src" || key == "tp_dst") {
    bool src = key == "tp_src";
    if (proto) {
      switch (*proto) {
        case 6:
          return src ? OxmId::kTcpSrc : OxmId::kTcpDst;
        case 17:
          return src ? OxmId::kUdpSrc : OxmId::kUdpDst;
        case 132:
          return src ? OxmId::kSctpSrc : OxmId::kSctpDst;
        case 1:
          return src ? OxmId::kIcmpv4Type : OxmId::kIcmpv4Code;
        case 58:
          return src ? OxmId::kIcmpv6Type : OxmId::kIcmpv6Code;
        default:
          break;
      }
    }
    return text_fail(kv.key_offset, fmt::format("'{}' needs a transport protocol: add tcp, udp or sctp "
                                                "(or tcp6/udp6/sctp6, or nw_proto=6/17/132) to the match",
                                                key));
  }
  if (key == "icmp_type" || key == "icmp_code") {
    bool type = key == "icmp_type";
    if (proto && *proto == 1) return type ? OxmId::kIcmpv4Type : OxmId::kIcmpv4Code;
    if (proto && *proto == 58) return type ? OxmId::kIcmpv6Type : OxmId::kIcmpv6Code;
    return text_fail(kv.key_offset, fmt::format("'{}' needs icmp or icmp6 in the match", key));
  }
  return text_fail(kv.key_offset, fmt::format("unknown field '{}'", key));
}

struct FlowParser {
  std::string_view text;
  FlowParseOptions opts;
  FlowMod fm;
  MatchBuilder mb;
  bool cookie_masked = false;

  std::optional<TextError> field(OxmId id, const KeyValue& kv, bool allow_mask = true) {
    if (!kv.has_value || kv.value.empty())
      return TextError{fmt::format("'{}' needs a value ({}=VALUE)", kv.key, kv.key), kv.key_offset};
    auto f = text::parse_field(id, kv.value, kv.value_offset, allow_mask);
    if (!f.ok()) return f.error();
    return mb.add(std::move(*f), kv.key_offset, kv.key);
  }

  std::optional<TextError> pass1(const KeyValue& kv, bool& handled) {
    handled = true;
    for (const auto& sh : kShorthands) {
      if (kv.key != sh.name) continue;
      if (kv.has_value)
        return TextError{fmt::format("'{}' is a shorthand and takes no value", kv.key), kv.key_offset};
      if (auto e = mb.add(text::make_field(OxmId::kEthType, sh.eth_type), kv.key_offset, kv.key)) return e;
      if (sh.ip_proto >= 0)
        if (auto e = mb.add(text::make_field(OxmId::kIpProto, uint64_t(sh.ip_proto)), kv.key_offset, kv.key))
          return e;
      return std::nullopt;
    }
    if (kv.key == "dl_type" || kv.key == "eth_type") return field(OxmId::kEthType, kv, false);
    handled = false;
    return std::nullopt;
  }

  std::optional<TextError> pass2(const KeyValue& kv, bool& handled) {
    handled = kv.key == "nw_proto" || kv.key == "ip_proto";
    if (!handled) return std::nullopt;
    auto eth = mb.exact(OxmId::kEthType);
    bool arp = eth && (*eth == 0x0806 || *eth == 0x8035);
    return field(arp && kv.key == "nw_proto" ? OxmId::kArpOp : OxmId::kIpProto, kv, false);
  }

  TResult<uint64_t> number(const KeyValue& kv, uint64_t max) {
    if (!kv.has_value)
      return text_fail(kv.key_offset, fmt::format("'{}' needs a value ({}=N)", kv.key, kv.key));
    return text::parse_uint_at(kv.value, kv.value_offset, max, kv.key);
  }

  std::optional<TextError> pass3(const KeyValue& kv) {
    std::string_view k = kv.key;
    // Fields by their own name first (the common case; none of the names below is one).
    if (auto id = text::field_by_name(k)) return field(*id, kv);
    // Flow-mod parameters.
    if (k == "table") {
      if (kv.has_value && (kv.value == "all" || kv.value == "ALL")) {
        fm.table_id = table::kAll;
        return std::nullopt;
      }
      auto v = number(kv, 255);
      if (!v.ok()) return v.error();
      fm.table_id = uint8_t(*v);
      return std::nullopt;
    }
    if (k == "priority") {
      auto v = number(kv, 0xffff);
      if (!v.ok()) return v.error();
      fm.priority = uint16_t(*v);
      return std::nullopt;
    }
    if (k == "idle_timeout" || k == "hard_timeout" || k == "importance") {
      auto v = number(kv, 0xffff);
      if (!v.ok()) return v.error();
      (k == "idle_timeout"   ? fm.idle_timeout
       : k == "hard_timeout" ? fm.hard_timeout
                             : fm.importance) = uint16_t(*v);
      return std::nullopt;
    }
    if (k == "cookie") {
      if (!kv.has_value)
        return TextError{"'cookie' needs a value (cookie=0x1 or cookie=0x1/-1)", kv.key_offset};
      size_t slash = kv.value.find('/');
      auto v = text::parse_uint_at(kv.value.substr(0, slash), kv.value_offset, UINT64_MAX, "cookie");
      if (!v.ok()) return v.error();
      fm.cookie = *v;
      if (slash != std::string_view::npos) {
        std::string_view m = kv.value.substr(slash + 1);
        size_t moff = kv.value_offset + slash + 1;
        if (opts.command == FlowModCommand::kAdd)
          return TextError{"flow additions cannot use a cookie mask", moff - 1};
        if (m == "-1") {
          fm.cookie_mask = UINT64_MAX;
        } else {
          auto mv = text::parse_uint_at(m, moff, UINT64_MAX, "cookie mask");
          if (!mv.ok()) return mv.error();
          fm.cookie_mask = *mv;
        }
        cookie_masked = true;
      }
      return std::nullopt;
    }
    if (k == "out_port") {
      if (!kv.has_value) return TextError{"'out_port' needs a port", kv.key_offset};
      auto p = parse_port(kv.value);
      if (!p.ok()) return TextError{p.error().message, kv.value_offset};
      fm.out_port = *p;
      return std::nullopt;
    }
    if (k == "out_group") {
      auto v = number(kv, 0xffffffff);
      if (!v.ok()) return v.error();
      fm.out_group = uint32_t(*v);
      return std::nullopt;
    }
    if (k == "buffer_id") {
      auto v = number(kv, 0xffffffff);
      if (!v.ok()) return v.error();
      fm.buffer_id = uint32_t(*v);
      return std::nullopt;
    }
    for (const auto& f : kFlags) {
      if (k == f.name) {
        if (kv.has_value)
          return TextError{fmt::format("'{}' is a flag and takes no value", k), kv.key_offset};
        fm.flags |= f.flag;
        return std::nullopt;
      }
    }
    // Match fields with special syntax.
    if (k == "dl_vlan") {
      auto v = number(kv, 0xffff);
      if (!v.ok()) return v.error();
      if (*v == 0xffff) return mb.add(text::make_field(OxmId::kVlanVid, kVlanNone), kv.key_offset, k);
      if (*v > 0xfff)
        return TextError{fmt::format("dl_vlan value {} is not a VLAN id in 0..4095 (or 0xffff for none)", *v),
                         kv.value_offset};
      return mb.add(text::make_field(OxmId::kVlanVid, *v | kVlanPresent), kv.key_offset, k);
    }
    if (k == "vlan_tci") {
      if (!kv.has_value) return TextError{"'vlan_tci' needs a value", kv.key_offset};
      size_t slash = kv.value.find('/');
      auto v = text::parse_uint_at(kv.value.substr(0, slash), kv.value_offset, 0xffff, "vlan_tci");
      if (!v.ok()) return v.error();
      uint64_t mask = 0xffff;
      if (slash != std::string_view::npos) {
        auto m = text::parse_uint_at(kv.value.substr(slash + 1), kv.value_offset + slash + 1, 0xffff,
                                     "vlan_tci mask");
        if (!m.ok()) return m.error();
        mask = *m;
      }
      uint64_t vid_mask = mask & 0x1fff, value = *v & mask;
      if (vid_mask) {
        OxmField f = vid_mask == 0x1fff ? text::make_field(OxmId::kVlanVid, value & 0x1fff)
                                        : text::make_field_masked(OxmId::kVlanVid, value & 0x1fff, vid_mask);
        if (auto e = mb.add(std::move(f), kv.key_offset, k)) return e;
      }
      uint64_t pcp_mask = mask & 0xe000;
      if (pcp_mask == 0xe000) {
        if (auto e = mb.add(text::make_field(OxmId::kVlanPcp, value >> 13), kv.key_offset, k)) return e;
      } else if (pcp_mask != 0) {
        return TextError{"vlan_tci: the priority bits (0xe000) can only be matched all or nothing",
                         kv.value_offset};
      }
      return std::nullopt;
    }
    if (k == "nw_tos") {
      auto v = number(kv, 255);
      if (!v.ok()) return v.error();
      if (*v & 3)
        return TextError{fmt::format("nw_tos value {} has ECN bits set: use a multiple of 4 (or nw_ecn)", *v),
                         kv.value_offset};
      return mb.add(text::make_field(OxmId::kIpDscp, *v >> 2), kv.key_offset, k);
    }
    if (k == "tcp_flags") {  // OpenFlow 1.5's OXM: +syn-ack, syn|ack or value[/mask]
      if (!kv.has_value || kv.value.empty())
        return TextError{"'tcp_flags' needs a value (tcp_flags=+syn-ack)", kv.key_offset};
      auto f = text::parse_tcp_flags(kv.value, kv.value_offset);
      if (!f.ok()) return f.error();
      return mb.add(std::move(*f), kv.key_offset, k);
    }
    if (k == "nw_ttl" || k == "nw_frag" || k == "mpls_ttl")
      return TextError{fmt::format("'{}' cannot be matched with OpenFlow 1.3 OXM fields", k), kv.key_offset};
    if (k == "nw_src" || k == "nw_dst" || k == "tp_src" || k == "tp_dst" || k == "icmp_type" ||
        k == "icmp_code") {
      auto id = contextual_field(k, kv, mb);
      if (!id.ok()) return id.error();
      return field(*id, kv);
    }
    if (k == "actions" || k == "action") return TextError{"actions are not allowed here", kv.key_offset};
    return TextError{fmt::format("unknown field '{}'", k), kv.key_offset};
  }

  TResult<FlowMod> run() {
    fm.command = opts.command;
    fm.table_id = opts.default_table;
    size_t actions_value = 0;
    size_t actions_at = find_actions(text, actions_value);
    std::string_view match_text = text.substr(0, actions_at);
    if (actions_at != std::string_view::npos && !opts.allow_actions)
      return text_fail(actions_at, "actions are not allowed here (this command takes a match only)");
    if (actions_at == std::string_view::npos && opts.require_actions)
      return text_fail(text.size(), "must specify an action (add actions=..., e.g. actions=drop)");

    auto pieces = text::split_pieces(match_text, 0);
    if (!pieces.ok()) return unexpected(pieces.error());
    std::vector<KeyValue> kvs;
    kvs.reserve(pieces->size());
    for (const Piece& p : *pieces) kvs.push_back(text::split_key_value(p));
    std::vector<bool> done(kvs.size(), false);
    mb.reserve(kvs.size());
    for (size_t i = 0; i < kvs.size(); ++i) {
      bool handled = false;
      if (auto e = pass1(kvs[i], handled)) return unexpected(*e);
      done[i] = handled;
    }
    for (size_t i = 0; i < kvs.size(); ++i) {
      if (done[i]) continue;
      bool handled = false;
      if (auto e = pass2(kvs[i], handled)) return unexpected(*e);
      done[i] = handled;
    }
    for (size_t i = 0; i < kvs.size(); ++i) {
      if (done[i]) continue;
      if (auto e = pass3(kvs[i])) return unexpected(*e);
    }
    if (auto e = mb.check_prerequisites()) return unexpected(*e);
    if (actions_at != std::string_view::npos) {
      auto insts =
          text::parse_instructions_at(text.substr(actions_value), actions_value, mb.match(), opts.version);
      if (!insts.ok()) return unexpected(insts.error());
      fm.instructions = std::move(*insts);
    }
    fm.match = mb.take();
    if (auto err = validate_match(fm.match))
      return text_fail(0, fmt::format("invalid match: {}", err->message));
    return std::move(fm);
  }
};

}  // namespace

Result<FlowMod> parse_flow_mod(std::string_view text, const FlowParseOptions& opts) {
  FlowParser p{text, opts, {}, {}};
  auto r = p.run();
  if (!r.ok()) return unexpected(text::wrap_error("flow", text, r.error()));
  return std::move(*r);
}

Result<FlowStatsRequest> parse_flow_stats_request(std::string_view text, uint8_t version) {
  FlowParseOptions o;
  o.command = FlowModCommand::kDelete;
  o.version = version;
  o.default_table = table::kAll;
  o.allow_actions = false;
  FLOWLAB_ASSIGN_OR_RETURN(FlowMod fm, parse_flow_mod(text, o));
  FlowStatsRequest r;
  r.table_id = fm.table_id;
  r.out_port = fm.out_port;
  r.out_group = fm.out_group;
  r.cookie = fm.cookie;
  r.cookie_mask = fm.cookie_mask;
  r.match = std::move(fm.match);
  return r;
}

Result<InstructionList> parse_instructions(std::string_view text, const Match& match, uint8_t version) {
  auto r = text::parse_instructions_at(text, 0, match, version);
  if (!r.ok()) return unexpected(text::wrap_error("actions", text, r.error()));
  return std::move(*r);
}

Result<ActionList> parse_actions(std::string_view text, const Match& match, uint8_t version) {
  auto r = text::parse_actions_at(text, 0, match, version);
  if (!r.ok()) return unexpected(text::wrap_error("actions", text, r.error()));
  return std::move(*r);
}

}  // namespace flowlab::of

// Flow text printer: matches, actions, instructions and dump-flows lines in the
// exact form `ovs-ofctl -O OpenFlow13 dump-flows` (Open vSwitch 3.1) prints them.
//
// OVS prints a match in a fixed order, not in wire order: priority, the
// protocol shorthand (ip, tcp, arp, ...), tun_id, metadata, in_port, the VLAN
// (as dl_vlan/dl_vlan_pcp when it can, else vlan_tci=V/M), dl_src, dl_dst,
// dl_type (when no shorthand covers it), L3 addresses, nw_proto/arp_op,
// arp_sha/tha, nw_tos, nw_ecn, MPLS, then L4 (tp_src/tp_dst for tcp/udp/sctp,
// icmp_type/icmp_code + nd_* for ICMP). Fields OVS has no OF1.3 spelling for
// (in_phy_port, pbb_isid, ipv6_exthdr) are appended in the same name=value form.
#include <fmt/format.h>

#include "openflow/text/flow_text.h"
#include "openflow/text/internal.h"

namespace flowlab::of {
namespace {

using text::format_bytes_value;
using text::hex_alt;

struct MatchPrinter {
  const Match& m;
  std::string out;

  const OxmField* get(OxmId id) const { return m.find(id); }
  std::optional<uint64_t> exact(OxmId id) const {
    const OxmField* f = get(id);
    if (!f || f->has_mask) return std::nullopt;
    return f->value_u64();
  }
  void put(std::string_view s) {
    out += s;
    out += ',';
  }
  // format_be16/32_masked: decimal when exact, 0xV/0xM otherwise.
  void uint_field(std::string_view name, OxmId id) {
    const OxmField* f = get(id);
    if (!f) return;
    if (f->has_mask)
      put(fmt::format("{}={:#x}/{:#x}", name, f->value_u64(), f->mask_u64()));
    else
      put(fmt::format("{}={}", name, f->value_u64()));
  }
  // metadata, tun_id: %#x value, /%#x mask.
  void hex64_field(std::string_view name, OxmId id) {
    const OxmField* f = get(id);
    if (!f) return;
    std::string s = fmt::format("{}={}", name, hex_alt(f->value_u64()));
    if (f->has_mask) s += "/" + hex_alt(f->mask_u64());
    put(s);
  }
  void addr_field(std::string_view name, OxmId id) {
    const OxmField* f = get(id);
    if (!f) return;
    put(fmt::format("{}={}", name, text::format_masked_addr(id, *f)));
  }

  void vlan() {
    const OxmField* vid = get(OxmId::kVlanVid);
    const OxmField* pcp = get(OxmId::kVlanPcp);
    if (!vid && !pcp) return;
    uint16_t tci = 0, mask = 0;
    if (vid) {
      tci |= uint16_t(vid->value_u64() & 0x1fff);
      mask |= uint16_t(vid->has_mask ? vid->mask_u64() & 0x1fff : 0x1fff);
    }
    if (pcp) {
      tci |= uint16_t((pcp->value_u64() & 7) << 13);
      mask |= 0xe000;
    }
    tci &= mask;
    uint16_t vid_mask = mask & 0x0fff, pcp_mask = mask & 0xe000;
    if ((mask & 0x1000) && (tci & 0x1000) && (vid_mask == 0 || vid_mask == 0x0fff) &&
        (pcp_mask == 0 || pcp_mask == 0xe000) && (vid_mask || pcp_mask)) {
      if (vid_mask) put(fmt::format("dl_vlan={}", tci & 0x0fff));
      if (pcp_mask) put(fmt::format("dl_vlan_pcp={}", tci >> 13));
    } else if (mask == 0xffff) {
      put(fmt::format("vlan_tci={:#06x}", tci));
    } else {
      put(fmt::format("vlan_tci={:#06x}/{:#06x}", tci, mask));
    }
  }

  std::string run(int priority) {
    if (priority >= 0 && priority != 0x8000) put(fmt::format("priority={}", priority));
    // OVS 3.1 prints actset_output before the protocol shorthand (priority=20,actset_output=2,icmp).
    if (const OxmField* f = get(OxmId::kActsetOutput))
      put("actset_output=" + format_port(uint32_t(f->value_u64())));
    auto eth = exact(OxmId::kEthType);
    auto proto = exact(OxmId::kIpProto);
    bool skip_type = false, skip_proto = false;
    if (eth) {
      skip_type = true;
      std::string_view sh;
      if (*eth == 0x0800) {
        sh = "ip";
        if (proto) {
          switch (*proto) {
            case 1:
              sh = "icmp";
              break;
            case 2:
              sh = "igmp";
              break;
            case 6:
              sh = "tcp";
              break;
            case 17:
              sh = "udp";
              break;
            case 132:
              sh = "sctp";
              break;
            default:
              break;
          }
        }
        skip_proto = proto && sh != "ip";
      } else if (*eth == 0x86dd) {
        sh = "ipv6";
        if (proto) {
          switch (*proto) {
            case 58:
              sh = "icmp6";
              break;
            case 6:
              sh = "tcp6";
              break;
            case 17:
              sh = "udp6";
              break;
            case 132:
              sh = "sctp6";
              break;
            default:
              break;
          }
        }
        skip_proto = proto && sh != "ipv6";
      } else if (*eth == 0x0806) {
        sh = "arp";
      } else if (*eth == 0x8035) {
        sh = "rarp";
      } else if (*eth == 0x8847) {
        sh = "mpls";
      } else if (*eth == 0x8848) {
        sh = "mplsm";
      } else {
        skip_type = false;
      }
      if (skip_type) put(sh);
    }
    hex64_field("tun_id", OxmId::kTunnelId);
    hex64_field("metadata", OxmId::kMetadata);
    if (const OxmField* f = get(OxmId::kInPort)) put("in_port=" + format_port(uint32_t(f->value_u64())));
    vlan();
    addr_field("dl_src", OxmId::kEthSrc);
    addr_field("dl_dst", OxmId::kEthDst);
    if (!skip_type) {
      if (const OxmField* f = get(OxmId::kEthType)) put(fmt::format("dl_type={:#06x}", f->value_u64()));
    }
    addr_field("ipv6_src", OxmId::kIpv6Src);
    addr_field("ipv6_dst", OxmId::kIpv6Dst);
    if (const OxmField* f = get(OxmId::kIpv6Flabel)) {
      if (f->has_mask)
        put(fmt::format("ipv6_label={:#07x}/{:#07x}", f->value_u64(), f->mask_u64()));
      else
        put(fmt::format("ipv6_label={:#07x}", f->value_u64()));
    }
    addr_field("arp_spa", OxmId::kArpSpa);
    addr_field("arp_tpa", OxmId::kArpTpa);
    addr_field("nw_src", OxmId::kIpv4Src);
    addr_field("nw_dst", OxmId::kIpv4Dst);
    if (!skip_proto) uint_field("nw_proto", OxmId::kIpProto);
    uint_field("arp_op", OxmId::kArpOp);
    addr_field("arp_sha", OxmId::kArpSha);
    addr_field("arp_tha", OxmId::kArpTha);
    if (const OxmField* f = get(OxmId::kIpDscp)) put(fmt::format("nw_tos={}", (f->value_u64() & 0x3f) << 2));
    uint_field("nw_ecn", OxmId::kIpEcn);
    uint_field("mpls_label", OxmId::kMplsLabel);
    uint_field("mpls_tc", OxmId::kMplsTc);
    uint_field("mpls_bos", OxmId::kMplsBos);
    uint_field("icmp_type", OxmId::kIcmpv4Type);
    uint_field("icmp_code", OxmId::kIcmpv4Code);
    uint_field("icmp_type", OxmId::kIcmpv6Type);
    uint_field("icmp_code", OxmId::kIcmpv6Code);
    addr_field("nd_target", OxmId::kIpv6NdTarget);
    addr_field("nd_sll", OxmId::kIpv6NdSll);
    addr_field("nd_tll", OxmId::kIpv6NdTll);
    for (auto [src, dst] :
         {std::pair{OxmId::kTcpSrc, OxmId::kTcpDst}, std::pair{OxmId::kUdpSrc, OxmId::kUdpDst},
          std::pair{OxmId::kSctpSrc, OxmId::kSctpDst}}) {
      uint_field("tp_src", src);
      uint_field("tp_dst", dst);
    }
    if (const OxmField* f = get(OxmId::kInPhyPort))
      put("in_phy_port=" + format_port(uint32_t(f->value_u64())));
    hex64_field("pbb_isid", OxmId::kPbbIsid);
    uint_field("pbb_uca", OxmId::kPbbUca);
    hex64_field("ipv6_exthdr", OxmId::kIpv6Exthdr);
    if (const OxmField* f = get(OxmId::kTcpFlags)) put("tcp_flags=" + text::format_tcp_flags(*f));
    if (const OxmField* f = get(OxmId::kPacketType))
      put(fmt::format("packet_type=({},{:#x})", f->value_u64() >> 16, f->value_u64() & 0xffff));
    for (const OxmField& f : m.fields) {
      if (f.is_basic() && f.field < kNumBasicOxm) continue;
      put(fmt::format("oxm({:#010x})={}", f.header(), format_field_value(f)));
    }
    if (!out.empty()) out.pop_back();
    return out;
  }
};

std::string format_action(const Action& a) {
  switch (a.type) {
    case ActionType::kOutput:
      if (a.port == port::kController) return fmt::format("CONTROLLER:{}", a.max_len);
      if (a.port < port::kMax) return fmt::format("output:{}", a.port);
      return format_port(a.port);
    case ActionType::kCopyTtlOut:
      return "copy_ttl_out";
    case ActionType::kCopyTtlIn:
      return "copy_ttl_in";
    case ActionType::kSetMplsTtl:
      return fmt::format("set_mpls_ttl:{}", a.ttl);
    case ActionType::kDecMplsTtl:
      return "dec_mpls_ttl";
    case ActionType::kPushVlan:
      return fmt::format("push_vlan:{:#06x}", a.ethertype);
    case ActionType::kPopVlan:
      return "pop_vlan";
    case ActionType::kPushMpls:
      return fmt::format("push_mpls:{:#06x}", a.ethertype);
    case ActionType::kPopMpls:
      return fmt::format("pop_mpls:{:#06x}", a.ethertype);
    case ActionType::kSetQueue:
      return fmt::format("set_queue:{}", a.queue_id);
    case ActionType::kGroup:
      return fmt::format("group:{}", a.group_id);
    case ActionType::kSetNwTtl:
      return fmt::format("mod_nw_ttl:{}", a.ttl);
    case ActionType::kDecNwTtl:
      return "dec_ttl";
    case ActionType::kSetField: {
      std::string name = a.field.is_basic() && a.field.field < kNumBasicOxm
                             ? std::string(set_field_name(a.field.id()))
                             : fmt::format("oxm({:#010x})", a.field.header());
      return fmt::format("set_field:{}->{}", format_field_value(a.field), name);
    }
    case ActionType::kPushPbb:
      return fmt::format("push_pbb:{:#06x}", a.ethertype);
    case ActionType::kPopPbb:
      return "pop_pbb";
    case ActionType::kCopyField:
      return text::format_copy_field(a.copy);
    case ActionType::kEnqueue:
      return fmt::format("enqueue:{}:{}", format_port(a.port), a.queue_id);
    case ActionType::kExperimenter:
      return fmt::format("experimenter({:#x},data={})", a.experimenter, to_hex(a.data));
  }
  return fmt::format("action_type({})", static_cast<uint16_t>(a.type));
}

void append_actions(std::string& s, const ActionList& actions) {
  for (const Action& a : actions) {
    if (!s.empty() && s.back() != '(') s += ',';
    s += format_action(a);
  }
}

}  // namespace

std::string format_match(const Match& m, int priority) {
  MatchPrinter p{m, {}};
  return p.run(priority);
}

std::string format_actions(const ActionList& actions) {
  if (actions.empty()) return "drop";
  std::string s;
  append_actions(s, actions);
  return s;
}

std::string format_instructions(const InstructionList& insts) {
  std::string s;
  auto sep = [&] {
    if (!s.empty()) s += ',';
  };
  for (const Instruction& i : insts) {
    switch (i.type) {
      case InstructionType::kApplyActions:
        for (const Action& a : i.actions) {
          sep();
          s += format_action(a);
        }
        break;
      case InstructionType::kWriteActions:
        sep();
        s += "write_actions(";
        append_actions(s, i.actions);
        s += ')';
        break;
      case InstructionType::kClearActions:
        sep();
        s += "clear_actions";
        break;
      case InstructionType::kGotoTable:
        sep();
        s += fmt::format("goto_table:{}", i.table_id);
        break;
      case InstructionType::kMeter:
        sep();
        s += fmt::format("meter:{}", i.meter_id);
        break;
      case InstructionType::kWriteMetadata:
        sep();
        s += fmt::format("write_metadata:{}", hex_alt(i.metadata));
        if (i.metadata_mask != UINT64_MAX) s += "/" + hex_alt(i.metadata_mask);
        break;
      case InstructionType::kExperimenter:
        sep();
        s += fmt::format("experimenter_instruction({:#x},data={})", i.experimenter, to_hex(i.data));
        break;
    }
  }
  return s.empty() ? "drop" : s;
}

std::string format_duration(uint32_t sec, uint32_t nsec) {
  std::string s = fmt::format("{}", sec);
  if (nsec > 0) {
    uint32_t msec = nsec / 1000000;
    if (msec * 1000000 == nsec) {
      s += fmt::format(".{:03}", msec);
    } else {
      std::string frac = fmt::format("{:09}", nsec);
      while (!frac.empty() && frac.back() == '0') frac.pop_back();
      s += "." + frac;
    }
  }
  return s + "s";
}

namespace {
void append_flags(std::string& s, uint16_t flags) {
  static constexpr std::pair<uint16_t, std::string_view> kNames[] = {
      {flow_mod_flags::kSendFlowRem, "send_flow_rem"},  {flow_mod_flags::kCheckOverlap, "check_overlap"},
      {flow_mod_flags::kResetCounts, "reset_counts"},   {flow_mod_flags::kNoPktCounts, "no_packet_counts"},
      {flow_mod_flags::kNoBytCounts, "no_byte_counts"},
  };
  for (auto [bit, name] : kNames) {
    if (flags & bit) {
      s += name;
      s += ' ';
    }
  }
  if (uint16_t rest = flags & ~uint16_t(0x1f)) s += fmt::format("flags:{:#x} ", rest);
}
}  // namespace

std::string format_flow_stats(const FlowStats& fs, bool show_stats) {
  std::string s = " ";
  if (show_stats || fs.cookie) s += fmt::format("cookie={:#x}, ", fs.cookie);
  if (show_stats) s += fmt::format("duration={}, ", format_duration(fs.duration_sec, fs.duration_nsec));
  if (show_stats || fs.table_id) s += fmt::format("table={}, ", fs.table_id);
  if (show_stats) s += fmt::format("n_packets={}, n_bytes={}, ", fs.packet_count, fs.byte_count);
  if (fs.idle_timeout) s += fmt::format("idle_timeout={}, ", fs.idle_timeout);
  if (fs.hard_timeout) s += fmt::format("hard_timeout={}, ", fs.hard_timeout);
  append_flags(s, fs.flags);
  if (fs.importance) s += fmt::format("importance={}, ", fs.importance);
  s += format_match(fs.match, fs.priority);
  if (s.back() != ' ') s += ' ';
  s += "actions=" + format_instructions(fs.instructions);
  return s;
}

std::string format_flow_mod_text(const FlowMod& fm) {
  std::string s;
  auto put = [&](const std::string& p) {
    if (p.empty()) return;
    if (!s.empty()) s += ',';
    s += p;
  };
  if (fm.table_id) put(fmt::format("table={}", fm.table_id));
  if (fm.cookie || fm.cookie_mask) {
    std::string c = fmt::format("cookie={:#x}", fm.cookie);
    if (fm.cookie_mask) c += fmt::format("/{:#x}", fm.cookie_mask);
    put(c);
  }
  if (fm.idle_timeout) put(fmt::format("idle_timeout={}", fm.idle_timeout));
  if (fm.hard_timeout) put(fmt::format("hard_timeout={}", fm.hard_timeout));
  if (fm.importance) put(fmt::format("importance={}", fm.importance));
  if (fm.out_port != port::kAny) put("out_port=" + format_port(fm.out_port));
  if (fm.out_group != group::kAny) put(fmt::format("out_group={}", fm.out_group));
  if (fm.buffer_id != kNoBuffer) put(fmt::format("buffer_id={:#x}", fm.buffer_id));
  std::string flags;
  append_flags(flags, fm.flags);
  for (char& c : flags)
    if (c == ' ') c = ',';
  if (!flags.empty()) flags.pop_back();
  put(flags);
  put(fmt::format("priority={}", fm.priority));
  put(format_match(fm.match, -1));
  put("actions=" + format_instructions(fm.instructions));
  return s;
}

std::string format_bucket(const Bucket& b, GroupType type) {
  std::string s = "bucket=";
  if (b.bucket_id) s += fmt::format("bucket_id:{},", *b.bucket_id);  // OF1.5
  if (type == GroupType::kSelect) s += fmt::format("weight:{},", b.weight);
  if (b.watch_port != port::kAny) s += "watch_port:" + format_port(b.watch_port) + ",";
  if (b.watch_group != group::kAny) s += fmt::format("watch_group:{},", b.watch_group);
  s += "actions=" + format_actions(b.actions);
  return s;
}

std::string format_group_desc(const GroupDesc& g) {
  static constexpr std::string_view kTypes[] = {"all", "select", "indirect", "ff"};
  auto t = static_cast<size_t>(g.type);
  std::string s =
      fmt::format("group_id={},type={}", g.group_id, t < 4 ? std::string(kTypes[t]) : fmt::format("{}", t));
  for (const Bucket& b : g.buckets) s += "," + format_bucket(b, g.type);
  return s;
}

std::string format_meter_config(const MeterConfig& mc) {
  std::string s = fmt::format("meter={} ", mc.meter_id);
  if (mc.flags & meter_flags::kKbps) s += "kbps ";
  if (mc.flags & meter_flags::kPktps) s += "pktps ";
  if (mc.flags & meter_flags::kBurst) s += "burst ";
  if (mc.flags & meter_flags::kStats) s += "stats ";
  s += "bands=";
  for (const MeterBand& b : mc.bands) {
    s += "\n";
    switch (b.type) {
      case MeterBandType::kDrop:
        s += "type=drop";
        break;
      case MeterBandType::kDscpRemark:
        s += "type=dscp_remark";
        break;
      default:
        s += fmt::format("type={}", static_cast<uint16_t>(b.type));
        break;
    }
    s += fmt::format(" rate={}", b.rate);
    if (mc.flags & meter_flags::kBurst) s += fmt::format(" burst_size={}", b.burst_size);
    if (b.type == MeterBandType::kDscpRemark) s += fmt::format(" prec_level={}", b.prec_level);
  }
  return s;
}

}  // namespace flowlab::of

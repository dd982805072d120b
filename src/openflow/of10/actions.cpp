// OpenFlow 1.0 actions <-> model actions, plus the small shared helpers of the
// OF1.0 codec (port narrowing, error text, port feature bits, ofp_phy_port).
//
// OF1.0's typed setters become OF1.3 set-field actions (set_dl_src -> eth_src,
// set_nw_tos -> ip_dscp = tos >> 2, set_tp_src -> tcp_src, ...), strip_vlan
// becomes pop_vlan, enqueue stays the model-only kEnqueue, and vendor actions
// are kept opaque (vendor id + the bytes after it) and re-encoded unchanged.
// On encode, tcp/udp/sctp port set-fields all map back to set_tp_src/dst;
// everything OF1.0 lacks (groups, push/pop MPLS, TTLs, set_queue...) is an error.
#include <fmt/format.h>

#include "openflow/of10/wire.h"

namespace flowlab::of::of10 {
namespace {

enum class ActType : uint16_t {
  kOutput = 0,
  kSetVlanVid = 1,
  kSetVlanPcp = 2,
  kStripVlan = 3,
  kSetDlSrc = 4,
  kSetDlDst = 5,
  kSetNwSrc = 6,
  kSetNwDst = 7,
  kSetNwTos = 8,
  kSetTpSrc = 9,
  kSetTpDst = 10,
  kEnqueue = 11,
  kVendor = 0xffff,
};

// Wire length of each fixed-size OF1.0 action.
size_t fixed_len(ActType t) {
  switch (t) {
    case ActType::kSetDlSrc:
    case ActType::kSetDlDst:
    case ActType::kEnqueue:
      return 16;
    default:
      return 8;
  }
}

EncodeStatus fail_action(BadActionCode c, std::string msg) {
  return unexpected(OfError::make(c, "OF1.0 action: " + std::move(msg)));
}

}  // namespace

Result<uint16_t, OfError> narrow_port_or_error(uint32_t p, std::string_view what) {
  uint16_t out = 0;
  if (narrow_port(p, out)) return out;
  return unexpected(OfError::make(
      BadRequestCode::kBadPort, fmt::format("{} port {} does not fit OF1.0's 16-bit port numbers", what, p)));
}

OfError truncated(const ByteReader& r, std::string_view what, size_t need) {
  return OfError::make(BadRequestCode::kBadLen,
                       fmt::format("{} needs {} bytes, only {} left", what, need, r.remaining()), r.offset());
}

uint32_t features_from_of10(uint32_t f) { return (f & 0x7f) | ((f & 0xf80) << 4); }
uint32_t features_to_of10(uint32_t f) { return (f & 0x7f) | ((f >> 4) & 0xf80); }

Result<ActionList, OfError> decode_actions(ByteReader& r, size_t len) {
  if (r.remaining() < len) return unexpected(truncated(r, "action list", len));
  const size_t end = r.offset() + len;
  ActionList out;
  while (r.offset() < end) {
    const size_t at = r.offset();
    const size_t left = end - at;
    if (left < 8)
      return unexpected(
          err_at(BadActionCode::kBadLen, at, fmt::format("action header needs 8 bytes, {} left", left)));
    uint16_t type_raw = 0, alen = 0;
    r.u16(type_raw);
    r.u16(alen);
    if (alen < 8 || alen % 8 != 0 || alen > left)
      return unexpected(err_at(BadActionCode::kBadLen, at,
                               fmt::format("action type {} has length {} (must be a multiple of "
                                           "8, >= 8, <= {} bytes left)",
                                           type_raw, alen, left)));
    const auto type = static_cast<ActType>(type_raw);
    if (type_raw > static_cast<uint16_t>(ActType::kEnqueue) && type != ActType::kVendor)
      return unexpected(
          err_at(BadActionCode::kBadType, at, fmt::format("unknown OF1.0 action type {}", type_raw)));
    if (type != ActType::kVendor && alen != fixed_len(type))
      return unexpected(err_at(
          BadActionCode::kBadLen, at,
          fmt::format("OF1.0 action type {} must be {} bytes, not {}", type_raw, fixed_len(type), alen)));
    Action a;
    uint16_t v16 = 0;
    uint8_t v8 = 0;
    uint32_t v32 = 0;
    ByteSpan mac;
    auto bad_arg = [&](std::string msg) {
      return unexpected(err_at(BadActionCode::kBadArgument, at, std::move(msg)));
    };
    switch (type) {
      case ActType::kOutput:
        r.u16(v16);
        r.u16(a.max_len);
        a.type = ActionType::kOutput;
        a.port = widen_port(v16);
        if (v16 == kPortNone)
          return unexpected(err_at(BadActionCode::kBadOutPort, at, "output to OFPP_NONE"));
        break;
      case ActType::kSetVlanVid:
        r.u16(v16);
        r.skip(2);
        if (v16 > 0xfff) return bad_arg(fmt::format("set_vlan_vid {} > 4095", v16));
        a = Action::set_field(OxmField::basic(OxmId::kVlanVid, v16 | kVlanPresent));
        break;
      case ActType::kSetVlanPcp:
        r.u8(v8);
        r.skip(3);
        if (v8 > 7) return bad_arg(fmt::format("set_vlan_pcp {} > 7", v8));
        a = Action::set_field(OxmField::basic(OxmId::kVlanPcp, v8));
        break;
      case ActType::kStripVlan:
        r.skip(4);
        a = Action::pop_vlan();
        break;
      case ActType::kSetDlSrc:
      case ActType::kSetDlDst:
        r.bytes(6, mac);
        r.skip(6);
        a = Action::set_field(
            OxmField::basic_bytes(type == ActType::kSetDlSrc ? OxmId::kEthSrc : OxmId::kEthDst, mac));
        break;
      case ActType::kSetNwSrc:
      case ActType::kSetNwDst:
        r.u32(v32);
        a = Action::set_field(
            OxmField::basic(type == ActType::kSetNwSrc ? OxmId::kIpv4Src : OxmId::kIpv4Dst, v32));
        break;
      case ActType::kSetNwTos:
        r.u8(v8);
        r.skip(3);
        if (v8 & 0x03) return bad_arg(fmt::format("set_nw_tos {} has ECN bits set", v8));
        a = Action::set_field(OxmField::basic(OxmId::kIpDscp, v8 >> 2));
        break;
      case ActType::kSetTpSrc:
      case ActType::kSetTpDst:
        r.u16(v16);
        r.skip(2);
        a = Action::set_field(
            OxmField::basic(type == ActType::kSetTpSrc ? OxmId::kTcpSrc : OxmId::kTcpDst, v16));
        break;
      case ActType::kEnqueue:
        r.u16(v16);
        r.skip(6);
        r.u32(a.queue_id);
        a.type = ActionType::kEnqueue;
        a.port = widen_port(v16);
        if (v16 == kPortNone)
          return unexpected(err_at(BadActionCode::kBadOutPort, at, "enqueue to OFPP_NONE"));
        break;
      case ActType::kVendor: {
        r.u32(a.experimenter);
        ByteSpan rest;
        r.bytes(alen - 8, rest);
        a.type = ActionType::kExperimenter;
        a.data.assign(rest.begin(), rest.end());
        break;
      }
    }
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

EncodeStatus encode_set_field(const OxmField& f, ByteWriter& w) {
  if (!f.is_basic() || f.has_mask)
    return fail_action(BadActionCode::kBadSetType, "OF1.0 can only set basic fields, unmasked");
  const OxmFieldInfo* info = oxm_info(f.id());
  if (!info || f.value.size() != info->length)
    return fail_action(BadActionCode::kBadSetLen, "set_field value has the wrong length");
  const uint64_t v = f.value_u64();
  auto typed = [&](ActType t) {
    w.u16(static_cast<uint16_t>(t));
    w.u16(static_cast<uint16_t>(fixed_len(t)));
  };
  switch (f.id()) {
    case OxmId::kVlanVid:
      if (!(v & kVlanPresent))
        return fail_action(BadActionCode::kBadSetArgument,
                           "set_field vlan_vid needs OFPVID_PRESENT (OF1.0 cannot set 'no VLAN')");
      typed(ActType::kSetVlanVid);
      w.u16(static_cast<uint16_t>(v & 0xfff));
      w.zeros(2);
      return {};
    case OxmId::kVlanPcp:
      typed(ActType::kSetVlanPcp);
      w.u8(static_cast<uint8_t>(v));
      w.zeros(3);
      return {};
    case OxmId::kEthSrc:
    case OxmId::kEthDst:
      typed(f.is(OxmId::kEthSrc) ? ActType::kSetDlSrc : ActType::kSetDlDst);
      w.bytes(f.value);
      w.zeros(6);
      return {};
    case OxmId::kIpv4Src:
    case OxmId::kIpv4Dst:
      typed(f.is(OxmId::kIpv4Src) ? ActType::kSetNwSrc : ActType::kSetNwDst);
      w.u32(static_cast<uint32_t>(v));
      return {};
    case OxmId::kIpDscp:
      if (v > 63) return fail_action(BadActionCode::kBadSetArgument, fmt::format("ip_dscp {} > 63", v));
      typed(ActType::kSetNwTos);
      w.u8(static_cast<uint8_t>(v << 2));
      w.zeros(3);
      return {};
    case OxmId::kTcpSrc:
    case OxmId::kUdpSrc:
    case OxmId::kSctpSrc:
      typed(ActType::kSetTpSrc);
      w.u16(static_cast<uint16_t>(v));
      w.zeros(2);
      return {};
    case OxmId::kTcpDst:
    case OxmId::kUdpDst:
    case OxmId::kSctpDst:
      typed(ActType::kSetTpDst);
      w.u16(static_cast<uint16_t>(v));
      w.zeros(2);
      return {};
    default:
      return fail_action(BadActionCode::kBadSetType, fmt::format("OF1.0 cannot set {}", info->name));
  }
}

}  // namespace

EncodeStatus encode_actions(const ActionList& actions, ByteWriter& w) {
  for (const Action& a : actions) {
    switch (a.type) {
      case ActionType::kOutput:
      case ActionType::kEnqueue: {
        uint16_t port = 0;
        if (!narrow_port(a.port, port) || port == kPortNone)
          return fail_action(BadActionCode::kBadOutPort, fmt::format("port {} has no OF1.0 number", a.port));
        if (a.type == ActionType::kOutput) {
          w.u16(static_cast<uint16_t>(ActType::kOutput));
          w.u16(8);
          w.u16(port);
          w.u16(a.max_len);
        } else {
          w.u16(static_cast<uint16_t>(ActType::kEnqueue));
          w.u16(16);
          w.u16(port);
          w.zeros(6);
          w.u32(a.queue_id);
        }
        break;
      }
      case ActionType::kPopVlan:
        w.u16(static_cast<uint16_t>(ActType::kStripVlan));
        w.u16(8);
        w.zeros(4);
        break;
      case ActionType::kSetField:
        FLOWLAB_TRY(encode_set_field(a.field, w));
        break;
      case ActionType::kExperimenter: {
        const size_t len = 8 + a.data.size();
        if (len % 8 != 0 || len > 0xfff8)
          return fail_action(BadActionCode::kBadLen,
                             fmt::format("vendor action length {} is not a multiple of 8", len));
        w.u16(static_cast<uint16_t>(ActType::kVendor));
        w.u16(static_cast<uint16_t>(len));
        w.u32(a.experimenter);
        w.bytes(a.data);
        break;
      }
      default:
        return fail_action(BadActionCode::kBadType, fmt::format("OF1.0 has no {} action", to_string(a.type)));
    }
  }
  return {};
}

Result<const ActionList*, OfError> actions_of(const InstructionList& insts, std::string_view what) {
  static const ActionList kNone;
  if (insts.empty()) return &kNone;
  if (insts.size() == 1 && insts[0].type == InstructionType::kApplyActions) return &insts[0].actions;
  for (const Instruction& i : insts) {
    if (i.type != InstructionType::kApplyActions)
      return unexpected(
          OfError::make(BadInstructionCode::kUnsupInst,
                        fmt::format("{}: OF1.0 has no {} instruction (only one list of actions)", what,
                                    to_string(i.type))));
  }
  return unexpected(
      OfError::make(BadInstructionCode::kUnsupInst, fmt::format("{}: OF1.0 has one action list, not {} "
                                                                "apply-actions instructions",
                                                                what, insts.size())));
}

InstructionList instructions_from(ActionList actions) {
  InstructionList out;
  if (!actions.empty()) out.push_back(Instruction::apply(std::move(actions)));
  return out;
}

Result<PortDesc, OfError> decode_phy_port(ByteReader& r) {
  if (r.remaining() < kPhyPortLen) return unexpected(truncated(r, "ofp_phy_port", kPhyPortLen));
  PortDesc p;
  uint16_t port_no = 0;
  r.u16(port_no);
  p.port_no = widen_port(port_no);
  r.copy(p.hw_addr.b.data(), 6);
  r.str(16, p.name);
  r.u32(p.config);
  r.u32(p.state);
  r.u32(p.curr);
  r.u32(p.advertised);
  r.u32(p.supported);
  r.u32(p.peer);
  p.curr = features_from_of10(p.curr);
  p.advertised = features_from_of10(p.advertised);
  p.supported = features_from_of10(p.supported);
  p.peer = features_from_of10(p.peer);
  return p;
}

EncodeStatus encode_phy_port(const PortDesc& p, ByteWriter& w) {
  FLOWLAB_ASSIGN_OR_RETURN(uint16_t port_no, narrow_port_or_error(p.port_no, "ofp_phy_port"));
  w.u16(port_no);
  w.bytes(p.hw_addr.b.data(), 6);
  w.str(p.name, 16);
  w.u32(p.config);
  // config/state bits are kept as on the wire: PORT_DOWN/NO_RECV/NO_FWD/NO_PACKET_IN
  // and LINK_DOWN share their positions with OF1.3; the STP bits are OF1.0's own.
  w.u32(p.state);
  w.u32(features_to_of10(p.curr));
  w.u32(features_to_of10(p.advertised));
  w.u32(features_to_of10(p.supported));
  w.u32(features_to_of10(p.peer));
  return {};
}

}  // namespace flowlab::of::of10

// Instruction and action validation (see validate.h).
#include "datapath/validate.h"

#include <fmt/format.h>

namespace flowlab::dp {
namespace {

using of::ActionType;
using of::BadActionCode;
using of::BadInstructionCode;
using of::OxmId;

of::OfError ba(BadActionCode c, std::string msg) { return of::OfError::make(c, std::move(msg)); }

bool valid_out_port(uint32_t p, bool packet_out) {
  if (p == 0 || p == of::port::kAny) return false;
  if (p <= of::port::kMax) return true;
  switch (p) {
    case of::port::kInPort:
    case of::port::kNormal:
    case of::port::kFlood:
    case of::port::kAll:
    case of::port::kController:
    case of::port::kLocal:
      return true;
    case of::port::kTable:
      return packet_out;
    default:
      return false;
  }
}

bool settable(OxmId id) {
  switch (id) {
    case OxmId::kInPort:
    case OxmId::kInPhyPort:
    case OxmId::kMetadata:
    case OxmId::kIpv6Exthdr:
    case OxmId::kTcpFlags:
    case OxmId::kActsetOutput:
    case OxmId::kPacketType:
      return false;
    default:
      return true;
  }
}

// L2 fields (and VLAN/MPLS, which push actions may create) are not checked against the match.
bool needs_prereq_check(OxmId id) {
  switch (id) {
    case OxmId::kEthDst:
    case OxmId::kEthSrc:
    case OxmId::kEthType:
    case OxmId::kVlanVid:
    case OxmId::kVlanPcp:
    case OxmId::kMplsLabel:
    case OxmId::kMplsTc:
    case OxmId::kMplsBos:
    case OxmId::kTunnelId:
    case OxmId::kPbbIsid:
    case OxmId::kPbbUca:
      return false;
    default:
      return true;
  }
}

OfStatus validate_set_field(const of::OxmField& wire, const ValidationContext& vc, bool headers_changed) {
  const std::optional<of::OxmField> uca = of::onf_pbb_uca_as_basic(wire);
  const of::OxmField& f = uca ? *uca : wire;
  if (!f.is_basic() || !of::oxm_info(f.id()))
    return unexpected(ba(BadActionCode::kBadSetType, "set_field: unknown or experimenter field"));
  const of::OxmFieldInfo* info = of::oxm_info(f.id());
  if (!settable(f.id()))
    return unexpected(ba(BadActionCode::kBadSetType, fmt::format("set_field: {} cannot be set", info->name)));
  if (f.value.size() != info->length)
    return unexpected(ba(BadActionCode::kBadSetLen, fmt::format("set_field {}: value length {} != {}",
                                                                info->name, f.value.size(), info->length)));
  if (f.has_mask)
    return unexpected(
        ba(BadActionCode::kBadSetArgument, fmt::format("set_field {}: masks are not allowed", info->name)));
  if (vc.match && !vc.of10 && !headers_changed && needs_prereq_check(f.id())) {
    of::Match m;
    for (const of::OxmField& mf : vc.match->fields)
      if (!mf.is(f.id())) m.fields.push_back(mf);
    m.fields.push_back(f);
    if (auto err = of::validate_match(m); err && err->code == uint16_t(of::BadMatchCode::kBadPrereq))
      return unexpected(ba(BadActionCode::kMatchInconsistent,
                           fmt::format("set_field {}: the flow's match does not guarantee it ({})",
                                       info->name, err->message)));
  }
  return {};
}

// Copy-field: both fields basic, known and matchable here, the destination one
// set-field may write, the bits inside both; the match must guarantee both
// fields' prerequisites (as for set-field).
OfStatus validate_copy_field(const of::CopyField& c, const ValidationContext& vc, bool headers_changed) {
  struct End {
    uint32_t h;
    unsigned offset;
    bool dst;
  };
  for (const End e : {End{c.src, c.src_offset, false}, End{c.dst, c.dst_offset, true}}) {
    const uint32_t h = e.h;
    const unsigned offset = e.offset;
    const bool dst = e.dst;
    const auto id = OxmId(h >> 9 & 0x7f);
    const of::OxmFieldInfo* info = of::oxm_info(id);
    if (h >> 16 != of::kOxmClassBasic || (h & 0x100) || !info || !field_slot(id))
      return unexpected(ba(BadActionCode::kBadSetType,
                           fmt::format("copy_field: OXM 0x{:08x} is not a field this switch can copy", h)));
    if (offset + unsigned(c.n_bits) > of::field_bits(id))
      return unexpected(ba(BadActionCode::kBadSetArgument,
                           fmt::format("copy_field: bits {}..{} are outside {} ({} bits)", offset,
                                       offset + c.n_bits - 1, info->name, of::field_bits(id))));
    const of::OxmField zero = of::OxmField::basic_bytes(id, Bytes(info->length));
    if (dst && !settable(id))
      return unexpected(
          ba(BadActionCode::kBadSetType, fmt::format("copy_field: {} cannot be written", info->name)));
    if (vc.match && !vc.of10 && !headers_changed && needs_prereq_check(id)) {
      of::Match m;
      for (const of::OxmField& mf : vc.match->fields)
        if (!mf.is(id)) m.fields.push_back(mf);
      m.fields.push_back(zero);
      if (auto err = of::validate_match(m); err && err->code == uint16_t(of::BadMatchCode::kBadPrereq))
        return unexpected(ba(BadActionCode::kMatchInconsistent,
                             fmt::format("copy_field {}: the flow's match does not guarantee it ({})",
                                         info->name, err->message)));
    }
  }
  return {};
}

}  // namespace

OfStatus validate_actions(const of::ActionList& actions, const ValidationContext& vc) {
  bool headers_changed = false;
  for (const of::Action& a : actions) {
    switch (a.type) {
      case ActionType::kOutput:
      case ActionType::kEnqueue:
        if (!valid_out_port(a.port, vc.packet_out))
          return unexpected(
              ba(BadActionCode::kBadOutPort, fmt::format("output to invalid port 0x{:x}", a.port)));
        break;
      case ActionType::kGroup:
        if (vc.groups && !vc.groups->count(a.group_id))
          return unexpected(
              ba(BadActionCode::kBadOutGroup, fmt::format("group {} does not exist", a.group_id)));
        break;
      case ActionType::kSetField:
        FLOWLAB_TRY(validate_set_field(a.field, vc, headers_changed));
        break;
      case ActionType::kCopyField:
        FLOWLAB_TRY(validate_copy_field(a.copy, vc, headers_changed));
        break;
      case ActionType::kPushVlan:
        if (a.ethertype != 0x8100 && a.ethertype != 0x88a8)
          return unexpected(
              ba(BadActionCode::kBadArgument,
                 fmt::format("push_vlan: ethertype 0x{:04x} is not 0x8100/0x88a8", a.ethertype)));
        headers_changed = true;
        break;
      case ActionType::kPushMpls:
        if (a.ethertype != 0x8847 && a.ethertype != 0x8848)
          return unexpected(
              ba(BadActionCode::kBadArgument,
                 fmt::format("push_mpls: ethertype 0x{:04x} is not 0x8847/0x8848", a.ethertype)));
        headers_changed = true;
        break;
      case ActionType::kPopVlan:
      case ActionType::kPopMpls:
        headers_changed = true;
        break;
      case ActionType::kCopyTtlOut:
      case ActionType::kCopyTtlIn:
      case ActionType::kSetMplsTtl:
      case ActionType::kDecMplsTtl:
      case ActionType::kSetQueue:
      case ActionType::kSetNwTtl:
      case ActionType::kDecNwTtl:
        break;
      case ActionType::kPushPbb:
        if (a.ethertype != 0x88e7)
          return unexpected(ba(BadActionCode::kBadArgument,
                               fmt::format("push_pbb: ethertype 0x{:04x} is not 0x88e7", a.ethertype)));
        headers_changed = true;
        break;
      case ActionType::kPopPbb:
        headers_changed = true;
        break;
      case ActionType::kExperimenter:
        return unexpected(ba(BadActionCode::kBadExperimenter,
                             fmt::format("experimenter action 0x{:08x} not supported", a.experimenter)));
      default:
        return unexpected(
            ba(BadActionCode::kBadType, fmt::format("unknown action type {}", uint16_t(a.type))));
    }
  }
  return {};
}

namespace {

// OF1.5 egress tables (vc.table_id >= vc.first_egress): the output port was
// chosen by the ingress tables. Their action set cannot name another output
// (OFPBAC_BAD_OUT_PORT) and no group may run there, in apply-actions either
// (OFPBAC_BAD_OUT_GROUP): a group would pick ports again. Apply-actions may
// still output (a copy leaves at once, without egress processing).
OfStatus validate_egress_actions(const of::Instruction& in, const ValidationContext& vc) {
  if (!vc.first_egress || vc.table_id < vc.first_egress) return {};
  for (const of::Action& a : in.actions) {
    if (a.type == ActionType::kGroup)
      return unexpected(ba(BadActionCode::kBadOutGroup,
                           fmt::format("group:{} in egress table {}: egress tables cannot run groups",
                                       a.group_id, vc.table_id)));
    if (in.type == of::InstructionType::kWriteActions &&
        (a.type == ActionType::kOutput || a.type == ActionType::kEnqueue))
      return unexpected(ba(BadActionCode::kBadOutPort,
                           fmt::format("output in the action set of egress table {}: the output port "
                                       "is the one egress processing runs for",
                                       vc.table_id)));
  }
  return {};
}

}  // namespace

OfStatus validate_instructions(const of::InstructionList& insts, const ValidationContext& vc) {
  uint32_t seen = 0;
  for (const of::Instruction& in : insts) {
    uint16_t t = uint16_t(in.type);
    if (t >= 1 && t <= 6) {
      if (seen & (1u << t))
        return unexpected(
            of::OfError::make(BadInstructionCode::kUnsupInst,
                              fmt::format("instruction {} appears twice", of::to_string(in.type))));
      seen |= 1u << t;
    }
    switch (in.type) {
      case of::InstructionType::kGotoTable:
        if (in.table_id <= vc.table_id || in.table_id >= vc.n_tables)
          return unexpected(
              of::OfError::make(BadInstructionCode::kBadTableId,
                                fmt::format("goto_table:{} from table {} (must go forward, tables 0..{})",
                                            in.table_id, vc.table_id, vc.n_tables - 1)));
        if (vc.first_egress && vc.table_id < vc.first_egress && in.table_id >= vc.first_egress)
          return unexpected(of::OfError::make(
              BadInstructionCode::kBadTableId,
              fmt::format("goto_table:{} from ingress table {}: tables {}.. are egress tables (a packet "
                          "enters them by an output)",
                          in.table_id, vc.table_id, vc.first_egress)));
        break;
      case of::InstructionType::kWriteMetadata:
        break;
      case of::InstructionType::kMeter:
        if (vc.meters && !vc.meters->count(in.meter_id))
          return unexpected(of::OfError::make(of::MeterModFailedCode::kUnknownMeter,
                                              fmt::format("meter {} does not exist", in.meter_id)));
        break;
      case of::InstructionType::kApplyActions:
      case of::InstructionType::kWriteActions:
        FLOWLAB_TRY(validate_actions(in.actions, vc));
        FLOWLAB_TRY(validate_egress_actions(in, vc));
        if (in.type == of::InstructionType::kWriteActions)
          for (const of::Action& a : in.actions)
            if (a.type == ActionType::kCopyField)
              return unexpected(ba(BadActionCode::kUnsupportedOrder,
                                   "copy_field in write-actions: the action set has no place for it here "
                                   "(use apply-actions)"));
        break;
      case of::InstructionType::kClearActions:
        break;
      case of::InstructionType::kExperimenter:
        return unexpected(
            of::OfError::make(BadInstructionCode::kBadExperimenter,
                              fmt::format("experimenter instruction 0x{:08x}", in.experimenter)));
      default:
        return unexpected(of::OfError::make(BadInstructionCode::kUnknownInst,
                                            fmt::format("unknown instruction type {}", t)));
    }
  }
  return {};
}

}  // namespace flowlab::dp

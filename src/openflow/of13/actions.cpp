// OF1.3 actions and instructions, both ways.
//
// Every action/instruction is decoded from a cursor limited to its own declared
// length, which must be at least the 8-byte header, fit in what is left, and
// (actions) be a multiple of 8 and exactly the size of the fixed-size type.
// Experimenter actions/instructions keep everything after the experimenter id
// as opaque bytes and re-encode unchanged.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of::of13 {
namespace {

// The ONF extension's copy-field (EXT-320, action 3200): experimenter header,
// exp_type, pad[2], n_bits, src_offset, dst_offset, pad[2], two OXM ids, pad[4].
constexpr uint16_t kOnfCopyField = 3200;
constexpr size_t kOnfCopyFieldLen = 32;

// Fixed wire length of each action type; 0 = variable (set_field, experimenter).
int action_len(uint16_t type) {
  switch (static_cast<ActionType>(type)) {
    case ActionType::kOutput:
      return 16;
    case ActionType::kCopyTtlOut:
    case ActionType::kCopyTtlIn:
    case ActionType::kSetMplsTtl:
    case ActionType::kDecMplsTtl:
    case ActionType::kPushVlan:
    case ActionType::kPopVlan:
    case ActionType::kPushMpls:
    case ActionType::kPopMpls:
    case ActionType::kSetQueue:
    case ActionType::kGroup:
    case ActionType::kSetNwTtl:
    case ActionType::kDecNwTtl:
    case ActionType::kPushPbb:
    case ActionType::kPopPbb:
      return 8;
    case ActionType::kSetField:
    case ActionType::kExperimenter:
      return 0;
    case ActionType::kCopyField:  // only as the ONF experimenter action
    case ActionType::kEnqueue:
      break;
  }
  return -1;
}

Result<Action, OfError> decode_action(Cursor& c) {
  size_t start = c.at();
  uint16_t type = 0, len = 0;
  if (!c.r().u16(type) || !c.r().u16(len))
    return unexpected(OfError::make(BadActionCode::kBadLen, "action header truncated", start));
  int fixed = action_len(type);
  if (fixed < 0)
    return unexpected(
        OfError::make(BadActionCode::kBadType, fmt::format("unknown action type {}", type), start));
  if (len < 8 || len % 8 != 0 || len - 4u > c.remaining() || (fixed > 0 && len != fixed))
    return unexpected(
        OfError::make(BadActionCode::kBadLen,
                      fmt::format("{}: length {} is wrong ({} bytes left)",
                                  to_string(static_cast<ActionType>(type)), len, c.remaining() + 4),
                      start));
  Cursor b = c.take(len - 4u);
  ByteReader& r = b.r();
  Action a;
  a.type = static_cast<ActionType>(type);
  switch (a.type) {
    case ActionType::kOutput:
      r.u32(a.port);
      r.u16(a.max_len);
      break;
    case ActionType::kSetMplsTtl:
    case ActionType::kSetNwTtl:
      r.u8(a.ttl);
      break;
    case ActionType::kPushVlan:
    case ActionType::kPushMpls:
    case ActionType::kPopMpls:
    case ActionType::kPushPbb:
      r.u16(a.ethertype);
      break;
    case ActionType::kSetQueue:
      r.u32(a.queue_id);
      break;
    case ActionType::kGroup:
      r.u32(a.group_id);
      break;
    case ActionType::kSetField: {
      auto f = decode_oxm(b);
      if (!f.ok()) {
        OfError e = f.error();
        e.type = ErrorType::kBadAction;
        e.code = static_cast<uint16_t>(BadActionCode::kBadSetLen);
        return unexpected(std::move(e));
      }
      a.field = std::move(*f);
      // What is left must be the padding to 8 that encode would write.
      if (b.remaining() != pad8(4 + 4 + a.field.value.size() + a.field.mask.size()))
        return unexpected(OfError::make(
            BadActionCode::kBadSetLen, fmt::format("set_field: length {} does not fit its OXM", len), start));
      break;
    }
    case ActionType::kExperimenter: {
      r.u32(a.experimenter);
      ByteSpan rest = b.rest();
      if (a.experimenter == kOnfExperimenterId && rest.size() >= 2 &&
          load_be16(rest.data()) == kOnfCopyField) {
        if (len != kOnfCopyFieldLen)
          return unexpected(OfError::make(
              BadActionCode::kBadLen,
              fmt::format("copy_field (ONF 3200): length {} != {}", len, kOnfCopyFieldLen), start));
        a.type = ActionType::kCopyField;
        a.experimenter = 0;
        r.skip(4);
        r.u16(a.copy.n_bits);
        r.u16(a.copy.src_offset);
        r.u16(a.copy.dst_offset);
        r.skip(2);
        r.u32(a.copy.src);
        r.u32(a.copy.dst);
        break;
      }
      a.data.assign(rest.begin(), rest.end());
      break;
    }
    default:
      break;
  }
  return a;
}

Result<Instruction, OfError> decode_instruction(Cursor& c) {
  size_t start = c.at();
  uint16_t type = 0, len = 0;
  if (!c.r().u16(type) || !c.r().u16(len))
    return unexpected(OfError::make(BadInstructionCode::kBadLen, "instruction header truncated", start));
  auto it = static_cast<InstructionType>(type);
  int fixed = 0;
  switch (it) {
    case InstructionType::kGotoTable:
    case InstructionType::kClearActions:
    case InstructionType::kMeter:
      fixed = 8;
      break;
    case InstructionType::kWriteMetadata:
      fixed = 24;
      break;
    case InstructionType::kWriteActions:
    case InstructionType::kApplyActions:
    case InstructionType::kExperimenter:
      fixed = 0;
      break;
    default:
      return unexpected(OfError::make(BadInstructionCode::kUnknownInst,
                                      fmt::format("unknown instruction type {}", type), start));
  }
  if (len < 8 || len - 4u > c.remaining() || (fixed > 0 && len != fixed))
    return unexpected(OfError::make(
        BadInstructionCode::kBadLen,
        fmt::format("{}: length {} is wrong ({} bytes left)", to_string(it), len, c.remaining() + 4), start));
  Cursor b = c.take(len - 4u);
  ByteReader& r = b.r();
  Instruction i;
  i.type = it;
  switch (it) {
    case InstructionType::kGotoTable:
      r.u8(i.table_id);
      break;
    case InstructionType::kWriteMetadata:
      r.skip(4);
      r.u64(i.metadata);
      r.u64(i.metadata_mask);
      break;
    case InstructionType::kWriteActions:
    case InstructionType::kApplyActions: {
      r.skip(4);
      FLOWLAB_ASSIGN_OR_RETURN(i.actions, decode_actions(b.take(b.remaining())));
      break;
    }
    case InstructionType::kMeter:
      r.u32(i.meter_id);
      break;
    case InstructionType::kExperimenter: {
      r.u32(i.experimenter);
      ByteSpan rest = b.rest();
      i.data.assign(rest.begin(), rest.end());
      break;
    }
    default:
      break;
  }
  return i;
}

BasicStatus<OfError> encode_action(const Action& a, ByteWriter& w) {
  size_t start = w.size();
  w.u16(a.type == ActionType::kCopyField ? uint16_t(ActionType::kExperimenter) : uint16_t(a.type));
  w.u16(0);
  switch (a.type) {
    case ActionType::kOutput:
      w.u32(a.port);
      w.u16(a.max_len);
      w.zeros(6);
      break;
    case ActionType::kCopyTtlOut:
    case ActionType::kCopyTtlIn:
    case ActionType::kDecMplsTtl:
    case ActionType::kPopVlan:
    case ActionType::kDecNwTtl:
    case ActionType::kPopPbb:
      w.zeros(4);
      break;
    case ActionType::kSetMplsTtl:
    case ActionType::kSetNwTtl:
      w.u8(a.ttl);
      w.zeros(3);
      break;
    case ActionType::kPushVlan:
    case ActionType::kPushMpls:
    case ActionType::kPopMpls:
    case ActionType::kPushPbb:
      w.u16(a.ethertype);
      w.zeros(2);
      break;
    case ActionType::kSetQueue:
      w.u32(a.queue_id);
      break;
    case ActionType::kGroup:
      w.u32(a.group_id);
      break;
    case ActionType::kSetField:
      if (a.field.value.size() + a.field.mask.size() > 255)
        return unexpected(OfError::make(BadActionCode::kBadSetLen, "set_field: OXM value too long"));
      encode_oxm(a.field, w);
      w.pad_to(start, 8);
      break;
    case ActionType::kExperimenter:
      w.u32(a.experimenter);
      w.bytes(a.data);
      w.pad_to(start, 8);
      break;
    case ActionType::kCopyField:
      w.u32(kOnfExperimenterId);
      w.u16(kOnfCopyField);
      w.zeros(2);
      w.u16(a.copy.n_bits);
      w.u16(a.copy.src_offset);
      w.u16(a.copy.dst_offset);
      w.zeros(2);
      w.u32(a.copy.src);
      w.u32(a.copy.dst);
      w.zeros(4);
      break;
    case ActionType::kEnqueue:
      return unexpected(
          OfError::make(BadActionCode::kBadType, "enqueue is an OF1.0 action; use set_queue + output"));
  }
  if (w.size() - start > 0xffff) return unexpected(OfError::make(BadActionCode::kBadLen, "action too long"));
  w.patch_u16(start + 2, uint16_t(w.size() - start));
  return {};
}

}  // namespace

Result<ActionList, OfError> decode_actions(Cursor c) {
  ActionList list;
  while (!c.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(Action a, decode_action(c));
    list.push_back(std::move(a));
  }
  return list;
}

Result<InstructionList, OfError> decode_instructions(Cursor c) {
  InstructionList list;
  while (!c.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(Instruction i, decode_instruction(c));
    list.push_back(std::move(i));
  }
  return list;
}

BasicStatus<OfError> encode_actions(const ActionList& list, ByteWriter& w) {
  for (const Action& a : list) FLOWLAB_TRY(encode_action(a, w));
  return {};
}

BasicStatus<OfError> encode_instructions(const InstructionList& list, ByteWriter& w) {
  for (const Instruction& i : list) {
    size_t start = w.size();
    w.u16(static_cast<uint16_t>(i.type));
    w.u16(0);
    switch (i.type) {
      case InstructionType::kGotoTable:
        w.u8(i.table_id);
        w.zeros(3);
        break;
      case InstructionType::kWriteMetadata:
        w.zeros(4);
        w.u64(i.metadata);
        w.u64(i.metadata_mask);
        break;
      case InstructionType::kWriteActions:
      case InstructionType::kApplyActions:
        w.zeros(4);
        FLOWLAB_TRY(encode_actions(i.actions, w));
        break;
      case InstructionType::kClearActions:
        w.zeros(4);
        break;
      case InstructionType::kMeter:
        w.u32(i.meter_id);
        break;
      case InstructionType::kExperimenter:
        w.u32(i.experimenter);
        w.bytes(i.data);
        break;
      default:
        return unexpected(
            OfError::make(BadInstructionCode::kUnknownInst,
                          fmt::format("unknown instruction type {}", static_cast<int>(i.type))));
    }
    if (w.size() - start > 0xffff)
      return unexpected(OfError::make(BadInstructionCode::kBadLen, "instruction too long"));
    w.patch_u16(start + 2, uint16_t(w.size() - start));
  }
  return {};
}

}  // namespace flowlab::of::of13

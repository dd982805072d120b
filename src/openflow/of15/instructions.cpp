// OpenFlow 1.5 action and instruction lists to 1.4's and back: the meter
// action first in apply-actions is 1.3's meter instruction, copy-field the ONF
// extension's action 3200 (design in of15.h).
// A list whose lengths are malformed is copied as it is: the 1.4 decoder
// reports it with its own error.
#include <fmt/format.h>

#include "openflow/of15/of15.h"
#include "openflow/oxm.h"

namespace flowlab::of::of15 {
namespace {

constexpr uint16_t kWriteActions = 3;
constexpr uint16_t kApplyActions = 4;
constexpr size_t kMeterActionLen = 8;
constexpr size_t kInstructionHeaderLen = 8;  // type, len, pad4 of write/apply-actions
// ofp_action_copy_field with two 4-byte OXM ids, padded: 24; the ONF form: 32.
constexpr size_t kCopyFieldLen = 24;
constexpr size_t kOnfCopyFieldLen = 32;
constexpr uint16_t kOnfCopyField = 3200;

// The length of the TLV at `at` (type, len >= 4), or 0 if it is malformed.
size_t tlv_len(ByteSpan list, size_t at) {
  if (list.size() - at < 4) return 0;
  const size_t len = load_be16(&list[at + 2]);
  return len >= 4 && len <= list.size() - at ? len : 0;
}

}  // namespace

Result<Bytes, OfError> actions_to14(ByteSpan actions, size_t base) {
  Bytes out;
  out.reserve(actions.size() + 8);
  ByteWriter w(out);
  for (size_t at = 0; at < actions.size();) {
    const size_t len = tlv_len(actions, at);
    if (len == 0) {
      w.bytes(actions.subspan(at));  // the 1.4 decoder reports it
      break;
    }
    const uint16_t type = load_be16(&actions[at]);
    if (type == kActionMeter)
      return unexpected(OfError::make(BadActionCode::kUnsupportedOrder,
                                      "meter action: this switch meters only first in apply-actions "
                                      "(not in write-actions, packet-out or group buckets)",
                                      base + at));
    if (type != kActionCopyField) {
      w.bytes(actions.subspan(at, len));
      at += len;
      continue;
    }
    if (len != kCopyFieldLen)
      return unexpected(OfError::make(
          BadActionCode::kBadLen,
          fmt::format("copy_field: length {} != {} (two 4-byte OXM ids)", len, kCopyFieldLen), base + at));
    const uint8_t* a = &actions[at];
    w.u16(0xffff);  // OFPAT_EXPERIMENTER
    w.u16(uint16_t(kOnfCopyFieldLen));
    w.u32(kOnfExperimenterId);
    w.u16(kOnfCopyField);
    w.zeros(2);
    w.bytes(ByteSpan(a + 4, 6));  // n_bits, src_offset, dst_offset
    w.zeros(2);
    w.bytes(ByteSpan(a + 12, 8));  // src and dst OXM ids
    w.zeros(4);
    at += len;
  }
  return out;
}

Bytes actions_to15(ByteSpan actions) {
  Bytes out;
  out.reserve(actions.size());
  ByteWriter w(out);
  for (size_t at = 0; at < actions.size();) {
    const size_t len = tlv_len(actions, at);
    if (len == 0) {
      w.bytes(actions.subspan(at));
      break;
    }
    const uint8_t* a = &actions[at];
    if (len == kOnfCopyFieldLen && load_be16(a) == 0xffff && load_be32(a + 4) == kOnfExperimenterId &&
        load_be16(a + 8) == kOnfCopyField) {
      w.u16(kActionCopyField);
      w.u16(uint16_t(kCopyFieldLen));
      w.bytes(ByteSpan(a + 12, 6));  // n_bits, src_offset, dst_offset
      w.zeros(2);
      w.bytes(ByteSpan(a + 20, 8));  // src and dst OXM ids
      w.zeros(4);
    } else {
      w.bytes(actions.subspan(at, len));
    }
    at += len;
  }
  return out;
}

Result<Bytes, OfError> instructions_to14(ByteSpan instrs, size_t base) {
  Bytes out;
  out.reserve(instrs.size() + kMeterActionLen);
  ByteWriter w(out);
  for (size_t at = 0; at < instrs.size();) {
    const size_t len = tlv_len(instrs, at);
    if (len == 0) {
      w.bytes(instrs.subspan(at));
      break;
    }
    const uint16_t type = load_be16(&instrs[at]);
    const ByteSpan ins = instrs.subspan(at, len);
    if (type == kInstructionMeter)
      return unexpected(OfError::make(BadInstructionCode::kUnknownInst,
                                      "instruction type 6 (OF1.3's meter) is deprecated in OpenFlow 1.5: "
                                      "use the meter action first in apply-actions",
                                      base + at));
    if (type == kInstructionStatTrigger)
      return unexpected(OfError::make(BadInstructionCode::kUnsupInst,
                                      "stat-trigger instruction (OFPIT_STAT_TRIGGER) is not supported",
                                      base + at));
    if ((type == kWriteActions || type == kApplyActions) && len >= kInstructionHeaderLen) {
      const ByteSpan actions = ins.subspan(kInstructionHeaderLen);
      const size_t abase = base + at + kInstructionHeaderLen;
      const bool meter_first = type == kApplyActions && actions.size() >= kMeterActionLen &&
                               load_be16(&actions[0]) == kActionMeter &&
                               load_be16(&actions[2]) == kMeterActionLen;
      const size_t skip = meter_first ? kMeterActionLen : 0;
      auto translated = actions_to14(actions.subspan(skip), abase + skip);
      if (!translated.ok()) return unexpected(std::move(translated.error()));
      if (meter_first) {
        w.u16(kInstructionMeter);
        w.u16(8);
        w.u32(load_be32(&actions[4]));
      }
      if (kInstructionHeaderLen + translated->size() > 0xffff)
        return unexpected(OfError::make(BadInstructionCode::kBadLen, "instruction too long", base + at));
      w.u16(type);
      w.u16(uint16_t(kInstructionHeaderLen + translated->size()));
      w.zeros(4);
      w.bytes(*translated);
    } else {
      w.bytes(ins);
    }
    at += len;
  }
  return out;
}

namespace {

// Each write/apply-actions instruction's actions in 1.5's form (copy-field).
Bytes instruction_actions_to15(ByteSpan instrs) {
  Bytes out;
  out.reserve(instrs.size());
  ByteWriter w(out);
  for (size_t at = 0; at < instrs.size();) {
    const size_t len = tlv_len(instrs, at);
    if (len == 0) {
      w.bytes(instrs.subspan(at));
      break;
    }
    const uint16_t type = load_be16(&instrs[at]);
    if ((type == kWriteActions || type == kApplyActions) && len >= kInstructionHeaderLen) {
      const Bytes actions =
          actions_to15(instrs.subspan(at + kInstructionHeaderLen, len - kInstructionHeaderLen));
      w.u16(type);
      w.u16(uint16_t(kInstructionHeaderLen + actions.size()));  // never longer than the 1.4 form
      w.zeros(4);
      w.bytes(actions);
    } else {
      w.bytes(instrs.subspan(at, len));
    }
    at += len;
  }
  return out;
}

}  // namespace

Bytes instructions_to15(ByteSpan instrs14) {
  const Bytes translated = instruction_actions_to15(instrs14);
  const ByteSpan instrs(translated);
  // The meter instruction's id, and whether an apply-actions instruction will carry it.
  bool meter = false, apply = false;
  uint32_t meter_id = 0;
  for (size_t at = 0; at < instrs.size();) {
    const size_t len = tlv_len(instrs, at);
    if (len == 0) break;
    const uint16_t type = load_be16(&instrs[at]);
    if (type == kInstructionMeter && len == 8) {
      meter = true;
      meter_id = load_be32(&instrs[at + 4]);
    }
    apply |= type == kApplyActions && len >= kInstructionHeaderLen;
    at += len;
  }
  if (!meter) return Bytes(instrs.begin(), instrs.end());
  Bytes out;
  out.reserve(instrs.size() + kInstructionHeaderLen);
  ByteWriter w(out);
  bool placed = false;
  auto meter_action = [&] {
    w.u16(kActionMeter);
    w.u16(kMeterActionLen);
    w.u32(meter_id);
  };
  for (size_t at = 0; at < instrs.size();) {
    const size_t len = tlv_len(instrs, at);
    if (len == 0) {
      w.bytes(instrs.subspan(at));
      break;
    }
    const uint16_t type = load_be16(&instrs[at]);
    if (type == kInstructionMeter && len == 8) {
      if (!apply) {
        w.u16(kApplyActions);
        w.u16(uint16_t(kInstructionHeaderLen + kMeterActionLen));
        w.zeros(4);
        meter_action();
      }
    } else if (type == kApplyActions && len >= kInstructionHeaderLen && !placed) {
      placed = true;  // the first apply-actions carries it
      w.u16(kApplyActions);
      w.u16(uint16_t(len + kMeterActionLen));
      w.zeros(4);
      meter_action();
      w.bytes(instrs.subspan(at + kInstructionHeaderLen, len - kInstructionHeaderLen));
    } else {
      w.bytes(instrs.subspan(at, len));
    }
    at += len;
  }
  return out;
}

}  // namespace flowlab::of::of15

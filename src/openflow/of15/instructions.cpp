// OpenFlow 1.5 action and instruction lists to 1.4's and back: the meter
// action first in apply-actions is 1.3's meter instruction (design in of15.h).
// A list whose lengths are malformed is copied as it is: the 1.4 decoder
// reports it with its own error.
#include <fmt/format.h>

#include "openflow/of15/of15.h"

namespace flowlab::of::of15 {
namespace {

constexpr uint16_t kWriteActions = 3;
constexpr uint16_t kApplyActions = 4;
constexpr size_t kMeterActionLen = 8;
constexpr size_t kInstructionHeaderLen = 8;  // type, len, pad4 of write/apply-actions

// The length of the TLV at `at` (type, len >= 4), or 0 if it is malformed.
size_t tlv_len(ByteSpan list, size_t at) {
  if (list.size() - at < 4) return 0;
  const size_t len = load_be16(&list[at + 2]);
  return len >= 4 && len <= list.size() - at ? len : 0;
}

}  // namespace

BasicStatus<OfError> check_actions(ByteSpan actions, size_t base, bool meter_first_ok) {
  for (size_t at = 0; at < actions.size();) {
    const size_t len = tlv_len(actions, at);
    if (len == 0) break;
    const uint16_t type = load_be16(&actions[at]);
    if (type == kActionMeter && !(meter_first_ok && at == 0))
      return unexpected(OfError::make(BadActionCode::kUnsupportedOrder,
                                      "meter action: this switch meters only first in apply-actions "
                                      "(not in write-actions, packet-out or group buckets)",
                                      base + at));
    if (type == kActionCopyField)
      return unexpected(OfError::make(BadActionCode::kBadType,
                                      "copy-field action (OFPAT_COPY_FIELD): the pipeline cannot copy "
                                      "between fields",
                                      base + at));
    at += len;
  }
  return {};
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
      if (!meter_first) {
        auto ok = check_actions(actions, abase, false);
        if (!ok.ok()) return unexpected(std::move(ok.error()));
        w.bytes(ins);
      } else {
        auto ok = check_actions(actions.subspan(kMeterActionLen), abase + kMeterActionLen, false);
        if (!ok.ok()) return unexpected(std::move(ok.error()));
        w.u16(kInstructionMeter);
        w.u16(8);
        w.u32(load_be32(&actions[4]));
        w.u16(kApplyActions);
        w.u16(uint16_t(len - kMeterActionLen));
        w.zeros(4);
        w.bytes(actions.subspan(kMeterActionLen));
      }
    } else {
      w.bytes(ins);
    }
    at += len;
  }
  return out;
}

Bytes instructions_to15(ByteSpan instrs) {
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

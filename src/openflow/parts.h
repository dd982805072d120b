// The parts OpenFlow messages are built of (openflow/message.h): actions and
// instructions, port descriptions, group buckets, meter bands, hello
// elements, queue properties, table features and a table's vacancy
// thresholds. Numbering and versions as message.h says.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "openflow/constants.h"
#include "openflow/oxm.h"
#include "packet/addr.h"

namespace flowlab::of {

// ---- actions and instructions -------------------------------------------------

// Copy-field (OpenFlow 1.5 OFPAT_COPY_FIELD, the ONF extension's action 3200 at
// 1.3/1.4): n_bits bits of the field whose OXM header is `src`, from bit
// src_offset (bit 0 is the value's least significant), into `dst` from bit
// dst_offset. The headers are OXM ids: class, field, no mask, the field's length.
struct CopyField {
  uint16_t n_bits = 0;
  uint16_t src_offset = 0;
  uint16_t dst_offset = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  bool operator==(const CopyField&) const = default;
};

// One action; which fields matter depends on `type` (builders below).
struct Action {
  ActionType type = ActionType::kOutput;
  uint32_t port = 0;          // output, enqueue
  uint16_t max_len = 0;       // output (bytes to the controller)
  uint16_t ethertype = 0;     // push_vlan/mpls/pbb, pop_mpls
  uint8_t ttl = 0;            // set_mpls_ttl, set_nw_ttl
  uint32_t queue_id = 0;      // set_queue, enqueue
  uint32_t group_id = 0;      // group
  OxmField field;             // set_field (OF1.0 set_dl_src etc. map here)
  uint32_t experimenter = 0;  // experimenter / OF1.0 vendor id
  Bytes data;                 // experimenter: bytes after the experimenter id, kept opaque
  CopyField copy;             // copy_field

  static Action output(uint32_t port, uint16_t max_len = 0) {
    Action a;
    a.type = ActionType::kOutput;
    a.port = port;
    a.max_len = max_len;
    return a;
  }
  static Action set_field(OxmField f) {
    Action a;
    a.type = ActionType::kSetField;
    a.field = std::move(f);
    return a;
  }
  static Action group(uint32_t id) {
    Action a;
    a.type = ActionType::kGroup;
    a.group_id = id;
    return a;
  }
  static Action push_vlan(uint16_t ethertype = 0x8100) {
    Action a;
    a.type = ActionType::kPushVlan;
    a.ethertype = ethertype;
    return a;
  }
  static Action pop_vlan() {
    Action a;
    a.type = ActionType::kPopVlan;
    return a;
  }
  static Action push_mpls(uint16_t ethertype = 0x8847) {
    Action a;
    a.type = ActionType::kPushMpls;
    a.ethertype = ethertype;
    return a;
  }
  static Action pop_mpls(uint16_t ethertype) {
    Action a;
    a.type = ActionType::kPopMpls;
    a.ethertype = ethertype;
    return a;
  }
  static Action set_queue(uint32_t q) {
    Action a;
    a.type = ActionType::kSetQueue;
    a.queue_id = q;
    return a;
  }
  static Action set_nw_ttl(uint8_t t) {
    Action a;
    a.type = ActionType::kSetNwTtl;
    a.ttl = t;
    return a;
  }
  static Action set_mpls_ttl(uint8_t t) {
    Action a;
    a.type = ActionType::kSetMplsTtl;
    a.ttl = t;
    return a;
  }
  static Action copy_field(CopyField c) {
    Action a;
    a.type = ActionType::kCopyField;
    a.copy = c;
    return a;
  }
  static Action simple(ActionType t) {
    Action a;
    a.type = t;
    return a;
  }

  bool operator==(const Action&) const = default;
};
using ActionList = std::vector<Action>;

struct Instruction {
  InstructionType type = InstructionType::kApplyActions;
  uint8_t table_id = 0;   // goto_table
  uint64_t metadata = 0;  // write_metadata
  uint64_t metadata_mask = 0;
  ActionList actions;         // write/apply actions
  uint32_t meter_id = 0;      // meter
  uint32_t experimenter = 0;  // experimenter
  Bytes data;

  static Instruction apply(ActionList a) {
    Instruction i;
    i.type = InstructionType::kApplyActions;
    i.actions = std::move(a);
    return i;
  }
  static Instruction write(ActionList a) {
    Instruction i;
    i.type = InstructionType::kWriteActions;
    i.actions = std::move(a);
    return i;
  }
  static Instruction clear() {
    Instruction i;
    i.type = InstructionType::kClearActions;
    return i;
  }
  static Instruction goto_table(uint8_t t) {
    Instruction i;
    i.type = InstructionType::kGotoTable;
    i.table_id = t;
    return i;
  }
  static Instruction write_metadata(uint64_t md, uint64_t mask) {
    Instruction i;
    i.type = InstructionType::kWriteMetadata;
    i.metadata = md;
    i.metadata_mask = mask;
    return i;
  }
  static Instruction meter(uint32_t id) {
    Instruction i;
    i.type = InstructionType::kMeter;
    i.meter_id = id;
    return i;
  }

  bool operator==(const Instruction&) const = default;
};
using InstructionList = std::vector<Instruction>;

// ---- common structures --------------------------------------------------------

struct PortDesc {
  uint32_t port_no = 0;
  MacAddr hw_addr;
  std::string name;
  uint32_t config = 0;
  uint32_t state = 0;
  uint32_t curr = 0, advertised = 0, supported = 0, peer = 0;
  uint32_t curr_speed = 0, max_speed = 0;  // kbps; OF1.3 only
  bool operator==(const PortDesc&) const = default;
};

struct Bucket {
  uint16_t weight = 0;
  uint32_t watch_port = port::kAny;
  uint32_t watch_group = group::kAny;
  ActionList actions;
  std::optional<uint32_t> bucket_id = std::nullopt;  // OF1.5; a switch numbers buckets without one
  bool operator==(const Bucket&) const = default;
};

struct MeterBand {
  MeterBandType type = MeterBandType::kDrop;
  uint32_t rate = 0;
  uint32_t burst_size = 0;
  uint8_t prec_level = 0;     // dscp_remark
  uint32_t experimenter = 0;  // experimenter band
  Bytes data;                 // experimenter band: bytes after the experimenter id
  bool operator==(const MeterBand&) const = default;
};

struct HelloElement {
  uint16_t type = static_cast<uint16_t>(HelloElemType::kVersionBitmap);
  std::vector<uint32_t> bitmaps;  // version bitmap element
  Bytes data;                     // other element types, kept opaque
  bool operator==(const HelloElement&) const = default;
};

struct QueueProperty {
  QueuePropType type = QueuePropType::kMinRate;
  uint16_t rate = 0;  // min/max rate, 1/10 of a percent
  uint32_t experimenter = 0;
  uint32_t exp_type = 0;  // OF1.4 queue desc's experimenter property only
  Bytes data;
  bool operator==(const QueueProperty&) const = default;
};
struct PacketQueue {
  uint32_t queue_id = 0;
  uint32_t port = 0;  // OF1.3 only
  std::vector<QueueProperty> properties;
  bool operator==(const PacketQueue&) const = default;
};

struct TableFeatureProp {
  TableFeaturePropType type = TableFeaturePropType::kInstructions;
  // Instructions / actions: the type numbers; next-tables: table ids; match,
  // wildcards, set-field: the 32-bit OXM headers.
  std::vector<uint32_t> ids;
  uint32_t experimenter = 0;  // experimenter properties
  uint32_t exp_type = 0;
  Bytes data;  // experimenter payload, or raw elements that are not plain ids
  bool operator==(const TableFeatureProp&) const = default;
};
struct TableFeatures {
  uint8_t table_id = 0;
  // OF1.5 (in 1.3/1.4's padding, zero there): the request's command
  // (table_features::kReplace..) and the table's features flags (kIngressTable..).
  uint8_t command = 0;
  uint32_t features = 0;
  std::string name;
  uint64_t metadata_match = 0, metadata_write = 0;
  uint32_t config = 0;
  uint32_t max_entries = 0;
  std::vector<TableFeatureProp> properties;
  bool operator==(const TableFeatures&) const = default;
};

// OF1.4 table configuration: the config bits (table_config::kEviction,
// kVacancyEvents) and the properties a table-mod may carry and a table
// description always does: the eviction flags (OFPTMPT_EVICTION) and the
// vacancy thresholds (OFPTMPT_VACANCY), in percent of the table's size.
struct TableVacancy {
  uint8_t down = 0, up = 0;
  uint8_t vacancy = 0;  // the free share now: table description and status only (0 in a table-mod)
  bool operator==(const TableVacancy&) const = default;
};

}  // namespace flowlab::of

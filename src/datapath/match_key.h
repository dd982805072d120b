// MaskedKey: an OpenFlow match compiled to the fixed FlowKey layout, value and
// mask side by side, so matching a packet is word-wise (key & mask) == value.
// Also the relations flow-mod needs between two matches: identical (strict),
// covered-by (non-strict filter), overlapping (OFPFF_CHECK_OVERLAP).
#pragma once

#include <cstdint>
#include <memory>

#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/oxm.h"
#include "packet/flow_key.h"

namespace flowlab::dp {

struct MaskedKey {
  FlowKey value;  // always value & mask
  FlowKey mask;

  MaskedKey() {
    value.clear();
    mask.clear();
  }
  bool matches(const FlowKey& k) const {
    for (size_t i = 0; i < kFlowKeyWords; ++i)
      if ((key_word(k, i) & key_word(mask, i)) != key_word(value, i)) return false;
    return true;
  }
  bool operator==(const MaskedKey& o) const { return value == o.value && mask == o.mask; }
  // Every packet matching *this also matches `filter` (filter is less or equally specific).
  bool covered_by(const MaskedKey& filter) const;
  // Some packet could match both.
  bool overlaps(const MaskedKey& o) const;
};

// The same relations for a key held as (value, mask) apart (StoredKey).
bool key_covered_by(const FlowKey& value, const FlowKey& mask, const MaskedKey& filter);
bool key_overlaps(const FlowKey& value, const FlowKey& mask, const MaskedKey& o);

// A flow's compiled match as a table keeps it: its value, and its mask shared
// with every flow of that mask in the table (DatapathImpl::stored_key interns
// them): a flow holds 16 bytes of mask instead of 160. Assigning a MaskedKey
// gives it a mask of its own (tests, benchmarks).
struct StoredKey {
  FlowKey value;
  std::shared_ptr<const FlowKey> mask;

  StoredKey() : mask(empty_mask()) { value.clear(); }
  StoredKey(const FlowKey& v, std::shared_ptr<const FlowKey> m) : value(v), mask(std::move(m)) {}
  StoredKey& operator=(const MaskedKey& k) {
    value = k.value;
    mask = std::make_shared<const FlowKey>(k.mask);
    return *this;
  }
  bool operator==(const MaskedKey& o) const { return value == o.value && *mask == o.mask; }
  bool operator==(const StoredKey& o) const {
    return value == o.value && (mask == o.mask || *mask == *o.mask);
  }
  bool matches(const FlowKey& k) const {
    for (size_t i = 0; i < kFlowKeyWords; ++i)
      if ((key_word(k, i) & key_word(*mask, i)) != key_word(value, i)) return false;
    return true;
  }
  bool covered_by(const MaskedKey& filter) const { return key_covered_by(value, *mask, filter); }
  bool overlaps(const MaskedKey& o) const { return key_overlaps(value, *mask, o); }
  MaskedKey masked() const {
    MaskedKey k;
    k.value = value;
    k.mask = *mask;
    return k;
  }

 private:
  static const std::shared_ptr<const FlowKey>& empty_mask();  // all zero, shared, never changed
};

// Where an OXM field lives in FlowKey.
struct FieldSlot {
  uint16_t offset = 0;  // byte offset in FlowKey
  uint8_t width = 0;    // bytes in FlowKey
  bool raw = false;     // wire bytes (MAC, IPv6) rather than a host-order integer
};
// nullptr for fields the datapath cannot match (none of the basic set today).
const FieldSlot* field_slot(of::OxmId id);

// Compiles a match that of::validate_match accepted (validation is run here too).
Result<MaskedKey, of::OfError> compile_match(const of::Match& m);

// The match an OF1.0 flow means, in OF1.3 terms. OF1.0 has no prerequisites:
// "protocol-specific fields are ignored when the protocol is not specified"
// (OF1.0 spec 3.4), so a field whose prerequisite the match lacks is dropped
// (tp_src without nw_proto, nw_tos without dl_type=0x0800, ...); dl_vlan_pcp
// without dl_vlan means "tagged, with this PCP" (vlan_vid=0x1000/0x1000, as
// Open vSwitch reads it), and with dl_vlan=OFP_VLAN_NONE the PCP is ignored.
of::Match of10_effective_match(const of::Match& m);

// Reads / writes a field of a FlowKey as an integer (fields up to 8 bytes).
uint64_t get_key_field(const FlowKey& k, of::OxmId id);

}  // namespace flowlab::dp

// MaskedKey: an OpenFlow match compiled to the fixed FlowKey layout, value and
// mask side by side, so matching a packet is word-wise (key & mask) == value.
// Also the relations flow-mod needs between two matches: identical (strict),
// covered-by (non-strict filter), overlapping (OFPFF_CHECK_OVERLAP).
#pragma once

#include <cstdint>

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

// Reads / writes a field of a FlowKey as an integer (fields up to 8 bytes).
uint64_t get_key_field(const FlowKey& k, of::OxmId id);

}  // namespace flowlab::dp

// Value limits of OXM fields, shared by the OXM validator (oxm.cpp) and the
// flow-text parser (flow_text_fields.cpp).
#pragma once

#include <cstdint>

#include "openflow/oxm.h"

namespace flowlab::of {

// Largest legal value of a field narrower than its byte length (VLAN VID
// 0x1fff, IP DSCP 63, MPLS label 0xfffff, ...); 0 for every other field.
uint64_t oxm_max_value(OxmId id);

}  // namespace flowlab::of

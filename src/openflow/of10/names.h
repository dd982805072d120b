// Names of the OF1.0 message types ("OFPT_FLOW_MOD", ...), for the OF1.0
// codec's errors and the message-stream printer.
#pragma once

#include <cstdint>

namespace flowlab::of::of10 {

// nullptr for a type OF1.0 does not define.
const char* type_name(uint8_t type);

}  // namespace flowlab::of::of10

// libFuzzer target for LLDP frames the topology service decodes from
// packet-ins (controller::topology::decode_lldp): any frame a neighbour or an
// attacker sends. Never crash; a frame it accepts re-encodes to one that
// decodes to the same (dpid, port).
#include <cstdint>
#include <cstdlib>

#include "controller/topology/lldp.h"

using namespace flowlab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = controller::topology::decode_lldp(ByteSpan(data, size));
  if (!r.ok()) return 0;
  MacAddr src{{0x02, 0, 0, 0, 0, 1}};
  Bytes again = controller::topology::encode_lldp(*r, src);
  auto r2 = controller::topology::decode_lldp(again);
  if (!r2.ok() || !(*r2 == *r)) std::abort();
  return 0;
}

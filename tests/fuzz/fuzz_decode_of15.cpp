// libFuzzer target for the OpenFlow 1.5 decoder: any input decodes or fails
// cleanly; a decoded message re-encodes, the re-encoded bytes decode again
// and encode to the same bytes (a fixed point after one pass: 1.5's wire goes
// through the 1.4 codec, which may normalise padding and field order). The
// controller status messages (OFPT_CONTROLLER_STATUS, OFPMP_CONTROLLER_STATUS,
// read directly, not through 1.4) have seeds in the corpus
// (controller_status*).
#include <cstdint>
#include <cstdlib>

#include "openflow/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;
  Bytes in(data, data + size);
  if (size >= 1) in[0] = of::kOf15;  // reach past the version check on every input
  if (size >= 4) store_be16(&in[2], uint16_t(size));
  auto msg = of::decode_of15(in);
  if (!msg.ok()) return 0;
  if (msg->version != of::kOf15) std::abort();
  auto wire = of::encode_of15(*msg);
  if (!wire.ok()) return 0;  // the model may hold what 1.5 cannot say (e.g. an OF1.3 experimenter form)
  auto again = of::decode_of15(*wire);
  if (!again.ok()) std::abort();
  auto wire2 = of::encode_of15(*again);
  if (!wire2.ok() || *wire2 != *wire) std::abort();
  return 0;
}

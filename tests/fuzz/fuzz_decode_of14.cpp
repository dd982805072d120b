// libFuzzer target for the OpenFlow 1.4 decoder: any input decodes or fails
// cleanly; a decoded message re-encodes, and the re-encoded bytes decode to an
// equal message and encode to the same bytes again (a fixed point after one
// pass). A bundle-add's and a request forward's inner message is decoded as well.
#include <cstdint>
#include <cstdlib>

#include "openflow/of14/of14.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;
  using namespace flowlab::of::of14;
  Bytes in(data, data + size);
  if (size >= 1) in[0] = flowlab::of::kOf14;  // reach past the version check on every input
  if (size >= 4) store_be16(&in[2], uint16_t(size));
  auto msg = decode_of14(in);
  if (!msg.ok()) return 0;
  auto wire = encode_of14(*msg);
  if (!wire.ok()) std::abort();  // whatever decodes, encodes
  auto again = decode_of14(*wire);
  if (!again.ok()) std::abort();
  // The structs of 1.4's own wire hold every byte that is not padding: equal
  // after one pass. What goes through the 1.3 codec may normalise as it does.
  const bool via_of13 = std::holds_alternative<flowlab::of::Message>(msg->body) ||
                        std::holds_alternative<FlowMod>(msg->body) ||
                        std::holds_alternative<FlowStatsReply>(msg->body);
  if (!via_of13 && !(*again == *msg)) std::abort();
  auto wire2 = encode_of14(*again);
  if (!wire2.ok() || *wire2 != *wire) std::abort();
  if (const auto* add = std::get_if<flowlab::of::BundleAdd>(&msg->body)) (void)decode_of14(add->message);
  if (const auto* rf = std::get_if<RequestForward>(&msg->body)) (void)decode_of14(rf->request);
  return 0;
}

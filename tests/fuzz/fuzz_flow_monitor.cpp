// libFuzzer target for OpenFlow 1.4/1.5 flow monitoring: the input is the
// body of an OFPMP_FLOW_MONITOR request and of a reply (flow updates), each
// framed at versions 5 and 6 and decoded through decode_message. Any input
// decodes or fails cleanly; what decodes re-encodes, and the re-encoded bytes
// decode and encode to the same bytes again (a fixed point after one pass:
// matches and instructions go through the 1.3 codec, which may normalise).
#include <cstdint>
#include <cstdlib>

#include "openflow/codec.h"

namespace {

using namespace flowlab;  // NOLINT(google-build-using-namespace)

void check(uint8_t version, uint8_t type, const uint8_t* data, size_t size) {
  Bytes in(16, 0);
  in[0] = version;
  in[1] = type;
  store_be16(&in[8], 16);  // OFPMP_FLOW_MONITOR
  in.insert(in.end(), data, data + size);
  if (in.size() > 0xffff) return;
  store_be16(&in[2], uint16_t(in.size()));
  auto msg = of::decode_message(in);
  if (!msg.ok()) return;
  auto wire = of::encode_message(*msg);
  if (!wire.ok()) std::abort();  // whatever decodes, encodes
  auto again = of::decode_message(*wire);
  if (!again.ok()) std::abort();
  auto wire2 = of::encode_message(*again);
  if (!wire2.ok() || *wire2 != *wire) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  for (uint8_t version : {flowlab::of::kOf14, flowlab::of::kOf15})
    for (auto type : {flowlab::of::MsgType::kMultipartRequest, flowlab::of::MsgType::kMultipartReply})
      check(version, uint8_t(type), data, size);
  return 0;
}

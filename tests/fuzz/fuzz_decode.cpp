// libFuzzer target for the OpenFlow decoder (both versions): any input must
// decode or fail cleanly; a decoded message must re-encode, and the re-encoded
// bytes must decode again (to an equal message, unless the encoder legitimately
// normalised padding the input omitted).
#include <cstdint>
#include <cstdlib>

#include "openflow/codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;
  using namespace flowlab::of;
  ByteSpan in(data, size);
  auto msg = decode_message(in);
  if (!msg.ok()) return 0;
  auto wire = encode_message(*msg);
  // Whatever OF1.3 decodes it can encode; OF1.0's codec may refuse model values.
  if (!wire.ok()) {
    if (msg->version == kOf13) std::abort();
    return 0;
  }
  auto again = decode_message(*wire);
  if (!again.ok()) std::abort();
  auto wire2 = encode_message(*again);
  if (!wire2.ok() || *wire2 != *wire) std::abort();  // encoding is a fixed point after one pass
  return 0;
}

// libFuzzer target for the OpenFlow decoder (1.0, 1.3, and 1.4 through its
// bridge onto the shared model; the corpus's of14-* seeds reach it): any input must
// decode or fail cleanly; a decoded message must re-encode, and the re-encoded
// bytes must decode again (to an equal message, unless the encoder legitimately
// normalised padding the input omitted); encoding in place after other bytes
// gives the same bytes. An ONF bundle message's body is decoded too (control,
// and add: its inner message as the switch reads it, without a copy).
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab;
  using namespace flowlab::of;
  ByteSpan in(data, size);
  auto msg = decode_message(in);
  if (!msg.ok()) return 0;
  auto wire = encode_message(*msg);
  // Whatever OF1.3 and OF1.4 decode they can encode; OF1.0's codec may refuse model values.
  if (!wire.ok()) {
    if (msg->version != kOf10) std::abort();
    return 0;
  }
  auto again = decode_message(*wire);
  if (!again.ok()) std::abort();
  auto wire2 = encode_message(*again);
  if (!wire2.ok() || *wire2 != *wire) std::abort();  // encoding is a fixed point after one pass
  Bytes appended{0xee};
  if (!encode_message_to(*again, appended).ok() ||
      !std::equal(wire->begin(), wire->end(), appended.begin() + 1) || appended.size() != wire->size() + 1)
    std::abort();
  if (const auto* e = std::get_if<ExperimenterMsg>(&msg->body)) {
    if (is_bundle_control(*e)) (void)decode_bundle_control(*e);
    if (is_bundle_add(*e)) {
      auto view = decode_bundle_add_view(*e);
      auto copy = decode_bundle_add(*e);
      if (view.ok() != copy.ok()) std::abort();
      if (view.ok()) {
        if (!std::equal(view->message.begin(), view->message.end(), copy->message.begin(),
                        copy->message.end()))
          std::abort();
        (void)decode_message(view->message);
      }
    }
  }
  return 0;
}

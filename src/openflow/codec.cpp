// Version dispatch for the codecs (to be completed with negotiation and error replies).
#include "openflow/codec.h"

namespace flowlab::of {

Result<Message, OfError> decode_message(ByteSpan wire) {
  if (wire.size() < kHeaderLen)
    return unexpected(OfError::make(BadRequestCode::kBadLen, "message shorter than the 8-byte header"));
  switch (wire[0]) {
    case kOf10: return decode_of10(wire);
    case kOf13: return decode_of13(wire);
    default:
      return unexpected(OfError::make(BadRequestCode::kBadVersion, "unsupported OpenFlow version"));
  }
}

Result<Bytes, OfError> encode_message(const Message& msg) {
  switch (msg.version) {
    case kOf10: return encode_of10(msg);
    case kOf13: return encode_of13(msg);
    default:
      return unexpected(OfError::make(BadRequestCode::kBadVersion, "unsupported OpenFlow version"));
  }
}

}  // namespace flowlab::of

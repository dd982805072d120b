// OpenFlow 1.3 codec (stub until the real one lands).
#include "openflow/codec.h"

namespace flowlab::of {

Result<Message, OfError> decode_of13(ByteSpan) {
  return unexpected(OfError::make(BadRequestCode::kBadType, "OF1.3 decoder not implemented yet"));
}
Result<Bytes, OfError> encode_of13(const Message&) {
  return unexpected(OfError::make(BadRequestCode::kBadType, "OF1.3 encoder not implemented yet"));
}

}  // namespace flowlab::of

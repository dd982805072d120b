// OpenFlow 1.0 codec (stub until the real one lands).
#include "openflow/codec.h"

namespace flowlab::of {

Result<Message, OfError> decode_of10(ByteSpan) {
  return unexpected(OfError::make(BadRequestCode::kBadType, "OF1.0 decoder not implemented yet"));
}
Result<Bytes, OfError> encode_of10(const Message&) {
  return unexpected(OfError::make(BadRequestCode::kBadType, "OF1.0 encoder not implemented yet"));
}

}  // namespace flowlab::of

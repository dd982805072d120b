// Multipart body type of a request/reply body variant.
#include "openflow/message.h"

namespace flowlab::of {
namespace {

// Both variants list the bodies in MultipartType order, experimenter last.
template <typename Variant>
MultipartType type_of_index(const Variant& b) {
  if (b.index() + 1 == std::variant_size_v<Variant>) return MultipartType::kExperimenter;
  return static_cast<MultipartType>(b.index());
}

}  // namespace

MultipartType multipart_type(const MultipartRequestBody& b) { return type_of_index(b); }
MultipartType multipart_type(const MultipartReplyBody& b) { return type_of_index(b); }

}  // namespace flowlab::of

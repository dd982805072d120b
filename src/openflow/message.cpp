// Multipart body type of a request/reply body variant.
#include "openflow/message.h"

#include <type_traits>

namespace flowlab::of {
namespace {

// Both variants list the bodies in MultipartType order up to flow monitor
// (16: table desc 14, queue desc 15), then controller status (18),
// experimenter last.
constexpr size_t kFlowMonitorIndex = 16;
constexpr size_t kControllerStatusIndex = 17;

template <typename Variant>
MultipartType type_of_index(const Variant& b) {
  if (b.index() + 1 == std::variant_size_v<Variant>) return MultipartType::kExperimenter;
  if (b.index() == kControllerStatusIndex) return MultipartType::kControllerStatus;
  return static_cast<MultipartType>(b.index());
}
static_assert(std::is_same_v<std::variant_alternative_t<15, MultipartRequestBody>, QueueDescRequest>);
static_assert(std::is_same_v<std::variant_alternative_t<15, MultipartReplyBody>, QueueDescReply>);
static_assert(
    std::is_same_v<std::variant_alternative_t<kFlowMonitorIndex, MultipartRequestBody>, FlowMonitorRequest>);
static_assert(
    std::is_same_v<std::variant_alternative_t<kFlowMonitorIndex, MultipartReplyBody>, FlowMonitorReply>);
static_assert(std::is_same_v<std::variant_alternative_t<kControllerStatusIndex, MultipartRequestBody>,
                             ControllerStatusRequest>);
static_assert(std::is_same_v<std::variant_alternative_t<kControllerStatusIndex, MultipartReplyBody>,
                             ControllerStatusReply>);
static_assert(std::is_same_v<std::variant_alternative_t<Message::kControllerStatusIndex, MessageBody>,
                             ControllerStatus>);

}  // namespace

MultipartType multipart_type(const MultipartRequestBody& b) { return type_of_index(b); }
MultipartType multipart_type(const MultipartReplyBody& b) { return type_of_index(b); }

}  // namespace flowlab::of

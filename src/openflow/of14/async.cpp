// OpenFlow 1.4 set-async and get-async reply: the property list (type,
// length 8, mask), checked and decoded; apply_async (layouts in of14.h).
#include <fmt/format.h>

#include "openflow/of14/of14.h"

namespace flowlab::of::of14 {

Result<AsyncConfig, OfError> decode_async(ByteSpan body, bool reply) {
  AsyncConfig a;
  a.reply = reply;
  std::string why;
  if (!properties_ok(body, why))
    return unexpected(OfError{static_cast<ErrorType>(kErrBadProperty), 1, 8, "async config: " + why});
  for (size_t o = 0; o < body.size();) {
    const uint16_t type = load_be16(&body[o]);
    const uint16_t len = load_be16(&body[o + 2]);
    if (type > uint16_t(AsyncProp::kRequestForwardMaster))
      return unexpected(OfError{static_cast<ErrorType>(kErrBadProperty), 0 /* OFPBPC_BAD_TYPE */, 8 + o,
                                fmt::format("async config: property type {} not supported", type)});
    if (len != 8)
      return unexpected(OfError{static_cast<ErrorType>(kErrBadProperty), 1, 8 + o,
                                fmt::format("async config: property length {} != 8", len)});
    a.props.push_back({type, load_be32(&body[o + 4])});
    o += 8;
  }
  return a;
}

of::AsyncConfig apply_async(const of::AsyncConfig& base, const AsyncConfig& props) {
  of::AsyncConfig c = base;
  for (const AsyncProperty& p : props.props) {
    const size_t slot = (p.type & 1) ? 0 : 1;  // model: [0] master/equal, [1] slave
    switch (p.type >> 1) {
      case 0:
        c.packet_in_mask[slot] = p.mask;
        break;
      case 1:
        c.port_status_mask[slot] = p.mask;
        break;
      case 2:
        c.flow_removed_mask[slot] = p.mask;
        break;
      default:
        break;
    }
  }
  return c;
}

}  // namespace flowlab::of::of14

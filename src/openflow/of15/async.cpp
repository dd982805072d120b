// OpenFlow 1.5 set-async and get-async reply: 1.4's property list plus the
// controller status masks (OFPACPT_CONT_STATUS_SLAVE 14, _MASTER 15), which
// 1.4's wire has no place for: they travel beside the translation (Extras).
#include <fmt/format.h>

#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of::of15 {
namespace {

constexpr size_t kPropLen = 8;  // ofp_async_config_prop_reasons: type, length, mask

}  // namespace

Result<Bytes, OfError> async_to14(ByteSpan wire, Extras* extras) {
  Bytes out(wire.begin(), wire.begin() + long(std::min(wire.size(), kHeaderLen)));
  for (size_t at = kHeaderLen; at < wire.size();) {
    // A property that is not whole or not 8 bytes goes on as it is: the 1.4
    // decoder names what is wrong with it.
    const size_t len = wire.size() - at >= 4 ? load_be16(&wire[at + 2]) : 0;
    if (len != kPropLen || wire.size() - at < kPropLen) {
      out.insert(out.end(), wire.begin() + long(at), wire.end());
      break;
    }
    const uint16_t type = load_be16(&wire[at]);
    if (type == kAsyncContStatusSlave || type == kAsyncContStatusMaster) {
      if (extras) extras->cont_status[type - kAsyncContStatusSlave] = load_be32(&wire[at + 4]);
    } else {
      out.insert(out.end(), wire.begin() + long(at), wire.begin() + long(at + kPropLen));
    }
    at += kPropLen;
  }
  return checked(std::move(out), kOf14);
}

Result<Bytes, OfError> async_to15(ByteSpan wire, const Extras* extras) {
  Bytes out(wire.begin(), wire.end());
  if (extras) {
    ByteWriter w(out);
    for (uint16_t i = 0; i < 2; ++i)
      if (extras->cont_status[i]) {
        w.u16(uint16_t(kAsyncContStatusSlave + i));
        w.u16(uint16_t(kPropLen));
        w.u32(*extras->cont_status[i]);
      }
  }
  return checked(std::move(out), kOf15);
}

}  // namespace flowlab::of::of15

// SwitchAccess: what the REST API needs from the controller runtime, as a small
// interface so the API can be tested with a fake (tests/unit/rest) and served
// by the runtime (SwitchDirectory, switch_directory.h).
//
// Calls block the calling HTTP thread, never the OpenFlow path: the request is
// posted to the switch connection's own thread and the answer waited for with a
// timeout. Errors carry the HTTP status they answer with: 404 unknown or
// vanished switch, 504 no reply in time, 400 the switch (or the encoder)
// refused the request.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::rest {

struct HttpError {
  int status = 500;
  std::string message;
};
template <typename T>
using HttpResult = Result<T, HttpError>;
using HttpStatus = BasicStatus<HttpError>;
inline Unexpected<HttpError> http_fail(int status, std::string message) {
  return {HttpError{status, std::move(message)}};
}

// A snapshot of one connected switch.
struct SwitchSummary {
  uint64_t dpid = 0;
  uint8_t version = 0;
  std::vector<of::PortDesc> ports;  // by port number, LOCAL included
};

class SwitchAccess {
 public:
  virtual ~SwitchAccess() = default;
  // Switches that finished the handshake, by dpid.
  virtual std::vector<SwitchSummary> switches() const = 0;
  virtual std::optional<SwitchSummary> find(uint64_t dpid) const = 0;
  // Every part of the reply, in order.
  virtual HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t dpid,
                                                                    of::MultipartRequestBody body) = 0;
  // Sends a modification (flow-mod, group-mod, meter-mod, port-mod) followed by
  // a barrier; returns when the barrier reply came (the change is in place), or
  // with the switch's error if it refused the change.
  virtual HttpStatus modify(uint64_t dpid, of::MessageBody body) = 0;
};

}  // namespace flowlab::rest

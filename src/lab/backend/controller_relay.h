// The way from a case's switches to a controller the lab does not start (`kind:
// remote`, Mininet's `--controller remote,ip=A,port=P`).
//
// Mininet's switches run in the machine's own namespace, so `remote` (127.0.0.1:6653)
// is the loopback everyone shares. The lab's switches run in the case's core
// namespace, whose loopback is its own: a relay process, started in the lab's own
// namespace, listens on 127.0.0.1:LOCAL inside the core namespace (for a controller
// at another address: on that address and port, put on the core namespace's
// loopback, so the switch connects to what the controller's address is) and, for every
// connection a switch makes there, opens one to the controller from the lab's
// namespace and copies the bytes both ways unchanged. One switch connection is one
// controller connection; either end closing closes the other, so a controller that
// goes away is seen by the switch as a lost connection, as it would be directly.
#pragma once

#include <string>

#include "core/result.h"

namespace flowlab::lab {

// Whether HOST:PORT accepts a TCP connection from this namespace within `timeout_s`;
// the error says why not (refused, unreachable, timed out).
Status probe_tcp(const std::string& host, int port, double timeout_s);

struct ControllerRelayOptions {
  std::string listen_ns;  // the namespace whose listen_host:listen_port the switches reach
  // 127.0.0.1, or the controller's own address (on the namespace's loopback), so the
  // switches connect to the address the controller has and name it so in their logs.
  std::string listen_host = "127.0.0.1";
  int listen_port = 0;
  std::string to_host;  // the controller, reached from the relay's own namespace
  int to_port = 0;
  double connect_timeout_s = 3;
};

// Runs until SIGTERM/SIGINT; logs each connection to stderr. Errors: the namespace or
// the listening port cannot be had.
Status run_controller_relay(const ControllerRelayOptions& o);

}  // namespace flowlab::lab

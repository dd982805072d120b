// tcp-rr: request/response latency over one TCP connection (netperf TCP_RR style).
// The client sends `size` bytes, the server echoes them, the client times each round
// trip. Run by the lab as hidden subcommands inside the host namespaces:
//   flowlab lab tcp-rr-server --port P [--timeout S]
//   flowlab lab tcp-rr-client --host ADDR --port P --count N --size B [--timeout S]
// The client prints one JSON object: count, size, rtt_{min,avg,p50,p99,max}_us,
// transactions_per_s.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

// Serves one connection (echoing fixed-size messages) then returns; gives up after
// timeout_s without a client.
Status tcp_rr_server(int port, double timeout_s);
Result<nlohmann::json> tcp_rr_client(const std::string& host, int port, int count, int size,
                                     double timeout_s);

}  // namespace flowlab::lab

// tcp-crr: connection churn, netperf's TCP_CRR idea: every transaction is a new TCP
// connection (connect, one request of `size` bytes, a response of the same size,
// close). The benchmark of what a web-like load of short connections costs a switch:
// each new 5-tuple may miss a flow cache.
//   flowlab lab tcp-crr-server --port P [--count N] [--timeout S]
//   flowlab lab tcp-crr-client --host A --port P (--rate R | --max) (--duration S | --count N)
//                              [--size B] [--parallel K] [--conn-timeout S]
//
// Wire: the client sends a 4-byte big-endian size and `size` bytes; the server answers
// `size` bytes and closes first. Closing from the server puts TIME_WAIT on the server
// (the passive side of the 4-tuple), so the client's ephemeral ports are free again as
// soon as its close is acknowledged: the client can run 60k+ connections a minute from
// one address without SO_REUSEADDR tricks or RSTs, and every connection ends with the
// ordinary FIN exchange a switch would see. A SYN that meets the server's TIME_WAIT
// socket for a reused port opens a new connection (newer timestamps, RFC 6191). The
// client closes first only for a connection it gives up on (timeout), with SO_LINGER 0
// (an RST), so a failed run leaves no state behind.
//
// Rate mode (--rate R) is open loop: connection i starts at start + i/R whatever
// happened to the others (at most --parallel in flight, default 4096; one due while
// the cap is reached is counted `not_started`), and its latency runs from when it was
// due, so a generator that falls behind shows in the latency instead of hiding it.
// Max mode (--max) keeps --parallel connections (default 1) in flight, closed loop.
//
// The client prints one JSON object: mode, offered_per_s, parallel, size, duration_s,
// attempted, completed, failed, failures {refused, reset, timeout, no_port,
// closed_early, other}, not_started, connections_per_s (completed within the offered
// window per second of it), latency_{min,avg,p50,p90,p99,max}_us (due to closed),
// max_in_flight, cpu_s (the client's own user+system time), first_error. A run in
// which nothing completed is an error (the first failure's message); a refused
// connection before any completed ends the run at once (no server listens). The
// server prints {served, incomplete, bad_requests} when it ends: after --count
// connections, after --timeout seconds without a new one (an error if it served
// none), or on SIGINT/SIGTERM.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

struct CrrClientOptions {
  std::string host;
  int port = 7003;
  double rate = 0;            // offered connections per second; 0 = max mode
  double duration_s = 0;      // how long to offer; 0 = until `count` were attempted
  int64_t count = 0;          // connections to attempt; 0 = as many as the duration allows
  int size = 64;              // request and response bytes
  int parallel = 0;           // in flight: max mode's window (0 = 1), rate mode's cap (0 = 4096)
  double conn_timeout_s = 3;  // a connection not closed by then fails as `timeout`
};

struct CrrServerOptions {
  int port = 7003;
  int64_t count = 0;      // exit after serving this many (0 = no limit)
  double timeout_s = 10;  // exit after this long without a new connection
};

// The options' own errors ("--rate and --max: give one"), before anything is opened.
Status check_crr_client_options(const CrrClientOptions& o);
Result<nlohmann::json> tcp_crr_client(const CrrClientOptions& o);
Result<nlohmann::json> tcp_crr_server(const CrrServerOptions& o);

}  // namespace flowlab::lab

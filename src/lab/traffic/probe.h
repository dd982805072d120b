// probe: flowlab's own sequence-numbered UDP stream, for outages and recovery.
// The sender sends one datagram every `interval` from an absolute start time (so
// packet N is due at start + N x interval, lost or not); each carries a magic, its
// sequence number and its send time (CLOCK_MONOTONIC, which all namespaces share).
// The receiver records every arrival (sequence, send time, arrival time). Run by
// the lab as hidden subcommands inside the host namespaces:
//   flowlab lab probe-recv --port P --out FILE [--max S]     (until SIGTERM or S)
//   flowlab lab probe-send --host A --port P --duration S --interval-us U
//                          [--size B] [--start-at NS]        (prints JSON)
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct ProbeSendOptions {
  std::string host;
  int port = 7002;
  double duration_s = 10;
  uint64_t interval_ns = 1'000'000;
  int size = 64;             // UDP payload bytes, >= 16
  uint64_t start_at_ns = 0;  // CLOCK_MONOTONIC; 0: now
};

struct ProbeArrival {
  uint32_t seq = 0;
  uint64_t send_ns = 0, recv_ns = 0;
};

// Sends the stream; {start_ns, interval_ns, sent, send_errors, max_late_us}.
Result<nlohmann::json> probe_send(const ProbeSendOptions& o);
// Receives until SIGTERM/SIGINT or max_s; writes {"arrivals": [[seq, send_ns, recv_ns], ...]}.
Status probe_receive(int port, const std::string& out_path, double max_s);
// Reads a receiver's file.
Result<std::vector<ProbeArrival>> read_probe_arrivals(const std::string& path);

}  // namespace flowlab::lab

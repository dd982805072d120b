// PacketGenerator: a UDP packet blaster for switch benchmarks (the sender
// iperf3 is not: it tops out at ~60-80k small packets/s here). Per thread
// one UDP socket, sendmmsg batches of 64 datagrams spread over `flows`
// destination ports (so a flow cache sees many flows), for `seconds`; more
// threads let the sender use more cores (on veth each sender's softirq runs
// the receive path on its own core). The receiving side
// is counted by the caller (e.g. the receiver interface's rx_packets), so the
// generator measures the path, not a receiving application.
//
//   auto r = bench::run_packet_generator({.dst = "10.0.0.2", .payload = 18, .seconds = 5});
//   r->sent, r->pps
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"

namespace flowlab::bench {

struct PacketGeneratorOptions {
  std::string dst;  // IPv4 address
  uint16_t base_port = 9000;
  uint32_t flows = 64;    // destination ports base_port .. base_port+flows-1
  uint32_t payload = 18;  // UDP payload bytes (18: 64-byte frames with the 4-byte FCS)
  double seconds = 5;
  uint32_t threads = 1;  // sending threads, each with its own socket (1..64)
};

struct PacketGeneratorResult {
  uint64_t sent = 0;    // datagrams the kernel accepted
  uint64_t failed = 0;  // sendmmsg errors (ENOBUFS etc.)
  double seconds = 0;
  double pps = 0;
};

Result<PacketGeneratorResult> run_packet_generator(const PacketGeneratorOptions& opts);

}  // namespace flowlab::bench

// PacketGenerator: a UDP packet blaster for switch benchmarks (the sender
// iperf3 is not: it tops out at ~60-80k small packets/s here). Two modes:
//  * udp (default): per thread one UDP socket, sendmmsg batches of 64
//    datagrams spread over `flows` destination ports (so a flow cache sees
//    many flows). Every datagram crosses the sender's IP stack: ~0.8 Mpps
//    alone on the 2-core VM, a fraction of that beside a switch.
//  * xdp: whole Ethernet frames transmitted from an XDP program run by the
//    kernel in live-frame mode (xdp_generator.h): no socket, no IP stack on
//    the sending side; several Mpps into a veth. Needs root and Linux 5.18,
//    and on a veth a peer with GRO on (xdp_device.h says why).
// Both run `threads` senders for `seconds`, optionally paced to `rate`
// frames per second in total (pacer.h); more threads let the sender use
// more cores (on veth each sender's softirq runs the receive path on its
// own core). The receiving side is counted by the caller (e.g. the receiver
// interface's rx_packets), so the generator measures the path, not a
// receiving application.
//
//   auto r = loadgen::run_packet_generator({.dst = "10.0.0.2", .payload = 18, .seconds = 5});
//   r->sent, r->pps
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"

namespace flowlab::loadgen {

enum class GeneratorMode { kUdp, kXdp };

struct PacketGeneratorOptions {
  GeneratorMode mode = GeneratorMode::kUdp;
  std::string dst;  // IPv4 address
  // xdp mode only (frame_addresses.h): empty = the route's interface, the
  // interface's MAC, the neighbour table's entry for dst.
  std::string dev, src_mac, dst_mac;
  uint16_t base_port = 9000;
  uint32_t flows = 64;    // destination ports base_port .. base_port+flows-1
  uint32_t payload = 18;  // UDP payload bytes (18: 64-byte frames with the 4-byte FCS)
  double seconds = 5;
  uint32_t threads = 1;  // sending threads, each with its own socket / test run (1..64)
  double rate = 0;       // frames per second, all threads together; 0 = as fast as possible
};

struct PacketGeneratorResult {
  // udp: datagrams the kernel accepted; xdp: frames transmitted out of the
  // interface (into a veth's peer, including any its full ring then dropped:
  // those are the peer's rx_dropped, as a NIC's missed frames).
  uint64_t sent = 0;
  // udp: sendmmsg errors (ENOBUFS etc.); xdp: frames of test runs the kernel
  // refused (not sent).
  uint64_t failed = 0;
  double seconds = 0;
  double pps = 0;
  std::string note;  // for stderr: what else the run saw (xdp: frames the device refused)
};

Result<PacketGeneratorResult> run_packet_generator(const PacketGeneratorOptions& opts);

}  // namespace flowlab::loadgen

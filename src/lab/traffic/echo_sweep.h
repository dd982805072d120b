// Mininet's pingall as its CLI and Python API count it: every ordered pair of hosts
// sends one echo and the first try is the answer (no retry, unlike the lab's pingall
// test, pingall.h). All from this process: one raw ICMP socket per source host,
// opened in its namespace, every source at once. The echoes go out in rounds in which
// each host receives one (round r: host i pings host i+r mod n), paced to what the
// path takes: bridges a hundred echoes a millisecond, controlled switches the
// packet-in budget of pingall.h. From kSweepAnnounceHosts hosts on, the hosts first
// announce their addresses (pingall_hosts.h), so the echoes need no ARP broadcast
// each. A hundred hosts on a bridge answer in well under a second.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "lab/traffic/pingall.h"

namespace flowlab::lab {

struct EchoSweepOptions {
  // How long an echo waits for its reply (s); 0: pingall's own (2 s on bridges, ping's
  // 10 s through controllers).
  double timeout_s = 0;
  PingallPath path;
  // Non-empty: every host pings this address only (Mininet's manualdestip).
  std::string to;
  // Mininet's order: one source after the other (each source's echoes at once, then
  // its replies or the timeout before the next), so that what a source's echoes
  // teach the switches on their way (a moved host relearned by a learning switch)
  // holds before the echoes toward it. Without: every source at once, in rounds.
  bool by_source = false;
};

struct EchoReply {
  bool sent = false;      // false: the pair was not tried (a host with itself)
  bool received = false;  // its reply came back in time
  double rtt_ms = 0;
};

struct EchoSweep {
  // [from][to]: `to` indexes the hosts, or is 0 alone with EchoSweepOptions::to.
  std::vector<std::vector<EchoReply>> replies;
  bool interrupted = false;
  size_t sent = 0, received = 0;
};

// Below this many hosts the n^3 ARP deliveries of a cold pingall cost less than the
// announcements' settling time.
inline constexpr size_t kSweepAnnounceHosts = 16;

// One echo per ordered pair of `hosts` (each to `o.to` alone when it is given). An
// error when a host's namespace or an address is unusable; root is needed (raw sockets).
Result<EchoSweep> echo_sweep(const std::vector<PingallHost>& hosts, const EchoSweepOptions& o);

// The ICMP echo request of identifier `id` and sequence `seq`, with `payload` bytes of
// pattern after its 8-byte header, its checksum set (RFC 792). Exposed for tests.
std::vector<uint8_t> icmp_echo_request(uint16_t id, uint16_t seq, size_t payload = 56);
// The Internet checksum of `len` bytes (RFC 1071).
uint16_t inet_checksum(const uint8_t* data, size_t len);

}  // namespace flowlab::lab

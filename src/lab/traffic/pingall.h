// The pingall test (Mininet's pingallfull): every ordered pair of hosts pings, `count`
// echoes each; loss and RTT per pair make a matrix. With fping, one fping per source
// host pings all the others at once (n processes instead of n^2), at most `parallel`
// sources at a time, so a few hundred hosts finish in seconds; without it, one
// `ping` per pair, `parallel` at a time.
//
// Result record additions (results.json): metrics {pairs, pairs_reached, dropped_pct,
// rtt_avg_ms, rtt_max_ms}, and "matrix": {hosts: [names], loss_pct: [[row = from]],
// rtt_ms: [[...]]} (null on the diagonal and where no echo came back).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/scenario/topology.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

struct PingallHost {
  std::string name, ns, addr;
  std::vector<std::string> ifnames;  // its addressed interfaces (for the ARP patience below)
};

struct PingallOutcome {
  TestOutcome outcome;  // failed when a pair got no echo at all
  nlohmann::json matrix;
  // With TestSpec::full (Mininet's pingallfull): every ordered pair's {from, to, sent,
  // received, loss_pct, rtt_min/avg/max/mdev_ms}; null otherwise.
  nlohmann::json pairs;
};

// fping -q -C N output ("10.0.0.2 : 0.05 - 0.04", one line per target) -> per
// address the per-echo RTTs in ms (negative: lost). Exposed for tests.
std::map<std::string, std::vector<double>> parse_fping(const std::string& text);

// What the hosts' first packets cross: switches whose table misses (every
// broadcast, every first frame of a pair) go to a controller and back, one
// round trip per switch on the path. Pingall paces itself by it (pingall_pacing).
struct PingallPath {
  size_t controller_switches = 0;
};

// How pingall spreads its packets: sources pinging at once, ms between a source's
// packets, the echo timeout (ms).
struct PingallPacing {
  size_t sources = 1;
  int gap_ms = 1;
  int timeout_ms = 2000;
  // ARP's retransmit interval on the hosts for the test (ms; 0: the kernel's 1 s).
  // The kernel gives a neighbour kArpProbes broadcasts, retrans apart, then drops
  // the echo waiting for it: at 1 s a first echo whose ARP crosses a backlogged
  // controller for 3 s is lost although the reply is on its way.
  int arp_retrans_ms = 0;
  // From kAnnounceHosts hosts on, every host first announces its address once
  // (gratuitous ARP, arp_announce.h) with the hosts' arp_accept on for the test:
  // each host learns all the others from n broadcasts, and the pairs' echoes go out
  // with no ARP broadcast of their own. Every pair is still pinged and its reply
  // counted; a host that missed an announcement resolves as usual.
  bool announce = false;
};
inline constexpr int kArpProbes = 3;  // net.ipv4.neigh.*.mcast_solicit, the kernel default
// From cold, every first echo needs an ARP broadcast that reaches all n hosts. On
// bridges that is n^3 kernel deliveries, paced to about a million a second. Through
// controlled switches each broadcast is one packet-in per switch: the sources are
// limited so that all of them together ask for at most kPacketInBudget packet-ins
// a second (a backlog at the controller would delay every hop; on a 100-switch
// line the first echo crosses ~300 controller round trips), and the timeout is
// ping's own default wait (10 s, what Mininet's pingall gives each pair), not 2 s,
// with ARP retrying every 3 s so that resolution lasts 9 s, inside that wait.
inline constexpr double kPacketInBudget = 60000;
// n^3 is 2 million deliveries at 128 hosts, 1 billion at 1,024 (about 20 minutes of
// the kernel's time): from there, the announcements (PingallPacing::announce) make
// it n^2, and sources on bridges are no longer limited by it.
inline constexpr size_t kAnnounceHosts = 128;
PingallPacing pingall_pacing(size_t n, int parallel, const PingallPath& path);

PingallOutcome run_pingall(const TestSpec& t, const std::vector<PingallHost>& hosts, int parallel = 32,
                           const PingallPath& path = {});
// Metrics and status from a filled matrix (exposed for tests).
PingallOutcome summarize_pingall(const std::vector<std::string>& hosts,
                                 const std::vector<std::vector<nlohmann::json>>& per_pair);

// Pings from the first host to every other, one echo each, concurrently, again every
// half second until all answer (a spanning tree has converged) or `timeout_s` passes.
// Returns the seconds it took, or a negative value on timeout / interrupt.
double wait_reachable(const std::vector<PingallHost>& hosts, double timeout_s, int parallel = 32);

// Report pieces: an HTML loss/RTT matrix (hosts beyond `max_hosts` listed only when
// unreachable) and terminal lines for pairs that got nothing (every pair, with its
// RTTs, when the result holds "pairs": pingallfull).
std::string render_pingall_html(const nlohmann::json& result, size_t max_hosts = 40);
std::string render_pingall_text(const nlohmann::json& result, size_t max_pairs = 10);

}  // namespace flowlab::lab

// What the verdict rules read from a test record, its case and the document,
// gathered in one place (verdict.cpp holds the rules). Internal to the verdicts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

namespace flowlab::lab::verdict_detail {

using nlohmann::json;

// What the rules read from the records, in one place.
struct Facts {
  std::string type, status, from, to;
  std::string machine;   // across machines: "m0->m1" (the record's "machine")
  std::string crossing;  // and how: "vxlan" (a tunnel) or "vlan" (a provider link)
  bool tcp = false, udp = false, via_ctl = false;
  double measured_bps = 0, offered_bps = 0, loss_pct = 0, lost = 0, duration_s = 0;
  double sent = 0;         // UDP datagrams the sender sent (0: unknown)
  double window = 0;       // fixed window (iperf -w), bytes
  double inflight = 0;     // mean bytes in flight (ss), bytes
  double idle_rtt_ms = 0;  // case ping RTT or the stream's min RTT
  double ping_rtt_ms = 0;  // the case's ping test (0: none)
  double retrans = 0, csum = 0, rcvbuf = 0, pruned = 0, timeouts = 0, rto_ms = 0;
  double delivery_max_bps = 0;
  double rwnd_limited_pct = 0, zero_windows = 0;
  double window_rate_bps = 0, rtt_mean_ms = 0;  // per-sample window / RTT under load (ss)
  json cores = json::object();
  json procs = json::object();
  json qdiscs = json::array();
  json counters = json::object();
  json ovs = json::object();          // OVS coverage and datapath deltas (sampler.h)
  json packet_drops = json::array();  // packet sockets that dropped (ss -0)
  json iface_drops = json::array();   // interfaces' rx dropped (ip -s link: the backlog behind a veth)
  double ctl_delay_ms = 0;            // the case's controller_link, one way (0: none)
  double packet_ins_per_s = 0;        // the switch's packet-in rate during the test (0: unknown)
  json case_rec;
};

Facts gather(const json& result, const json& case_rec, const json& doc);
// Delta of a cumulative series (last - first number; null: not written yet).
double series_delta(const json& a);
// The controller process of the case and its mean CPU during the test ("", -1: none).
std::pair<std::string, double> controller_cpu(const Facts& f);
// Packet-ins per second during the test, from the switch/controller stats series
// (flowlab) or OVS's rconn_sent (0: unknown).
double packet_in_rate(const json& result);
// Median packet-in handling time of the case's controller, in us (0: unknown).
double controller_handling_us(const json& case_rec);

}  // namespace flowlab::lab::verdict_detail

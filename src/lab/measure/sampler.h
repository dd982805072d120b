// TestSampler: what the lab measures while one test runs, to explain its figures.
//
// Started just before a test's traffic and finished right after it. A thread
// samples every `interval_s` (100 ms by default):
//   - CPU of every process living in one of the case's namespaces (the switch,
//     controller, ovs-vswitchd, os-ken, the traffic tools), found by their network
//     namespace (/proc/PID/ns/net), in % of one core, user and system, from
//     /proc/PID/stat; with the cgroup CPU limit the process runs under (cpu.max,
//     or v1 cfs quota) when there is one;
//   - per-core busy, softirq and steal from /proc/stat;
//   - the sender's TCP stream from `ss -tin` (cwnd, RTT, min RTT, RTO, delivery rate,
//     retransmits);
//   - the packet-in counters of the flowlab switch/controller stats files in the
//     case's out dir, which those processes rewrite every 0.5-1 s.
// Around the test (before and after) it takes TcpExt/Tcp/Udp counters of the sender
// and receiver namespaces (/proc/net/netstat, /proc/net/snmp) and the queueing
// disciplines of every namespace but processes_only's (`tc -s qdisc`: shaping rates and queue drops), and
// reports their deltas; and, when the case runs ovs-vswitchd, OVS's coverage counters
// and datapath port drops (`ovs-appctl coverage/show`, `dpctl/show -s`) as deltas,
// and the receive-buffer drops of every packet socket (`ss -0 -m -p`: the ports of
// OVS and of flowlab's switch without rings).
// The namespaces include the wire namespaces of shaped links (their HTB/TBF queues).
//
// finish() returns the JSON stored as results[].samples (layout in docs/LAB.md).
#pragma once

#include <atomic>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace flowlab::lab {

struct SamplerConfig {
  // role ("core", "h1", ...) -> namespace name; processes are found in these.
  std::vector<std::pair<std::string, std::string>> namespaces;
  std::string sender_ns, receiver_ns;
  std::string stats_dir;  // where *-stats.json files are written (the case out dir)
  double interval_s = 0.1;
  // Namespaces watched for processes only: no snapshot of their qdiscs and drops
  // (three commands each, before and after; the hosts a test does not use: on a
  // 1,024-host lab the snapshots took minutes per test).
  std::set<std::string> processes_only;
};

class TestSampler {
 public:
  explicit TestSampler(SamplerConfig cfg);
  ~TestSampler();
  TestSampler(const TestSampler&) = delete;
  TestSampler& operator=(const TestSampler&) = delete;

  // Stops sampling (idempotent) and returns the series and deltas.
  nlohmann::json finish();

 private:
  void loop();
  SamplerConfig cfg_;
  std::atomic<bool> stop_{false};
  nlohmann::json before_;  // counters and qdiscs at start
  nlohmann::json series_;  // filled by the thread
  std::thread thread_;
  bool finished_ = false;
  nlohmann::json result_;
};

// Summaries used by verdicts and the report, computed from the series:
// mean of a JSON number array (0 when empty).
double series_mean(const nlohmann::json& arr);
double series_max(const nlohmann::json& arr);
// The mean of arr[lo, hi) (0 when that is empty).
double series_mean(const nlohmann::json& arr, size_t lo, size_t hi);
// The samples [lo, hi) of the sampler's ticks `t_s` that a TCP stream (the
// series `tcp` with its own t_s) ran through; all of them without a stream.
// The CPU means (procs, cores) are taken over these.
std::pair<size_t, size_t> stream_samples(const nlohmann::json& t_s, const nlohmann::json& tcp);
// iperf3 -J output -> {"t_s": [...], "mbps": [...]} (empty object when none).
nlohmann::json intervals_json(const std::string& iperf3_output);
// The probe and ping streams of a test record as time series in rec.samples:
// `ping` {t_s, seq, rtt_ms} from ping's replies (t_s = (seq - 1) x interval, a
// lost echo is a gap in seq) and `probe` {t_s, delivered_pps, bin_s} from the
// probe's delivered-rate series. Leaves the record alone when it has neither.
void add_stream_series(nlohmann::json& rec, const std::string& raw, double ping_interval_s);

}  // namespace flowlab::lab

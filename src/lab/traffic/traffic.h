// Traffic tests: ping, iperf3 TCP/UDP, iperf2 window sweep, tcp-rr. Each runs the
// tool inside the host namespaces with a bounded timeout, keeps its raw output and
// parses it into metrics (names carry units: gbps, rtt_avg_ms, loss_pct, ...).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

class RunState;

struct TestOutcome {
  std::string status = "ok";  // ok | failed | skipped
  std::string reason;
  nlohmann::json metrics = nlohmann::json::object();
  std::string raw;      // the tools' output, as printed
  std::string command;  // the client command line
};

struct TrafficCtx {
  std::string from_ns, to_ns;
  std::string to_addr;
  std::string out_dir;
  std::string flowlab_bin;
  RunState* state = nullptr;
};

TestOutcome run_test(const TestSpec& t, const TrafficCtx& ctx);
// One quick ping (for warm-up / reachability before the tests); true if answered.
bool ping_once(const std::string& from_ns, const std::string& addr);

// Parsers, exposed for unit tests.
Result<nlohmann::json> parse_ping(const std::string& out);
Result<nlohmann::json> parse_iperf3(const std::string& json_text, bool udp);
Result<double> parse_iperf2_bps(const std::string& csv);
// "64K" -> 65536, "1M" -> 1048576, "1500" -> 1500; 0 if unparsable.
uint64_t parse_size(const std::string& s);

}  // namespace flowlab::lab

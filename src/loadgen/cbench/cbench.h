// The cbench method: N emulated switches send packet-ins to a controller and
// count the flow-mods / packet-outs that come back, loop by loop.
//
// Latency mode keeps one packet-in outstanding per switch (responses/s is then
// the inverse of the controller's round trip, and each round trip is
// recorded); throughput mode keeps every switch's send buffer full.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::loadgen {

struct CbenchOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 6653;
  int switches = 16;
  uint32_t macs = 100000;
  int ms = 1000;   // length of one loop
  int loops = 16;  // measured loops
  int warmup = 1;  // loops run first and left out of the summary
  bool throughput = false;
  uint8_t version = 4;   // 1 = OpenFlow 1.0, 4 = OpenFlow 1.3
  bool buffered = true;  // packet-ins carry buffer ids, as cbench's do
  int connect_timeout_ms = 3000;
  int handshake_timeout_ms = 5000;
};

struct LoopResult {
  int index = 0;  // 0-based, warmup loops included
  bool warmup = false;
  double seconds = 0;
  std::vector<uint64_t> per_switch;  // responses per switch in this loop
  uint64_t responses = 0;
  uint64_t packet_ins = 0;
  double responses_per_sec() const { return seconds > 0 ? double(responses) / seconds : 0; }
};

struct LatencySummary {
  uint64_t samples = 0;
  double min_us = 0, median_us = 0, p99_us = 0, max_us = 0;
};

struct CbenchResult {
  CbenchOptions options;
  std::vector<LoopResult> loops;
  double min = 0, max = 0, avg = 0, stdev = 0;  // responses/s over measured loops
  uint64_t flow_mods = 0, packet_outs = 0, packet_ins = 0;
  LatencySummary latency;
  std::vector<uint64_t> silent_switches;  // dpids that got no response at all
  std::vector<std::string> warnings;
};

using LoopCallback = std::function<void(const LoopResult&)>;

// Runs the benchmark; errors: controller absent / refusing / closing, handshake
// never completed, no response at all within the run (naming the switches).
Result<CbenchResult> run_cbench(const CbenchOptions& opts, const LoopCallback& on_loop = {});

// cbench-style text: "16 switches: flows/sec:  12  13 ... total = 0.123456 per ms"
std::string format_loop(const LoopResult& loop);
// "RESULT: 16 switches 16 tests min/max/avg/stdev = a/b/c/d responses/s" (+ latency line)
std::string format_summary(const CbenchResult& r);
nlohmann::json to_json(const CbenchResult& r);

}  // namespace flowlab::loadgen

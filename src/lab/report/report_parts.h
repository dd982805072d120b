// Parts of report.html that explain: the summary at the top (one row per case, its
// key figures and one verdict sentence per test) and the line charts of one test
// (throughput, the ping / probe streams, cwnd/RTT and CPU per process over time,
// from results[].samples).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace flowlab::lab {

std::string render_summary(const nlohmann::json& doc);
// The charts of one test record; empty when it has no samples.
std::string render_test_charts(const nlohmann::json& result);
// A case's Prometheus series (results.json cases[].metrics, lab/run/case_metrics.h)
// as charts: packets per second through each switch, packet-ins per second per
// switch and per controller; with where the TSDB is. Empty without metrics.
std::string render_metrics_charts(const nlohmann::json& case_record);
// One sentence per controller of a case: "controller c1 handled 12 packet-ins,
// median 5.8 us, none dropped; sent 12 packet-outs and 0 flow-mods".
std::string controller_sentence(const std::string& name, const nlohmann::json& stats);
// A test's figures as one sentence ("20 of 20 echoes answered (0% lost); round trip
// 0.466 ms on average (min ...)"), for the report's per-test tables.
std::string metrics_sentence(const nlohmann::json& result);
// The verdict label of a test record for the terminal table ("cpu: iperf3 (h2)").
std::string verdict_label(const nlohmann::json& result);

}  // namespace flowlab::lab

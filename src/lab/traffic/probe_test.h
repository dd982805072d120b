// The `probe` test: `{type: probe, from: h1, to: h2, duration: 10, interval: 1ms}`.
// Starts the receiver in the `to` host, then the sender in the `from` host at an
// agreed start time, runs the scenario's events on a timeline from that same
// instant, and analyses the arrivals (probe_analysis.h): per event the first lost
// and first delivered packets, packets lost, recovery time; the delivered rate
// over time and its SVG timeline (written beside the results and inlined in the
// report).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/scenario/events.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

struct ProbeHooks {
  std::vector<EventSpec> events;
  Timeline::Fire fire;  // performs one event (the runner's handles)
  std::map<std::string, std::vector<std::string>> controller_switches;
};

struct ProbeOutcome {
  TestOutcome outcome;
  nlohmann::json probe = nlohmann::json::object();  // {events, series, timeline, sender}
  std::string svg;                                  // the timeline chart
  std::vector<std::string> explain;
};

ProbeOutcome run_probe_test(const TestSpec& t, const TrafficCtx& ctx, const ProbeHooks& hooks);

// The report's piece for one probe record: its timeline SVG and the table of
// events with their recovery times (HTML).
std::string probe_report_html(const nlohmann::json& result);

}  // namespace flowlab::lab

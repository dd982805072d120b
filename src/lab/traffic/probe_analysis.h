// What a probe stream says about each event of the timeline: the first packet
// lost after it, the first delivered after that, how many were lost between, and
// the recovery time (event -> first delivered packet after the loss); the
// delivered rate over time; and the timeline chart (SVG, drawn here, no script).
// Pure: arrivals and event times in, JSON and SVG out.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/traffic/probe.h"

namespace flowlab::lab {

struct ProbeRun {
  uint64_t start_ns = 0;  // packet N was due at start_ns + N x interval_ns
  uint64_t interval_ns = 1'000'000;
  uint64_t sent = 0;
  std::vector<ProbeArrival> arrivals;
};

// events: the timeline's records (Timeline::fired(): fired_ns, label, do, node, link).
// Returns {metrics: {sent, delivered, lost, loss_pct, owd_*_ms, reordered, duplicates},
//          events: [{label, do, at_s, fired_at_s, first_lost_seq, first_lost_at_s,
//                    first_delivered_seq, first_delivered_at_s, lost, lost_in_window,
//                    loss_pct_in_window, recovery_s, recovered}],
//          series: {bin_s, t_s: [...], delivered_pps: [...]}, offered_pps}
nlohmann::json analyze_probe(const ProbeRun& run, const nlohmann::json& events);

// One sentence per event saying what happened and, where the events say it, what
// kept or brought the traffic back. controller_switches: controller -> the
// switches connected to it ("s1 (flowlab, fail-secure)").
std::vector<std::string> explain_probe(
    const nlohmann::json& analysis,
    const std::map<std::string, std::vector<std::string>>& controller_switches);

// The delivered-rate timeline with the events marked.
std::string probe_timeline_svg(const nlohmann::json& analysis, const std::string& title);

}  // namespace flowlab::lab

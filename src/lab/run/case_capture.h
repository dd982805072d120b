// The run's side of packet capture: which links a run captures (`--capture` or the
// scenario's `capture:`), where their ends are in a built case, and the record of
// every link in a persistent lab's lab.json that `flowlab lab capture` reads.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/capture/pcap_capture.h"
#include "lab/run/case_events.h"

namespace flowlab::lab {

struct Scenario;

// The links to capture: `cli` (--capture items) when given, else the scenario's
// `capture:`; none when neither names any. Errors name the flag or FILE:LINE.
Result<std::vector<size_t>> capture_selection(const Scenario& sc, const std::vector<std::string>& cli,
                                              const std::string& file);
// Both ends of the selected links of a built case, named as link_display_names.
// Across machines (`machine` set: this machine's name), an end with no namespace
// is on another machine: a link with one end here is captured at that end into
// LINK@MACHINE.pcap (the direction arriving there), one with no end here not at all.
std::vector<CaptureTarget> capture_targets(const CaseHandles& h, const std::vector<size_t>& selected,
                                           const std::string& machine = {});
// [{name, a, b, a_ns, a_if, b_ns, b_if}] per link, for lab.json.
nlohmann::json links_record(const CaseHandles& h);
// The one link `link` names among a lab.json's `links` (error: none, or several);
// with `nodes`, the nodes of its two ends too ("h1:eth0" -> h1).
Result<CaptureTarget> recorded_target(const nlohmann::json& links, const std::string& link,
                                      std::pair<std::string, std::string>* nodes = nullptr);

}  // namespace flowlab::lab

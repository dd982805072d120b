// Results -> terminal table and the self-contained HTML report.
// Everything here works on the results.json document, so `flowlab lab report DIR`
// re-renders a finished run without re-running it.
//
// results.json: {scenario:{name,file,description}, run_id, started_at, finished_at,
//   quick, interrupted, cases:[{name, status, reason?, offloads, switches, controllers,
//   offload_state, switch_counters, controller_stats, explain:[...]}],
//   results:[{case, test, type, from, to, status, reason?, metrics:{...}, command, raw,
//   elapsed_s, receiver_stack, sender_stack, explain:[...]}]}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

// The explanations in cases[].explain and results[].explain are filled before
// (explain/explain.h); the report shows what they say.

namespace flowlab::lab {

// The metrics charted and tabled for a result record, e.g. {"gbps", "retransmits"}.
std::vector<std::string> headline_metrics(const nlohmann::json& result);

// Table: one row per test metric, one column per case, "value (x ratio vs first case)".
std::string render_table(const nlohmann::json& doc);
std::string render_html(const nlohmann::json& doc);
Status write_html_report(const std::string& dir, const nlohmann::json& doc);

}  // namespace flowlab::lab

// Repeated runs (`flowlab lab run --repeat N`) and run comparison (`flowlab lab diff`).
//
// With --repeat the runner runs every case N times, interleaved (A1 B1 A2 B2 ...,
// so slow drifts of a shared machine hit every case alike), tagging each test
// record with "repeat". aggregate_repeats() folds them into one record per case x
// test: metrics are the medians, "spread" holds {min, max, values} per metric, the
// samples and raw output are those of the repeat closest to the median of the
// headline metric, and "repeats" counts them.
//
// Two figures differ beyond their spread when their [min, max] ranges do not
// overlap; within it, the table and the report say so.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

// results[] with "repeat" tags -> one record per case x test (order of first appearance).
nlohmann::json aggregate_repeats(const nlohmann::json& results);

// [min, max] of a metric of a record: its spread when there is one, else the value.
std::optional<std::pair<double, double>> metric_range(const nlohmann::json& result,
                                                      const std::string& metric);
// True when both records have the metric, at least one has a spread, and the ranges overlap.
bool within_spread(const nlohmann::json& a, const nlohmann::json& b, const std::string& metric);

// `flowlab lab diff OLD NEW`: which headline figures moved beyond their spread and
// which verdicts changed, as text lines.
std::string diff_results(const nlohmann::json& old_doc, const nlohmann::json& new_doc);
// Loads results.json from a file or from DIR/results.json.
Result<nlohmann::json> load_results(const std::string& path);

}  // namespace flowlab::lab

// Prometheus' HTTP API answers decoded (pure: text in, values out): the envelope
// ({"status": "success", "data": ...} or an error), instant vectors, range
// matrices and the active targets. Anything else than the documented shape is an
// error value, never an exception (fuzzed by tests/fuzz/fuzz_prometheus_reply.cpp).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

using PromLabels = std::map<std::string, std::string>;

// One series of a range query: its labels and its points (Unix seconds, value).
struct PromSeries {
  PromLabels labels;
  std::vector<double> t, v;
};

// One sample of an instant query.
struct PromSample {
  PromLabels labels;
  double t = 0, v = 0;
};

// A target as /api/v1/targets lists it.
struct PromTarget {
  PromLabels labels;   // job, node, instance
  std::string health;  // "up", "down", "unknown"
  std::string last_error;
};

// `data` of a successful answer; an error carrying errorType/error otherwise.
Result<nlohmann::json> prom_data(std::string_view body);
// data.result of resultType "vector" / "matrix"; values are strings ("1", "NaN").
Result<std::vector<PromSample>> prom_vector(const nlohmann::json& data);
Result<std::vector<PromSeries>> prom_matrix(const nlohmann::json& data);
// data.activeTargets.
Result<std::vector<PromTarget>> prom_targets(const nlohmann::json& data);

}  // namespace flowlab::lab

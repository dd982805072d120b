// Explanations beside the figures: what the counters of a finished run say about
// each case and result, and the bound they imply. They are written into the
// results.json document (cases[].explain, results[].explain), which the report
// (report/report.h) renders.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flowlab::lab {

// Fills cases[].explain and results[].explain from counters and metrics.
void annotate_explanations(nlohmann::json& doc);
std::vector<std::string> explain_case(const nlohmann::json& case_rec);
std::vector<std::string> explain_test(const nlohmann::json& result, const nlohmann::json& case_rec,
                                      const nlohmann::json& doc);

}  // namespace flowlab::lab

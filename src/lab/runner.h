// `flowlab lab run|validate|clean|report`: the entry points the CLI calls.
#pragma once

#include <string>

#include "core/result.h"

namespace flowlab::lab {

struct RunOptions {
  std::string out_dir;    // default: lab-results/<scenario>-<runid>
  std::string only_case;  // run one case
  bool quick = false;     // shorter tests (make_quick)
  int repeat = 1;         // each case N times, interleaved; medians + min-max (repeat.h)
};

// Runs every case of the scenario and writes results.json + report.html into the
// out dir, printing progress and the table. Returns the exit code: 0 when nothing
// failed (skipped is fine), 1 when a case or test failed, 130/143 when interrupted.
// Errors: invalid scenario, or the lab cannot start at all (not root, no state dir).
Result<int> run_scenario(const std::string& file, const RunOptions& opts);
// Parses and checks; prints a summary. Errors carry file:line.
Result<std::string> validate_scenario(const std::string& file);
// Re-renders report.html and prints the table from DIR/results.json.
Status rerender_report(const std::string& dir);
// `flowlab lab diff OLD NEW` (results.json files or run folders): prints what moved
// beyond its spread and which verdicts changed.
Status diff_runs(const std::string& old_path, const std::string& new_path);

}  // namespace flowlab::lab

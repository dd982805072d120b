// `flowlab lab run|validate|clean|report`: the entry points the CLI calls.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

// `--capture LINKS|all` and `--capture-max MB` (lab/capture/pcap_capture.h): a .pcap
// per link in each case's folder (CASE/capture/LINK.pcap). No links: the scenario's
// `capture:` key, if any.
struct CaptureOptions {
  std::vector<std::string> links;
  double max_mb = 100;  // per link; the oldest packets go past it
};

struct RunContext;
struct CaseSpec;
struct CaseTopology;

struct RunOptions {
  std::string out_dir;    // default: lab-results/<scenario>-<runid>
  std::string only_case;  // run one case
  bool quick = false;     // shorter tests (make_quick)
  // The scenario itself, when it comes from the command line (`--topo ...`); `file`
  // is then only its label in messages and results.
  std::string scenario_text;
  int repeat = 1;  // each case N times, interleaved; medians + min-max (repeat.h)
  CaptureOptions capture;
  // `--metrics`: a Prometheus per case scraping its flowlab switches and
  // controllers (also the scenario's `metrics:`; lab/run/case_metrics.h).
  bool metrics = false;
  // Builds each case instead of this machine (lab/machines' coordinator); empty:
  // build_case here.
  std::function<Status(RunContext&, const CaseSpec&, size_t, const std::string&, CaseTopology&)> build;
};

// Runs every case of the scenario and writes results.json + report.html into the
// out dir, printing progress and the table. Returns the exit code: 0 when nothing
// failed (skipped is fine), 1 when a case or test failed, 130/143 when interrupted.
// Errors: invalid scenario, or the lab cannot start at all (not root, no state dir).
Result<int> run_scenario(const std::string& file, const RunOptions& opts);
// Parses and checks; returns a summary and the warnings (loops). Errors carry file:line.
// With `text`, checks that instead of reading `file`.
Result<std::string> validate_scenario(const std::string& file, const std::string& text = {});
struct Scenario;
class RunState;
struct CaseHandles;
// Builds case `ci` (namespaces, links, controllers, switches, STP settled, captures
// running, Prometheus scraping with `metrics`) and calls `while_up(host -> namespace,
// links, prometheus, handles)` while it stands (links as case_capture.h's
// links_record, prometheus as PrometheusServer::record or null, the handles for
// events, lab_control.h); tears it all down after, on every path. With `build`, the
// case is built by it (across machines) instead of build_case.
using WhileUp = std::function<void(const std::map<std::string, std::string>&, const nlohmann::json&,
                                   const nlohmann::json&, CaseHandles&)>;
Status with_case_built(const Scenario& sc, size_t ci, RunState& state, const std::string& out_dir,
                       const CaptureOptions& capture, bool metrics, const WhileUp& while_up,
                       const std::function<Status(RunContext&, const CaseSpec&, size_t, const std::string&,
                                                  CaseTopology&)>& build = {});
// Re-renders report.html and prints the table from DIR/results.json.
Status rerender_report(const std::string& dir);
// `flowlab lab diff OLD NEW` (results.json files or run folders): prints what moved
// beyond its spread and which verdicts changed.
Status diff_runs(const std::string& old_path, const std::string& new_path);

}  // namespace flowlab::lab

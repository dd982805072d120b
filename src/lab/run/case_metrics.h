// The run's side of metrics (`--metrics` or the scenario's `metrics:`): which
// processes of a case get a `--metrics` listener, the case's Prometheus that
// scrapes them (lab/measure/prometheus.h), and what results.json keeps of its
// series. Flowlab switches and controllers only: OVS, Linux bridges and os-ken
// have no /metrics.
#pragma once

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/measure/prometheus.h"

namespace flowlab::lab {

struct Scenario;
struct CaseSpec;
struct CaseTopology;
struct RunContext;

struct MetricsSettings {
  bool on = false;
  double interval_s = 1;
  int port = 9090;     // Prometheus' own, on the core namespace's loopback
  std::string binary;  // find_prometheus()
};
// From the scenario's `metrics:` and --metrics (`cli_on`); when on, prometheus is
// looked up (an error saying how to install it) and a lab across machines
// (`across`) is refused.
Result<MetricsSettings> metrics_settings(const Scenario& sc, bool cli_on, bool across);

// Ports for `--metrics` listeners: from 9100 up, skipping `used` (the case's
// OpenFlow ports and Prometheus' own).
class MetricsPorts {
 public:
  explicit MetricsPorts(std::set<int> used) : used_(std::move(used)) {}
  int next();

 private:
  std::set<int> used_;
  int port_ = 9100;
};

// Starts the case's Prometheus in its core namespace scraping `targets`, its
// files in CASE/prometheus; returns once every target answered a scrape.
Status start_case_prometheus(RunContext& rc, const CaseSpec& cs, const std::string& case_out,
                             std::vector<ScrapeTarget> targets, CaseTopology& topo);

// The case's "metrics" in results.json, read through the HTTP API after one more
// scrape past `t1`: the server's record, and over [t0, t1] (Unix seconds) per
// switch its packets received per second and its packet-ins per second, per
// controller the packet-ins it handled per second ({node: {t_s, v}}, t_s from t0),
// with the PromQL behind each. A query that fails is named under "errors".
nlohmann::json case_metrics_record(const PrometheusServer& p, double t0, double t1);

// Unix time now, in seconds (Prometheus' clock).
double unix_now();

}  // namespace flowlab::lab

// A real Prometheus (Debian's `prometheus`) for one case of a lab: it runs in the
// case's core namespace (where the switches and controllers are), scrapes each
// flowlab switch's and controller's `--metrics` listener, and keeps its TSDB in
// the case's folder. The lab asks it through its HTTP API (`/api/v1/...`) from a
// thread that entered the namespace (prometheus_api.h decodes the answers).
//
// start() writes prometheus.yml, starts the server, and returns once every
// target has been scraped successfully; stop() ends it with SIGTERM (it flushes
// its head block) and waits for it, SIGKILL past the bound. The process is in the
// RunState while it lives, so `flowlab lab clean` stops one a crash left.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/process.h"

namespace flowlab::lab {

class RunState;

// One `--metrics` listener to scrape: `node` (s1, c0) becomes the `node` label of
// every series, `job` says what it is ("flowlab-switch", "flowlab-controller").
struct ScrapeTarget {
  std::string job, node, address;  // address "127.0.0.1:9100"
};

struct PrometheusOptions {
  std::string binary;  // find_prometheus()
  std::string ns;      // where it runs and scrapes
  std::string dir;     // CASE/prometheus: prometheus.yml, tsdb/, prometheus.log
  int port = 9090;     // --web.listen-address 127.0.0.1:PORT in `ns`
  double scrape_interval_s = 1;
  std::vector<ScrapeTarget> targets;
  double ready_timeout_s = 60;  // until every target has answered a scrape
  RunState* state = nullptr;
};

// The prometheus binary: $FLOWLAB_PROMETHEUS, else `prometheus` on PATH; an error
// that says how to install it when there is none.
Result<std::string> find_prometheus();
// prometheus.yml for `targets`, one job per kind, a `node` label per target.
std::string prometheus_config(const std::vector<ScrapeTarget>& targets, double scrape_interval_s);
// "1s", "250ms": a duration as Prometheus' config and PromQL write it.
std::string prometheus_duration(double seconds);

class PrometheusServer {
 public:
  static Result<std::unique_ptr<PrometheusServer>> start(const PrometheusOptions& opts);
  ~PrometheusServer() { stop(); }
  PrometheusServer(const PrometheusServer&) = delete;
  PrometheusServer& operator=(const PrometheusServer&) = delete;

  // GET http://127.0.0.1:PORT/api/v1/PATH?QUERY inside the namespace; the body of
  // a 200, else an error with Prometheus' own message.
  Result<nlohmann::json> api(const std::string& path, const std::string& query, double timeout_s = 10) const;
  // /api/v1/query_range of `expr` from `start` to `end` (Unix seconds) every `step` s.
  Result<nlohmann::json> query_range(const std::string& expr, double start, double end, double step) const;
  // Waits until every target has been scraped after Unix time `t` (the last
  // counters of a test are in the TSDB once this returns).
  Status wait_scraped_after(double t, double timeout_s) const;
  // SIGTERM, up to 30 s for it to write its head block and exit, then SIGKILL.
  // Idempotent; false when it had to be killed or exited with an error.
  bool stop();
  bool running() { return proc_.running(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(opts_.port); }
  const PrometheusOptions& options() const { return opts_; }
  // {address, namespace, dir, config, tsdb, scrape_interval_s, targets: [{job, node, address}]}
  nlohmann::json record() const;

 private:
  explicit PrometheusServer(PrometheusOptions opts) : opts_(std::move(opts)) {}
  Status wait_ready();
  PrometheusOptions opts_;
  Process proc_;
  bool stopped_ = false, stopped_clean_ = true;
};

}  // namespace flowlab::lab

// Metrics in a lab run: listeners, the case's Prometheus, its series (see case_metrics.h).
#include "lab/run/case_metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "lab/measure/prometheus_api.h"
#include "lab/run/case_topology.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

using nlohmann::json;

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<MetricsSettings> metrics_settings(const Scenario& sc, bool cli_on, bool across) {
  MetricsSettings m;
  m.on = cli_on || sc.metrics;
  m.interval_s = sc.metrics_interval_s;
  m.port = sc.metrics_port;
  if (!m.on) return m;
  if (across) return fail("metrics: a lab across machines is not scraped yet (run it on one machine)");
  FLOWLAB_ASSIGN_OR_RETURN(m.binary, find_prometheus());
  return m;
}

int MetricsPorts::next() {
  while (used_.count(port_)) ++port_;
  used_.insert(port_);
  return port_++;
}

Status start_case_prometheus(RunContext& rc, const CaseSpec& cs, const std::string& case_out,
                             std::vector<ScrapeTarget> targets, CaseTopology& topo) {
  if (targets.empty()) {
    std::fprintf(stderr, "lab: [%s] metrics: no flowlab switch or controller to scrape\n", cs.name.c_str());
    return ok_status();
  }
  PrometheusOptions o;
  o.binary = rc.metrics.binary;
  o.ns = topo.core_ns;
  o.dir = case_out + "/prometheus";
  o.port = rc.metrics.port;
  o.scrape_interval_s = rc.metrics.interval_s;
  o.targets = std::move(targets);
  o.state = &rc.state;
  size_t n = o.targets.size();
  rc.progress.start(fmt::format("[{}] starting prometheus, waiting until it scraped {} targets", cs.name, n));
  auto p = PrometheusServer::start(o);
  rc.progress.done(p.ok() ? "every target up" : "failed");
  if (!p.ok()) return unexpected(p.error());
  topo.prometheus = std::move(*p);
  return ok_status();
}

json case_metrics_record(const PrometheusServer& p, double t0, double t1) {
  json rec = p.record();
  rec["t0_unix"] = t0;
  json errors = json::array();
  double step = p.options().scrape_interval_s;
  if (Status st = p.wait_scraped_after(t1, std::max(10.0, 5 * step)); !st.ok())
    errors.push_back(st.error().message);
  // rate() needs two samples in its window: four scrape intervals.
  std::string w = prometheus_duration(4 * step);
  const std::pair<const char*, std::string> queries[] = {
      {"switch_rx_pps",
       fmt::format("sum by (node) (rate(of_port_rx_packets{{job=\"flowlab-switch\"}}[{}]))", w)},
      {"switch_tx_pps",
       fmt::format("sum by (node) (rate(of_port_tx_packets{{job=\"flowlab-switch\"}}[{}]))", w)},
      {"switch_packet_ins_per_s",
       fmt::format("sum by (node) (rate(of_packet_ins_total{{job=\"flowlab-switch\"}}[{}]))", w)},
      {"controller_packet_ins_per_s",
       fmt::format("sum by (node) (rate(of_packet_ins_total{{job=\"flowlab-controller\"}}[{}]))", w)},
  };
  json series = json::object(), exprs = json::object();
  for (const auto& [name, expr] : queries) {
    exprs[name] = expr;
    auto data = p.query_range(expr, t0, t1, step);
    if (!data.ok()) {
      errors.push_back(fmt::format("{}: {}", name, data.error().message));
      continue;
    }
    auto m = prom_matrix(*data);
    if (!m.ok()) {
      errors.push_back(fmt::format("{}: {}", name, m.error().message));
      continue;
    }
    json by_node = json::object();
    for (const auto& s : *m) {
      auto node = s.labels.find("node");
      if (node == s.labels.end()) continue;
      json t = json::array();
      for (double x : s.t) t.push_back(std::round((x - t0) * 1000) / 1000);
      by_node[node->second] = {{"t_s", t}, {"v", s.v}};
    }
    series[name] = std::move(by_node);
  }
  rec["series"] = std::move(series);
  rec["queries"] = std::move(exprs);
  if (!errors.empty()) rec["errors"] = std::move(errors);
  return rec;
}

}  // namespace flowlab::lab

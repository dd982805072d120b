// A real Prometheus for one case of a lab (see prometheus.h).
#include "lab/measure/prometheus.h"

#include <fmt/format.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "coord/curl_session.h"
#include "core/clock.h"
#include "lab/host/netns.h"
#include "lab/host/sock_diag.h"
#include "lab/measure/prometheus_api.h"

namespace flowlab::lab {

namespace fs = std::filesystem;
using nlohmann::json;

Result<std::string> find_prometheus() {
  if (const char* p = std::getenv("FLOWLAB_PROMETHEUS"); p && *p) {
    if (::access(p, X_OK) != 0)
      return fail("metrics: FLOWLAB_PROMETHEUS={} is not an executable (unset it to use prometheus on PATH)",
                  p);
    return std::string(p);
  }
  if (!have_program("prometheus"))
    return fail(
        "metrics: prometheus is not installed (Debian's package: apt-get install prometheus; or set "
        "FLOWLAB_PROMETHEUS to its binary)");
  return std::string("prometheus");
}

std::string prometheus_duration(double seconds) {
  long ms = std::lround(seconds * 1000);
  if (ms % 1000 == 0) return fmt::format("{}s", ms / 1000);
  return fmt::format("{}ms", ms);
}

std::string prometheus_config(const std::vector<ScrapeTarget>& targets, double scrape_interval_s) {
  std::string d = prometheus_duration(scrape_interval_s);
  std::string out = fmt::format(
      "# Written by flowlab lab: one job per kind of process, a `node` label per target.\n"
      "global:\n  scrape_interval: {0}\n  scrape_timeout: {0}\n  evaluation_interval: {0}\n"
      "scrape_configs:\n",
      d);
  std::map<std::string, std::vector<const ScrapeTarget*>> by_job;
  for (const auto& t : targets) by_job[t.job].push_back(&t);
  for (const auto& [job, ts] : by_job) {
    out += fmt::format("  - job_name: '{}'\n    static_configs:\n", job);
    for (const ScrapeTarget* t : ts)
      out += fmt::format("      - targets: ['{}']\n        labels: {{node: '{}'}}\n", t->address, t->node);
  }
  return out;
}

Result<std::unique_ptr<PrometheusServer>> PrometheusServer::start(const PrometheusOptions& opts) {
  if (opts.targets.empty()) return fail("metrics: nothing to scrape (no flowlab switch or controller)");
  if (!(opts.scrape_interval_s > 0)) return fail("metrics: the scrape interval must be more than 0 s");
  // The namespace is the case's own: a listener on the port is one of the case's.
  if (auto socks = tcp_sockets(opts.ns, tcp_state_bit(TCP_LISTEN));
      socks.ok() && count_tcp(*socks, uint16_t(opts.port), 0) > 0)
    return fail(
        "metrics: Prometheus' port {} is in use in namespace {} (choose another with metrics: {{port: N}})",
        opts.port, opts.ns);
  std::error_code ec;
  fs::create_directories(opts.dir + "/tsdb", ec);
  if (ec) return fail("metrics: cannot create {}/tsdb: {}", opts.dir, ec.message());
  std::string config = opts.dir + "/prometheus.yml";
  {
    std::ofstream f(config);
    f << prometheus_config(opts.targets, opts.scrape_interval_s);
    if (!f) return fail("metrics: cannot write {}", config);
  }
  std::unique_ptr<PrometheusServer> p(new PrometheusServer(opts));
  std::vector<std::string> argv = {opts.binary, "--config.file=" + config,
                                   "--storage.tsdb.path=" + opts.dir + "/tsdb",
                                   fmt::format("--web.listen-address=127.0.0.1:{}", opts.port)};
  FLOWLAB_ASSIGN_OR_RETURN(
      p->proc_, Process::spawn("prometheus", argv, in_ns(opts.ns), opts.dir + "/prometheus.log", opts.state));
  FLOWLAB_TRY(p->wait_ready());
  return p;
}

Result<json> PrometheusServer::api(const std::string& path, const std::string& query,
                                   double timeout_s) const {
  std::string url = fmt::format("http://{}/api/v1/{}{}{}", address(), path, query.empty() ? "" : "?", query);
  Result<coord::HttpReply> reply = fail("{}: not asked", url);
  FLOWLAB_TRY(run_in_netns(opts_.ns, [&] {
    coord::CurlSession http;
    reply = http.get(url, std::chrono::milliseconds(long(timeout_s * 1000)));
  }));
  if (!reply.ok()) return fail("metrics: {}", reply.error().message);
  auto data = prom_data(reply->body);
  if (!data.ok()) return fail("metrics: {} (HTTP {}): {}", url, reply->status, data.error().message);
  return data;
}

Result<json> PrometheusServer::query_range(const std::string& expr, double start, double end,
                                           double step) const {
  return api("query_range",
             fmt::format("query={}&start={:.3f}&end={:.3f}&step={}", coord::CurlSession::escape(expr), start,
                         end, prometheus_duration(step)));
}

Status PrometheusServer::wait_ready() {
  uint64_t deadline = monotonic_ns() + uint64_t(opts_.ready_timeout_s * 1e9);
  std::string why = "not answering";
  for (;;) {
    if (!proc_.running())
      return fail("metrics: prometheus exited (code {}); log {}: {}", proc_.exit_code(), proc_.log_path(),
                  proc_.log_tail(600));
    if (auto data = api("targets", "state=active", 2); data.ok()) {
      auto targets = prom_targets(*data);
      if (!targets.ok()) return fail("metrics: {}", targets.error().message);
      size_t up = 0;
      why.clear();
      for (const auto& t : *targets) {
        if (t.health == "up") {
          ++up;
          continue;
        }
        auto node = t.labels.find("node");
        why += fmt::format("{}{} {}{}", why.empty() ? "" : "; ", node == t.labels.end() ? "?" : node->second,
                           t.health, t.last_error.empty() ? "" : " (" + t.last_error + ")");
      }
      if (up == opts_.targets.size()) return ok_status();
      if (why.empty()) why = fmt::format("{} of {} targets known", targets->size(), opts_.targets.size());
    }
    if (monotonic_ns() > deadline)
      return fail("metrics: prometheus in {} has not scraped every target within {:.0f} s: {}", opts_.ns,
                  opts_.ready_timeout_s, why);
    if (!sleep_unless_interrupted(0.1)) return fail("interrupted");
  }
}

Status PrometheusServer::wait_scraped_after(double t, double timeout_s) const {
  uint64_t deadline = monotonic_ns() + uint64_t(timeout_s * 1e9);
  for (;;) {
    size_t after = 0;
    if (auto data = api("query", "query=" + coord::CurlSession::escape("timestamp(up)"), 2); data.ok())
      if (auto v = prom_vector(*data); v.ok())
        for (const auto& s : *v) after += s.v > t;
    if (after >= opts_.targets.size()) return ok_status();
    if (monotonic_ns() > deadline)
      return fail("metrics: {} of {} targets scraped after the tests within {:.0f} s", after,
                  opts_.targets.size(), timeout_s);
    if (!sleep_unless_interrupted(0.1)) return fail("interrupted");
  }
}

bool PrometheusServer::stop() {
  if (stopped_) return stopped_clean_;
  stopped_ = true;
  bool was_running = proc_.running();
  proc_.stop(30);
  stopped_clean_ = !was_running || proc_.exit_code() == 0;
  return stopped_clean_;
}

json PrometheusServer::record() const {
  json targets = json::array();
  for (const auto& t : opts_.targets)
    targets.push_back({{"job", t.job}, {"node", t.node}, {"address", t.address}});
  return {{"address", address()},
          {"namespace", opts_.ns},
          {"dir", opts_.dir},
          {"config", opts_.dir + "/prometheus.yml"},
          {"tsdb", opts_.dir + "/tsdb"},
          {"log", opts_.dir + "/prometheus.log"},
          {"scrape_interval_s", opts_.scrape_interval_s},
          {"targets", targets}};
}

}  // namespace flowlab::lab

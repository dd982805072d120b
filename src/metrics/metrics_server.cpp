// MetricsServer (see metrics_server.h).
#include "metrics/metrics_server.h"

#include <stdexcept>

namespace flowlab::metrics {

rest::HttpResponse MetricsServer::answer(const Registry& registry, std::string_view method,
                                         std::string_view path) {
  rest::HttpResponse r;
  r.content_type = "text/plain; charset=utf-8";
  if (path != "/metrics") {
    r.status = 404;
    r.body = "not found: metrics are at /metrics\n";
  } else if (method != "GET") {
    r.status = 405;
    r.body = "method not allowed: GET /metrics\n";
  } else {
    try {
      r.body = registry.scrape();
      r.content_type = std::string(kContentType);
    } catch (const CollectTimeout& e) {
      r.status = 503;
      r.body = std::string(e.what()) + "\n";
    }
  }
  return r;
}

MetricsServer::MetricsServer(const Registry& registry)
    : server_([&registry](std::string_view m, std::string_view p,
                          std::string_view) { return answer(registry, m, p); },
              "--metrics", "Prometheus metrics (GET /metrics)") {}

MetricsServer::~MetricsServer() { stop(); }

Status MetricsServer::start(const std::string& host_port) { return server_.start(host_port); }

void MetricsServer::stop() { server_.stop(); }

}  // namespace flowlab::metrics

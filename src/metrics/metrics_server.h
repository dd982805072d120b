// MetricsServer: GET /metrics on HOST:PORT (--metrics), the Registry's text
// format, on the REST API's HTTP/1.1 server (rest/http_server.h: Beast on one
// io thread, collectors called on its worker pool, 5 s timeouts, a client that
// goes away mid-answer only ends its own connection). Any other path answers 404, any other method 405; a
// collector that cannot read in time (a stuck agent thread) answers 503.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "metrics/registry.h"
#include "rest/http_server.h"

namespace flowlab::metrics {

class MetricsServer {
 public:
  explicit MetricsServer(const Registry& registry);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds now: a bad address or a port in use is an error here, naming --metrics.
  Status start(const std::string& host_port);
  uint16_t port() const { return server_.port(); }
  void stop();

  // The answer to one request (no sockets; tests).
  static rest::HttpResponse answer(const Registry& registry, std::string_view method, std::string_view path);

 private:
  rest::HttpServer server_;
};

// A collector that could not read in time throws this; the server answers 503.
struct CollectTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace flowlab::metrics

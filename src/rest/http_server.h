// HttpServer: puts a RestApi on HOST:PORT (flowlab controller --rest).
//
// Requests are parsed by Boost.Beast's parser (http_parse.h has what it takes
// and refuses); the sockets and threads are this server's own: an accept thread
// and a thread per connection (at most 64), blocking sockets with poll timeouts
// (5 s idle keep-alive, 5 s to finish a request). A connection's thread calls
// RestApi, which posts switch work to the controller's io_contexts and waits
// there (with a timeout), so a slow or dead switch or a slow HTTP client never
// holds up an OpenFlow event loop. It replaced Debian's cpp-httplib, whose shared
// library loads OpenSSL and Brotli and initialises OpenSSL in every flowlab
// process: 5 ms of each process start (docs/performance/lab-scale.md); Beast is
// header-only and loads nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/result.h"
#include "rest/api.h"

namespace flowlab::rest {

class HttpServer {
 public:
  // What answers a request: (method, path, body) -> response. RestApi::handle,
  // or /metrics (src/metrics/metrics_server.h) on the same server.
  using Handler = std::function<HttpResponse(std::string_view, std::string_view, std::string_view)>;

  explicit HttpServer(RestApi& api);
  // `option` names the server in errors ("--metrics 127.0.0.1:9 ..."), `what` in
  // the log line once it listens.
  HttpServer(Handler handler, std::string option, std::string what);
  ~HttpServer();  // stops
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // "HOST:PORT" ("127.0.0.1:8080", "[::1]:8080", ":0" = all addresses, any port).
  // Binds now (errors: bad address, port in use) and serves on its own thread.
  Status start(const std::string& host_port);
  uint16_t port() const { return port_; }
  // Idempotent; returns when the server thread has ended.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint16_t port_ = 0;
};

// Splits "HOST:PORT"; the port must be 0..65535, the host may be empty (all addresses).
// `option` names the flag in errors.
Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& s,
                                                         std::string_view option = "--rest");

}  // namespace flowlab::rest

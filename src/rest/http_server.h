// HttpServer: puts a RestApi on HOST:PORT (flowlab controller --rest), or any
// Handler (/metrics, src/metrics/metrics_server.h).
//
// Boost.Beast on Boost.Asio (both header-only; Boost.Asio is separate from the
// standalone asio of src/channel and never shares an io_context with it). The
// server owns one io thread, which accepts, reads and parses requests with
// Beast's parser (http_parse.h has what it takes and refuses), and a worker pool
// (rest/worker_pool.h: threads made on demand, at most 16) that calls the
// handler and sends its answer (the io thread writes what the socket did not
// take at once). RestApi posts switch work to the controller's io_contexts and
// waits there (with a timeout), so a slow or dead switch holds up a worker and
// its own connection, never the io thread, an OpenFlow event loop or another
// connection while workers are free. At most 64 connections: the 65th is
// answered 503 and closed. Keep-alive, pipelining, chunked bodies, `Expect:
// 100-continue`; a kept-alive connection idle for 5 s is closed, each read of a
// request begun must come within 5 s of the last (else 408), an answer the
// client does not take within 5 s is dropped. stop() waits for the handler
// calls running, drops those queued, closes every connection. It replaced
// Debian's cpp-httplib, whose shared library loads OpenSSL and Brotli and
// initialises OpenSSL in every flowlab process: 5 ms of each process start
// (docs/performance/lab-scale.md).
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
  // Binds now (errors: bad address, port in use) and serves on its own threads.
  Status start(const std::string& host_port);
  uint16_t port() const { return port_; }
  // Idempotent; returns when the server's threads have ended.
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

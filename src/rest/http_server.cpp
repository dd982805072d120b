// HttpServer (see http_server.h): cpp-httplib glue. Every path and method goes
// to RestApi; the library's own 404/500 pages are replaced by JSON errors.
#include "rest/http_server.h"

#include <httplib.h>

#include <thread>

#include "core/log.h"

namespace flowlab::rest {

struct HttpServer::Impl {
  httplib::Server server;
  std::thread thread;
};

Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& s) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return fail("--rest '{}': expected HOST:PORT, e.g. 127.0.0.1:8080", s);
  std::string host = s.substr(0, colon), port = s.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.find(':') != std::string::npos && s.front() != '[')
    return fail("--rest '{}': write an IPv6 address in brackets, e.g. [::1]:8080", s);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535)
    return fail("--rest '{}': port '{}' is not a number in 0..65535", s, port);
  if (host.empty()) host = "0.0.0.0";
  return std::pair{host, uint16_t(std::stoul(port))};
}

HttpServer::HttpServer(RestApi& api) : impl_(std::make_unique<Impl>()) {
  auto& srv = impl_->server;
  auto handler = [&api](const httplib::Request& req, httplib::Response& res) {
    HttpResponse r = api.handle(req.method, req.path, req.body);
    res.status = r.status;
    if (!r.body.empty()) res.set_content(r.body, "application/json");
  };
  for (auto reg : {&httplib::Server::Get, &httplib::Server::Post, &httplib::Server::Delete})
    (srv.*reg)(".*", handler);
  srv.Put(".*", httplib::Server::Handler(handler));
  srv.Patch(".*", httplib::Server::Handler(handler));
  srv.set_exception_handler([](const httplib::Request& req, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    log::warn("rest", "{} {}: {}", req.method, req.path, what);
    res.status = 500;
    res.set_content(nlohmann::json{{"error", what}, {"status", 500}}.dump(), "application/json");
  });
  srv.set_payload_max_length(1 << 20);
  srv.set_read_timeout(5, 0);
  srv.set_keep_alive_timeout(1);  // stop() waits for idle keep-alive connections at most this long
}

HttpServer::~HttpServer() { stop(); }

Status HttpServer::start(const std::string& host_port) {
  FLOWLAB_ASSIGN_OR_RETURN(auto hp, parse_host_port(host_port));
  auto& srv = impl_->server;
  int port = hp.second;
  if (port == 0) {
    port = srv.bind_to_any_port(hp.first);
    if (port < 0) return fail("--rest {}: cannot bind {}", host_port, hp.first);
  } else if (!srv.bind_to_port(hp.first, port)) {
    return fail("--rest {}: cannot bind {} port {} (in use, or not an address of this host)", host_port,
                hp.first, port);
  }
  port_ = uint16_t(port);
  impl_->thread = std::thread([&srv] { srv.listen_after_bind(); });
  // stop() before the accept loop runs would be lost; wait until it does.
  for (int i = 0; i < 2000 && !srv.is_running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  log::info("rest", "REST API on http://{}:{}/ (Ryu ofctl_rest and rest_topology endpoints, /v1/stats)",
            hp.first, port_);
  return {};
}

void HttpServer::stop() {
  if (!impl_->thread.joinable()) return;
  impl_->server.stop();
  impl_->thread.join();
}

}  // namespace flowlab::rest

// HttpServer (see http_server.h): a listening socket, an accept thread and a
// thread per connection, on blocking sockets with poll(2) timeouts. Every path and
// method goes to RestApi; errors of HTTP itself (http_parse.h) and exceptions
// answer JSON like the API's own: {"error": "...", "status": N}.
#include "rest/http_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>

#include "core/log.h"
#include "rest/http_parse.h"

namespace flowlab::rest {

namespace {

constexpr size_t kMaxConnections = 64;
constexpr int kIdleMs = 5000;     // a kept-alive connection with no request is closed after this
constexpr int kRequestMs = 5000;  // a request begun must be complete within this of its last byte
constexpr int kWriteMs = 5000;

std::string error_json(int status, std::string_view message) {
  return Json{{"error", message}, {"status", status}}.dump();
}

// Writes all of `s`; false if the peer is gone or stalls for kWriteMs (the
// connection's SO_SNDTIMEO: a blocked send then fails with EAGAIN).
bool write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    ssize_t n = ::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
    if (n > 0) {
      s.remove_prefix(size_t(n));
    } else if (n < 0 && errno != EINTR) {
      return false;
    }
  }
  return true;
}

}  // namespace

struct HttpServer::Impl {
  Impl(Handler h, std::string o, std::string w)
      : handler(std::move(h)), option(std::move(o)), what(std::move(w)) {}
  struct Connection {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };
  Handler handler;
  std::string option;                   // "--rest"
  std::string what;                     // for the log line
  std::string_view component() const {  // of log lines: "rest", "metrics"
    return std::string_view(option).substr(option.starts_with("--") ? 2 : 0);
  }
  int listen_fd = -1;
  int wake_fd = -1;  // eventfd: stop() wakes the accept thread
  std::thread accept_thread;
  std::mutex mu;
  std::list<Connection> connections;  // guarded by mu
  std::atomic<bool> stopping{false};

  void accept_loop();
  void serve(Connection& c);
  void reap(bool all);
};

void HttpServer::Impl::accept_loop() {
  for (;;) {
    pollfd p[2] = {{listen_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    int n = ::poll(p, 2, 1000);
    if (stopping) return;
    reap(false);
    if (n <= 0 || !(p[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    timeval send_timeout{kWriteMs / 1000, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    std::lock_guard lock(mu);
    if (connections.size() >= kMaxConnections) {
      write_all(fd, http_response(503, error_json(503, "too many connections"), false));
      ::close(fd);
      continue;
    }
    Connection& c = connections.emplace_back();
    c.fd = fd;
    c.thread = std::thread([this, &c] { serve(c); });
  }
}

// Joins the connections that have ended (all of them, after they were shut down,
// when `all`).
void HttpServer::Impl::reap(bool all) {
  std::list<Connection> ended;
  {
    std::lock_guard lock(mu);
    for (auto it = connections.begin(); it != connections.end();) {
      auto next = std::next(it);
      if (all || it->done) ended.splice(ended.end(), connections, it);
      it = next;
    }
  }
  for (auto& c : ended) {
    c.thread.join();
    ::close(c.fd);
  }
}

void HttpServer::Impl::serve(Connection& c) {
  std::string buf;
  bool sent_continue = false;
  char chunk[16384];
  while (!stopping) {
    HttpParsed req = parse_http_request(buf);
    if (req.error) {
      write_all(c.fd,
                http_response(req.error->status, error_json(req.error->status, req.error->message), false));
      break;
    }
    if (req.complete) {
      HttpResponse r;
      try {
        r = handler(req.request.method, req.request.path, req.request.body);
      } catch (const std::exception& e) {
        log::warn(component(), "{} {}: {}", req.request.method, req.request.path, e.what());
        r = {500, error_json(500, e.what())};
      }
      bool keep = req.request.keep_alive && !stopping;
      if (!write_all(c.fd, http_response(r.status, r.body, keep, r.content_type)) || !keep) break;
      buf.erase(0, req.consumed);
      sent_continue = false;
      continue;  // a pipelined request may be in the buffer already
    }
    if (req.expect_continue && !sent_continue) {
      if (!write_all(c.fd, "HTTP/1.1 100 Continue\r\n\r\n")) break;
      sent_continue = true;
    }
    pollfd p{c.fd, POLLIN, 0};
    int n = ::poll(&p, 1, buf.empty() ? kIdleMs : kRequestMs);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0 && !buf.empty())
        write_all(c.fd, http_response(408, error_json(408, "request incomplete"), false));
      break;
    }
    ssize_t got = ::recv(c.fd, chunk, sizeof chunk, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // closed by the client (or shut down by stop())
    buf.append(chunk, size_t(got));
  }
  ::shutdown(c.fd, SHUT_RDWR);
  c.done = true;
}

Result<std::pair<std::string, uint16_t>> parse_host_port(const std::string& s, std::string_view option) {
  size_t colon = s.rfind(':');
  if (colon == std::string::npos) return fail("{} '{}': expected HOST:PORT, e.g. 127.0.0.1:8080", option, s);
  std::string host = s.substr(0, colon), port = s.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.find(':') != std::string::npos && s.front() != '[')
    return fail("{} '{}': write an IPv6 address in brackets, e.g. [::1]:8080", option, s);
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(port) > 65535)
    return fail("{} '{}': port '{}' is not a number in 0..65535", option, s, port);
  if (host.empty()) host = "0.0.0.0";
  return std::pair{host, uint16_t(std::stoul(port))};
}

HttpServer::HttpServer(RestApi& api)
    : HttpServer(
          [&api](std::string_view m, std::string_view p, std::string_view b) { return api.handle(m, p, b); },
          "--rest", "REST API (Ryu ofctl_rest and rest_topology endpoints, /v1/stats)") {}

HttpServer::HttpServer(Handler handler, std::string option, std::string what)
    : impl_(std::make_unique<Impl>(std::move(handler), std::move(option), std::move(what))) {}

HttpServer::~HttpServer() {
  stop();
  if (impl_->listen_fd >= 0) ::close(impl_->listen_fd);
  if (impl_->wake_fd >= 0) ::close(impl_->wake_fd);
}

Status HttpServer::start(const std::string& host_port) {
  const std::string& opt = impl_->option;
  FLOWLAB_ASSIGN_OR_RETURN(auto hp, parse_host_port(host_port, opt));
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(hp.second);
  if (int rc = ::getaddrinfo(hp.first.c_str(), port_text.c_str(), &hints, &found); rc != 0)
    return fail("{} {}: cannot bind {}: {}", opt, host_port, hp.first, gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* a = found; a && impl_->listen_fd < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      impl_->listen_fd = fd;
    } else {
      why = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (impl_->listen_fd < 0)
    return fail("{} {}: cannot bind {} port {}: {} (in use, or not an address of this host)", opt, host_port,
                hp.first, hp.second, why);
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(impl_->listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  impl_->wake_fd = ::eventfd(0, EFD_CLOEXEC);
  if (impl_->wake_fd < 0) return fail("{} {}: eventfd: {}", opt, host_port, std::strerror(errno));
  impl_->accept_thread = std::thread([this] { impl_->accept_loop(); });
  log::info(impl_->component(), "{} on http://{}:{}/", impl_->what, hp.first, port_);
  return {};
}

void HttpServer::stop() {
  if (!impl_->accept_thread.joinable()) return;
  impl_->stopping = true;
  uint64_t one = 1;
  (void)!::write(impl_->wake_fd, &one, sizeof one);
  impl_->accept_thread.join();
  {
    std::lock_guard lock(impl_->mu);
    for (auto& c : impl_->connections) ::shutdown(c.fd, SHUT_RDWR);  // wakes their poll/recv
  }
  impl_->reap(true);
}

}  // namespace flowlab::rest

// HttpServer (see http_server.h): Boost.Beast sessions on Boost.Asio, one io
// thread, and a pool of worker threads for the handler. Every path and method
// goes to the handler; errors of HTTP itself (http_parse.h) and exceptions answer
// JSON like the API's own: {"error": "...", "status": N}.
//
// A session reads one request at a time: it waits up to kIdle for the first byte
// (blank lines before a request are skipped), then parses with
// http::async_read_some into a request_parser, each read within kRequest of the
// one before. A complete request goes to the worker pool, which calls the handler,
// sends what of the answer the socket takes at once and posts the rest back to the
// session's strand; the session writes it and reads the next request (a pipelined
// one may be in its buffer already). Answers are http_response()'s text: one
// asio::async_write for all of them, where Beast's http::async_write measured a
// 4x compile time for this file and the worker could not send the answer itself. While a
// handler runs nothing is read from that connection, so one connection has at
// most one job in the pool. Sessions live in the handlers of their pending
// operations: when a connection ends or the io_context is destroyed, so are they.
#include "rest/http_server.h"

#include <fcntl.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "core/log.h"
#include "rest/http_parse.h"
#include "rest/worker_pool.h"

namespace flowlab::rest {

namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr size_t kMaxConnections = 64;              // the 65th is answered 503 and closed
constexpr size_t kMaxWorkers = 16;                  // handler calls at once; more wait in the pool's queue
constexpr auto kIdle = std::chrono::seconds(5);     // a kept-alive connection with no request is closed
constexpr auto kRequest = std::chrono::seconds(5);  // each read of a request begun, from the last
constexpr auto kWrite = std::chrono::seconds(5);    // an answer the client does not take is dropped

std::string error_json(int status, std::string_view message) {
  return Json{{"error", message}, {"status", status}}.dump();
}

void set_cloexec(int fd) { ::fcntl(fd, F_SETFD, ::fcntl(fd, F_GETFD) | FD_CLOEXEC); }

// What sessions share: the handler, its workers, the count of connections.
struct ServerCore {
  ServerCore(HttpServer::Handler h, std::string o, std::string w)
      : handler(std::move(h)), option(std::move(o)), what(std::move(w)) {}
  HttpServer::Handler handler;
  std::string option;                   // "--rest"
  std::string what;                     // for the log line
  std::string_view component() const {  // of log lines: "rest", "metrics"
    return std::string_view(option).substr(option.starts_with("--") ? 2 : 0);
  }
  HttpLimits limits;
  WorkerPool workers{kMaxWorkers};
  std::atomic<size_t> connections{0};
  std::atomic<bool> stopping{false};

  HttpResponse call(const HttpRequest& req) const {
    try {
      return handler(req.method, req.path, req.body);
    } catch (const std::exception& e) {
      log::warn(component(), "{} {}: {}", req.method, req.path, e.what());
      return {500, error_json(500, e.what())};
    }
  }
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, ServerCore& server, bool counted)
      : stream_(std::move(socket)), server_(server), counted_(counted) {}
  ~HttpSession() {
    if (counted_) --server_.connections;
  }
  HttpSession(const HttpSession&) = delete;
  HttpSession& operator=(const HttpSession&) = delete;

  void start() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->wait_for_request(); });
  }
  void refuse_busy() {
    asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
      self->answer(503, error_json(503, "too many connections"), "application/json", false);
    });
  }

 private:
  void wait_for_request();
  void read_some();
  void on_read(beast::error_code ec);
  // What follows writing out_: the body of the request (after a 100 Continue),
  // the next request, or the end of the connection.
  enum class Then { read_body, next_request, close };
  // Writes out_ from byte `sent` on (what a worker sent already), then `then`.
  void write(size_t sent, Then then);
  void answer(int status, std::string_view body, std::string_view content_type, bool keep_alive) {
    out_ = http_response(status, body, keep_alive, content_type);
    write(0, keep_alive ? Then::next_request : Then::close);
  }
  void refuse(const HttpRefusal& r) {
    answer(r.status, error_json(r.status, r.message), "application/json", false);
  }
  void handle(HttpRequest req);
  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<HttpRequestParser> parser_;
  bool head_checked_ = false;
  std::string out_;  // the answer being written
  ServerCore& server_;
  bool counted_;
};

void HttpSession::wait_for_request() {
  // Blank lines before a request are allowed (RFC 9112 2.2).
  auto data = static_cast<const char*>(buffer_.data().data());
  size_t blank = 0;
  while (blank < buffer_.size() && (data[blank] == '\r' || data[blank] == '\n')) ++blank;
  buffer_.consume(blank);
  if (buffer_.size() == 0) {
    stream_.expires_after(kIdle);
    stream_.async_read_some(buffer_.prepare(4096),
                            [self = shared_from_this()](beast::error_code ec, size_t n) {
                              if (ec) return self->close();  // idle too long, or the client left
                              self->buffer_.commit(n);
                              self->wait_for_request();
                            });
    return;
  }
  parser_.emplace();
  configure_request_parser(*parser_, server_.limits);
  head_checked_ = false;
  read_some();
}

void HttpSession::read_some() {
  stream_.expires_after(kRequest);
  http::async_read_some(stream_, buffer_, *parser_,
                        [self = shared_from_this()](beast::error_code ec, size_t) { self->on_read(ec); });
}

void HttpSession::on_read(beast::error_code ec) {
  if (ec == beast::error::timeout) return refuse({408, "request incomplete"});
  if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == asio::error::eof ||
      ec == asio::error::connection_reset || ec == asio::error::operation_aborted)
    return close();  // the client left mid-request: nobody to answer
  if (ec) {
    std::string_view unparsed(static_cast<const char*>(buffer_.data().data()), buffer_.size());
    return refuse(refusal_of(ec, *parser_, server_.limits, unparsed));
  }
  if (parser_->is_header_done() && !head_checked_) {
    head_checked_ = true;
    bool expect_continue = false;
    if (auto r = check_request_head(*parser_, expect_continue)) return refuse(*r);
    if (expect_continue && !parser_->is_done()) {
      out_ = "HTTP/1.1 100 Continue\r\n\r\n";
      return write(0, Then::read_body);
    }
  }
  if (!parser_->is_done()) return read_some();
  HttpParsed p = take_request(*parser_);
  parser_.reset();
  if (p.error) return refuse(*p.error);
  handle(std::move(p.request));
}

// The handler blocks (RestApi waits for switches): it runs on a worker, never on
// the io thread. While it runs the session reads nothing and no operation of its
// socket is pending, so the worker may send the answer itself: what the socket
// takes at once (all of it but for big answers or a client that does not read)
// reaches the client without waiting for the io thread to wake; the io thread
// writes the rest, under the write timeout, and reads the next request.
void HttpSession::handle(HttpRequest req) {
  stream_.expires_never();
  server_.workers.post([self = shared_from_this(), req = std::move(req)] {
    HttpResponse r = self->server_.call(req);
    bool keep = req.keep_alive && !self->server_.stopping;
    std::string out = http_response(r.status, r.body, keep, r.content_type);
    size_t sent = 0;
    int fd = self->stream_.socket().native_handle();
    while (sent < out.size()) {
      ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n <= 0) break;  // full, or the client gone: the io thread's write finds out which
      sent += size_t(n);
    }
    asio::post(self->stream_.get_executor(), [self, out = std::move(out), sent, keep]() mutable {
      self->out_ = std::move(out);
      self->write(sent, keep ? Then::next_request : Then::close);
    });
  });
}

void HttpSession::write(size_t sent, Then then) {
  auto next = [self = shared_from_this(), then](beast::error_code ec, size_t) {
    if (ec || then == Then::close) return self->close();  // a client gone mid-answer ends only its connection
    if (then == Then::read_body) return self->read_some();
    self->wait_for_request();
  };
  if (sent == out_.size()) return next({}, 0);
  stream_.expires_after(kWrite);
  asio::async_write(stream_, asio::buffer(out_.data() + sent, out_.size() - sent), std::move(next));
}

}  // namespace

struct HttpServer::Impl : ServerCore {
  using ServerCore::ServerCore;
  std::optional<asio::io_context> io;
  std::optional<tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_retry;
  std::thread io_thread;

  void accept();
};

void HttpServer::Impl::accept() {
  acceptor->async_accept(asio::make_strand(*io), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors or the like: try again shortly rather than spin.
      log::warn(component(), "accept: {}", ec.message());
      accept_retry->expires_after(std::chrono::milliseconds(100));
      accept_retry->async_wait([this](beast::error_code wec) {
        if (!wec) accept();
      });
      return;
    }
    set_cloexec(socket.native_handle());
    bool room = connections.fetch_add(1) < kMaxConnections;
    if (!room) --connections;
    auto session = std::make_shared<HttpSession>(std::move(socket), *this, room);
    if (room) {
      session->start();
    } else {
      session->refuse_busy();
    }
    accept();
  });
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

HttpServer::~HttpServer() { stop(); }

Status HttpServer::start(const std::string& host_port) {
  Impl& s = *impl_;
  const std::string& opt = s.option;
  FLOWLAB_ASSIGN_OR_RETURN(auto hp, parse_host_port(host_port, opt));
  if (s.io) return fail("{} {}: the server is already started", opt, host_port);
  s.io.emplace(1);
  tcp::resolver resolver(*s.io);
  beast::error_code ec;
  auto found = resolver.resolve(hp.first, std::to_string(hp.second), tcp::resolver::passive, ec);
  if (ec) {
    s.io.reset();
    return fail("{} {}: cannot bind {}: {}", opt, host_port, hp.first, ec.message());
  }
  std::string why = "no address";
  for (const auto& entry : found) {
    tcp::acceptor a(*s.io);
    if (!a.open(entry.endpoint().protocol(), ec) && !a.set_option(tcp::acceptor::reuse_address(true), ec) &&
        !a.bind(entry.endpoint(), ec) && !a.listen(128, ec)) {
      s.acceptor.emplace(std::move(a));
      break;
    }
    why = ec.message();
  }
  if (!s.acceptor) {
    s.io.reset();
    return fail("{} {}: cannot bind {} port {}: {} (in use, or not an address of this host)", opt, host_port,
                hp.first, hp.second, why);
  }
  set_cloexec(s.acceptor->native_handle());
  port_ = s.acceptor->local_endpoint().port();
  s.accept_retry.emplace(*s.io);
  s.accept();
  s.io_thread = std::thread([&s] {
    try {
      s.io->run();
    } catch (const std::exception& e) {
      log::error(s.component(), "server stopped: {}", e.what());
    }
  });
  log::info(s.component(), "{} on http://{}:{}/", s.what, hp.first, port_);
  return {};
}

void HttpServer::stop() {
  Impl& s = *impl_;
  if (!s.io_thread.joinable()) return;
  s.stopping = true;
  s.io->stop();
  s.io_thread.join();
  // Handlers running are waited for (RestApi's own timeout bounds them); jobs not
  // begun are dropped with their sessions.
  s.workers.stop();
  s.accept_retry.reset();
  s.acceptor.reset();
  // Destroying the io_context destroys the handlers of the operations still
  // pending, and with them the sessions they hold: every connection is closed.
  s.io.reset();
}

}  // namespace flowlab::rest

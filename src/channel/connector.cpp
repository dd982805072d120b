// Connector: active connect with reconnect and exponential backoff.
#include "channel/connector.h"

#include <asio.hpp>

#include "channel/transport.h"
#include "core/log.h"

namespace flowlab::channel {

using asio::ip::tcp;

struct Connector::State : std::enable_shared_from_this<Connector::State> {
  State(asio::io_context& io) : io(io), resolver(io), timer(io) {}
  asio::io_context& io;
  tcp::resolver resolver;
  asio::steady_timer timer;
  Endpoint ep;
  ConnectionOptions opts;
  ConnectHandler on_connect;
  FailHandler on_fail;
  BackoffOptions backoff;
  std::shared_ptr<asio::ssl::context> tls_ctx;
  std::string tls_error;
  std::weak_ptr<Connection> current;
  std::shared_ptr<tcp::socket> connecting;
  bool stopped = false;
  uint64_t attempts = 0;
  std::chrono::milliseconds next_backoff{0};

  void attempt() {
    if (stopped) return;
    ++attempts;
    if (ep.tls && !tls_ctx) {
      retry(tls_error);
      return;
    }
    auto self = shared_from_this();
    resolver.async_resolve(
        ep.host, std::to_string(ep.port),
        [self](const asio::error_code& ec, const tcp::resolver::results_type& res) {
          if (self->stopped) return;
          if (ec) {
            self->retry(fmt::format("cannot resolve '{}': {}", self->ep.host, ec.message()));
            return;
          }
          self->connect(res);
        });
  }

  void connect(const tcp::resolver::results_type& res) {
    auto self = shared_from_this();
    connecting = std::make_shared<tcp::socket>(io);
    asio::async_connect(
        *connecting, res, [self, sock = connecting](const asio::error_code& ec, const tcp::endpoint&) {
          self->connecting.reset();
          if (self->stopped) return;
          if (ec) {
            self->retry(
                fmt::format("connect to {}:{} failed: {}", self->ep.host, self->ep.port, ec.message()),
                ec == asio::error::connection_refused);
            return;
          }
          if (!self->tls_ctx) {
            self->connected(make_connection(std::move(*sock), self->opts));
            return;
          }
          auto stream = std::make_unique<TlsStream>(std::move(*sock), *self->tls_ctx);
          auto* s = stream.get();
          s->async_handshake(asio::ssl::stream_base::client, [self, stream = std::move(stream)](
                                                                 const asio::error_code& ec) mutable {
            if (self->stopped) return;
            if (ec) {
              self->retry(fmt::format("TLS handshake with {}:{} failed: {}", self->ep.host, self->ep.port,
                                      ec.message()));
              return;
            }
            self->connected(make_tls_connection(self->tls_ctx, std::move(stream), self->opts));
          });
        });
  }

  void connected(const ConnectionPtr& c) {
    current = c;
    std::weak_ptr<State> weak = shared_from_this();
    c->add_close_observer([weak](const std::string& reason, bool was_ready) {
      auto self = weak.lock();
      if (!self || self->stopped) return;
      if (was_ready) self->next_backoff = std::chrono::milliseconds(0);
      self->retry(reason);
    });
    on_connect(c);
  }

  void retry(const std::string& reason, bool refused = false) {
    if (stopped) return;
    if (!backoff.reconnect) {
      if (on_fail) on_fail(reason, std::chrono::milliseconds(-1));
      return;
    }
    auto wait = next_backoff.count() == 0 ? backoff.initial : std::min(next_backoff * 2, backoff.max);
    if (refused) wait = std::min(wait, backoff.refused_max);
    next_backoff = wait;
    if (on_fail) on_fail(reason, wait);
    timer.expires_after(wait);
    timer.async_wait([self = shared_from_this()](const asio::error_code& ec) {
      if (!ec) self->attempt();
    });
  }
};

Connector::Connector(asio::io_context& io, Endpoint ep, ConnectionOptions opts, ConnectHandler on_connect,
                     BackoffOptions backoff, const TlsConfig& tls, FailHandler on_fail)
    : s_(std::make_shared<State>(io)) {
  s_->ep = std::move(ep);
  s_->opts = std::move(opts);
  s_->on_connect = std::move(on_connect);
  s_->on_fail = std::move(on_fail);
  s_->backoff = backoff;
  if (s_->ep.tls) {
    auto ctx = make_tls_context(tls, false);
    if (ctx.ok())
      s_->tls_ctx = *ctx;
    else
      s_->tls_error = ctx.error().message;
  }
}

Connector::~Connector() {
  // asio's cancel() and a handler run by abort() may throw; a destructor must not.
  try {
    stop();
  } catch (const std::exception& e) {
    log::warn("channel", "stopping a connector: {}", e.what());
  }
}

void Connector::start() {
  s_->stopped = false;
  s_->attempt();
}

void Connector::stop() {
  if (s_->stopped) return;
  s_->stopped = true;
  s_->timer.cancel();
  s_->resolver.cancel();
  if (s_->connecting) {
    asio::error_code ec;
    s_->connecting->close(ec);
  }
  if (auto c = s_->current.lock()) c->abort("connector stopped");
}

void Connector::release() {
  s_->current.reset();
  stop();
}

uint64_t Connector::attempts() const { return s_->attempts; }
std::chrono::milliseconds Connector::current_backoff() const { return s_->next_backoff; }

Result<ConnectionPtr> connect_blocking(asio::io_context& io, const Endpoint& ep, ConnectionOptions opts,
                                       std::chrono::milliseconds timeout, Connection::Handlers handlers,
                                       const TlsConfig& tls) {
  if (ep.passive)
    return fail("'{}' is a listening endpoint; expected tcp:HOST:PORT or ssl:HOST:PORT", ep.to_string());
  ConnectionPtr conn;
  std::string error;
  bool done = false;
  auto user_ready = handlers.on_ready;
  Connector connector(
      io, ep, std::move(opts),
      [&](const ConnectionPtr& c) {
        Connection::Handlers h = handlers;
        h.on_ready = [&, user_ready](Connection& cc) {
          conn = cc.shared_from_this();
          done = true;
          if (user_ready) user_ready(cc);
        };
        auto user_close = handlers.on_close;
        h.on_close = [&, user_close](Connection& cc, const std::string& reason) {
          if (!done) {
            error = reason;
            done = true;
          }
          if (user_close) user_close(cc, reason);
        };
        c->set_handlers(std::move(h));
        c->start();
      },
      BackoffOptions{.reconnect = false}, tls,
      [&](const std::string& reason, std::chrono::milliseconds) {
        if (!done) {
          error = reason;
          done = true;
        }
      });
  connector.start();
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
  }
  if (!conn) {
    connector.stop();
    io.restart();
    io.poll();
    if (error.empty())
      error = fmt::format("no OpenFlow HELLO from {}:{} within {} ms", ep.host, ep.port, timeout.count());
    return fail("{}", error);
  }
  connector.release();
  conn->set_handlers(std::move(handlers));  // drop the handlers that refer to this frame
  return conn;
}

}  // namespace flowlab::channel

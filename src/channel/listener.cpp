// Listener: binds at open() (errors such as "port in use" surface there), accepts
// after start(), optionally completes a TLS handshake, then hands the connection on.
#include "channel/listener.h"

#include <asio.hpp>

#include "channel/transport.h"
#include "core/log.h"

namespace flowlab::channel {

using asio::ip::tcp;

struct Listener::State : std::enable_shared_from_this<Listener::State> {
  State(asio::io_context& io) : io(io), acceptor(io) {}
  asio::io_context& io;
  tcp::acceptor acceptor;
  ConnectionOptions opts;
  AcceptHandler on_accept;
  ContextPicker pick;
  std::shared_ptr<asio::ssl::context> tls_ctx;
  bool open = true;

  void accept() {
    asio::io_context& target = pick ? pick() : io;
    acceptor.async_accept(target, [self = shared_from_this()](const asio::error_code& ec, tcp::socket sock) {
      if (!self->open || ec == asio::error::operation_aborted) return;
      if (ec) {
        log::warn("channel", "accept failed: {}", ec.message());
      } else if (self->tls_ctx) {
        auto stream = std::make_unique<TlsStream>(std::move(sock), *self->tls_ctx);
        auto* s = stream.get();
        s->async_handshake(asio::ssl::stream_base::server, [self, stream = std::move(stream)](
                                                               const asio::error_code& ec) mutable {
          if (ec) {
            log::warn("channel", "TLS handshake failed: {}", ec.message());
            return;
          }
          if (!self->open) return;
          self->on_accept(make_tls_connection(self->tls_ctx, std::move(stream), self->opts));
        });
      } else {
        self->on_accept(make_connection(std::move(sock), self->opts));
      }
      self->accept();
    });
  }
};

Result<std::unique_ptr<Listener>> Listener::open(asio::io_context& io, const Endpoint& ep,
                                                 ConnectionOptions opts, AcceptHandler on_accept,
                                                 const TlsConfig& tls, ContextPicker pick) {
  if (!ep.passive)
    return fail("'{}' is not a listening endpoint (use ptcp:PORT or pssl:PORT)", ep.to_string());
  auto s = std::make_shared<State>(io);
  s->opts = std::move(opts);
  s->on_accept = std::move(on_accept);
  s->pick = std::move(pick);
  if (ep.tls) {
    FLOWLAB_ASSIGN_OR_RETURN(s->tls_ctx, make_tls_context(tls, true));
  }
  asio::error_code ec;
  auto addr = asio::ip::make_address(ep.host, ec);
  if (ec) return fail("bad listen address '{}': {}", ep.host, ec.message());
  tcp::endpoint tep(addr, ep.port);
  s->acceptor.open(tep.protocol(), ec);
  if (!ec) s->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) s->acceptor.bind(tep, ec);
  if (!ec) s->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("cannot listen on {}:{}: {}", ep.host, ep.port, ec.message());
  return std::unique_ptr<Listener>(new Listener(std::move(s)));
}

Listener::Listener(std::shared_ptr<State> s) : s_(std::move(s)) {}
Listener::~Listener() { close(); }

void Listener::start() { s_->accept(); }

void Listener::close() {
  if (!s_->open) return;
  s_->open = false;
  asio::error_code ec;
  s_->acceptor.close(ec);
}

uint16_t Listener::port() const {
  asio::error_code ec;
  auto ep = s_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

}  // namespace flowlab::channel

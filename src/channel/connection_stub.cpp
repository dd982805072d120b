// Temporary link stub for the channel API (replaced by the implementation).
#include "channel/connection.h"
#include "channel/connector.h"
#include "channel/listener.h"
#include "channel/transport.h"

namespace flowlab::channel {

class Connection::Impl {
 public:
  ConnectionOptions opts;
  ConnectionStats stats;
  std::string peer;
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() = default;
void Connection::set_handlers(Handlers) {}
void Connection::start() {}
Result<uint32_t> Connection::send(of::Message) { return fail("channel: not implemented yet"); }
Status Connection::send_raw(ByteSpan) { return fail("channel: not implemented yet"); }
void Connection::post_send(of::Message) {}
void Connection::close(const std::string&) {}
void Connection::abort(const std::string&) {}
void Connection::add_close_observer(std::function<void(const std::string&, bool)>) {}
uint32_t Connection::next_xid() { return 1; }
uint8_t Connection::version() const { return 0; }
bool Connection::ready() const { return false; }
bool Connection::is_open() const { return false; }
bool Connection::congested() const { return false; }
size_t Connection::queued_bytes() const { return 0; }
const ConnectionStats& Connection::stats() const { return impl_->stats; }
const std::string& Connection::peer() const { return impl_->peer; }
const ConnectionOptions& Connection::options() const { return impl_->opts; }

struct Listener::State {};
Result<std::unique_ptr<Listener>> Listener::open(asio::io_context&, const Endpoint&, ConnectionOptions,
                                                 AcceptHandler, const TlsConfig&, ContextPicker) {
  return fail("channel: not implemented yet");
}
Listener::Listener(std::shared_ptr<State> s) : s_(std::move(s)) {}
Listener::~Listener() = default;
void Listener::start() {}
void Listener::close() {}
uint16_t Listener::port() const { return 0; }

struct Connector::State {};
Connector::Connector(asio::io_context&, Endpoint, ConnectionOptions, ConnectHandler, BackoffOptions,
                     TlsConfig, FailHandler) {}
Connector::~Connector() = default;
void Connector::start() {}
void Connector::stop() {}
uint64_t Connector::attempts() const { return 0; }
std::chrono::milliseconds Connector::current_backoff() const { return {}; }

Result<ConnectionPtr> connect_blocking(asio::io_context&, const Endpoint&, ConnectionOptions,
                                       std::chrono::milliseconds, Connection::Handlers, const TlsConfig&) {
  return fail("channel: not implemented yet");
}
ConnectionPtr make_connection(asio::ip::tcp::socket, ConnectionOptions) { return nullptr; }
ConnectionPtr make_tls_connection(std::shared_ptr<asio::ssl::context>, std::unique_ptr<TlsStream>,
                                  ConnectionOptions) {
  return nullptr;
}
Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const TlsConfig&, bool) {
  return fail("channel: not implemented yet");
}

}  // namespace flowlab::channel

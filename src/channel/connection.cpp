// Connection: HELLO negotiation, framing, echo/keepalive, coalesced writes.
// The design of the write path is in connection.h.
#include "channel/connection.h"

#include <algorithm>
#include <asio.hpp>
#include <asio/ssl.hpp>
#include <variant>

#include "channel/transport.h"
#include "core/clock.h"
#include "core/log.h"
#include "openflow/codec.h"
#include "openflow/framing.h"

namespace flowlab::channel {

using asio::ip::tcp;

namespace {

constexpr uint8_t kTypeHello = 0, kTypeError = 1, kTypeEchoRequest = 2, kTypeEchoReply = 3;
constexpr size_t kReadChunk = 64 * 1024;

void put_header(Bytes& b, uint8_t version, uint8_t type, uint16_t len, uint32_t xid) {
  size_t o = b.size();
  b.resize(o + 8);
  b[o] = version;
  b[o + 1] = type;
  store_be16(&b[o + 2], len);
  store_be32(&b[o + 4], xid);
}

// OFPT_ERROR has the same layout in OF1.0 and OF1.3 (type, code, data).
Bytes encode_error_raw(uint8_t version, uint16_t type, uint16_t code, uint32_t xid, ByteSpan data) {
  Bytes b;
  size_t n = std::min<size_t>(data.size(), 64);
  put_header(b, version, kTypeError, uint16_t(12 + n), xid);
  b.resize(12);
  store_be16(&b[8], type);
  store_be16(&b[10], code);
  b.insert(b.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
  return b;
}

// HELLO parsed by hand: a peer may speak versions our codec does not decode.
of::Message parse_hello(ByteSpan raw) {
  of::Hello h;
  ByteReader r(raw.subspan(std::min<size_t>(raw.size(), of::kHeaderLen)));
  while (r.remaining() >= 4) {
    uint16_t type = 0, len = 0;
    r.u16(type);
    r.u16(len);
    if (len < 4 || size_t(len - 4) > r.remaining()) break;
    of::HelloElement el;
    el.type = type;
    ByteSpan body;
    r.bytes(len - 4, body);
    if (type == static_cast<uint16_t>(of::HelloElemType::kVersionBitmap)) {
      for (size_t i = 0; i + 4 <= body.size(); i += 4) el.bitmaps.push_back(load_be32(&body[i]));
    } else {
      el.data.assign(body.begin(), body.end());
    }
    h.elements.push_back(std::move(el));
    r.skip(std::min<size_t>((8 - len % 8) % 8, r.remaining()));
  }
  return of::make_message(raw[0], load_be32(&raw[4]), std::move(h));
}

}  // namespace

class Connection::Impl {
 public:
  Impl(tcp::socket s, ConnectionOptions o)
      : sock(std::move(s)),
        ex(std::get<tcp::socket>(sock).get_executor()),
        echo_timer(ex),
        hello_timer(ex),
        close_timer(ex),
        opts(std::move(o)) {
    init();
  }
  Impl(std::shared_ptr<asio::ssl::context> c, std::unique_ptr<TlsStream> s, ConnectionOptions o)
      : sock(std::move(s)),
        ex(std::get<1>(sock)->get_executor()),
        echo_timer(ex),
        hello_timer(ex),
        close_timer(ex),
        opts(std::move(o)),
        tls_ctx(std::move(c)) {
    init();
  }

  tcp::socket& lowest() {
    if (auto* t = std::get_if<tcp::socket>(&sock)) return *t;
    return std::get<1>(sock)->next_layer();
  }
  template <typename F>
  void with_stream(F&& f) {
    if (auto* t = std::get_if<tcp::socket>(&sock))
      f(*t);
    else
      f(*std::get<1>(sock));
  }

  void init() {
    asio::error_code ec;
    lowest().set_option(tcp::no_delay(true), ec);
    auto rep = lowest().remote_endpoint(ec);
    peer = ec ? std::string("?") : fmt::format("{}:{}", rep.address().to_string(), rep.port());
    for (uint8_t v : opts.versions) {
      if (v < 32) bitmap |= uint32_t{1} << v;
      highest = std::max(highest, v);
    }
    read_buf.resize(kReadChunk);
  }

  std::variant<tcp::socket, std::unique_ptr<TlsStream>> sock;
  asio::any_io_executor ex;
  asio::steady_timer echo_timer, hello_timer, close_timer;
  ConnectionOptions opts;
  std::shared_ptr<asio::ssl::context> tls_ctx;  // outlives the TLS stream
  ConnectionStats stats;
  std::string peer;
  Handlers handlers;
  std::vector<std::function<void(const std::string&, bool)>> close_observers;

  uint32_t bitmap = 0;
  uint8_t highest = 0;
  std::atomic<uint8_t> version{0};
  std::atomic<uint32_t> xid{1};
  bool started = false, hello_done = false, closing = false, closed = false, was_ready = false;
  std::string close_reason;

  of::StreamFramer framer;
  Bytes read_buf;
  Bytes pending, inflight;
  bool writing = false, flush_posted = false;
  bool reading = false, read_paused = false;  // a read is in flight / stopped by back-pressure

  uint64_t last_rx_ns = 0;
  uint32_t echo_xid = 0;
  uint64_t echo_sent_ns = 0;
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Connection::~Connection() {
  asio::error_code ec;
  impl_->lowest().close(ec);
}

void Connection::set_handlers(Handlers h) { impl_->handlers = std::move(h); }
void Connection::add_close_observer(std::function<void(const std::string&, bool)> fn) {
  impl_->close_observers.push_back(std::move(fn));
}

uint32_t Connection::next_xid() {
  uint32_t x = impl_->xid.fetch_add(1, std::memory_order_relaxed);
  if (x == 0) x = impl_->xid.fetch_add(1, std::memory_order_relaxed);
  return x;
}
uint8_t Connection::version() const { return impl_->version.load(std::memory_order_relaxed); }
bool Connection::ready() const { return impl_->hello_done && !impl_->closing && !impl_->closed; }
bool Connection::is_open() const { return !impl_->closed; }
size_t Connection::queued_bytes() const { return impl_->stats.bytes_queued.load(std::memory_order_relaxed); }
bool Connection::congested() const { return queued_bytes() > impl_->opts.congestion_bytes; }
const ConnectionStats& Connection::stats() const { return impl_->stats; }
const std::string& Connection::peer() const { return impl_->peer; }
const ConnectionOptions& Connection::options() const { return impl_->opts; }

// ---- start, HELLO, keepalive ---------------------------------------------------

namespace {

void arm_hello_timer(const ConnectionPtr& self);
void arm_echo_timer(const ConnectionPtr& self);
void start_read(const ConnectionPtr& self);
void queue_bytes(Connection& c, ByteSpan b, bool internal);

}  // namespace

void Connection::start() {
  Impl& d = *impl_;
  if (d.started) return;
  d.started = true;
  d.last_rx_ns = monotonic_ns();
  // Our HELLO, encoded by hand so it does not depend on a codec for `highest`.
  Bytes hello;
  bool elements = d.highest >= of::kOf13;
  put_header(hello, d.highest, kTypeHello, elements ? 16 : 8, 0);
  if (elements) {
    hello.resize(16);
    store_be16(&hello[8], static_cast<uint16_t>(of::HelloElemType::kVersionBitmap));
    store_be16(&hello[10], 8);
    store_be32(&hello[12], d.bitmap);
  }
  queue_bytes(*this, hello, true);
  auto self = shared_from_this();
  arm_hello_timer(self);
  arm_echo_timer(self);
  start_read(self);
}

namespace {

void arm_hello_timer(const ConnectionPtr& self) {
  auto& d = self->impl();
  if (d.opts.hello_timeout.count() <= 0) return;
  d.hello_timer.expires_after(d.opts.hello_timeout);
  d.hello_timer.async_wait([self](const asio::error_code& ec) {
    if (ec || self->impl().hello_done || self->impl().closed) return;
    self->abort(fmt::format("no HELLO from the peer within {} ms", self->impl().opts.hello_timeout.count()));
  });
}

void arm_echo_timer(const ConnectionPtr& self) {
  auto& d = self->impl();
  auto iv = d.opts.echo_interval, dead = d.opts.dead_peer_timeout;
  if (iv.count() <= 0 && dead.count() <= 0) return;
  std::chrono::milliseconds tick = iv.count() > 0 ? iv : dead;
  if (dead.count() > 0) tick = std::min(tick, std::max(dead / 4, std::chrono::milliseconds(10)));
  d.echo_timer.expires_after(tick);
  d.echo_timer.async_wait([self](const asio::error_code& ec) {
    auto& d = self->impl();
    if (ec || d.closed || d.closing) return;
    uint64_t now = monotonic_ns();
    auto idle_ms = int64_t((now - d.last_rx_ns) / 1000000);
    if (d.opts.dead_peer_timeout.count() > 0 && idle_ms >= d.opts.dead_peer_timeout.count()) {
      // Silence of our own making is not a dead peer: reading stopped by our
      // back-pressure, or bytes waiting in the socket that a busy loop has
      // not read yet (a controller under a flood from 1,000 switches).
      asio::error_code aec;
      size_t unread = d.lowest().available(aec);
      if (!d.read_paused && (aec || unread == 0)) {
        self->abort(fmt::format("peer dead: nothing received for {} ms", idle_ms));
        return;
      }
    }
    if (d.hello_done && d.opts.echo_interval.count() > 0 && idle_ms >= d.opts.echo_interval.count() &&
        (d.echo_xid == 0 || int64_t((now - d.echo_sent_ns) / 1000000) >= d.opts.echo_interval.count())) {
      Bytes echo;
      d.echo_xid = self->next_xid();
      d.echo_sent_ns = now;
      put_header(echo, d.version, kTypeEchoRequest, 8, d.echo_xid);
      d.stats.echo_sent++;
      queue_bytes(*self, echo, true);
    }
    arm_echo_timer(self);
  });
}

void finish_close(const ConnectionPtr& self, const std::string& reason) {
  auto& d = self->impl();
  if (d.closed) return;
  d.closed = true;
  d.closing = true;
  d.close_reason = reason;
  d.echo_timer.cancel();
  d.hello_timer.cancel();
  d.close_timer.cancel();
  asio::error_code ec;
  d.lowest().shutdown(tcp::socket::shutdown_both, ec);
  d.lowest().close(ec);
  d.stats.bytes_queued = 0;
  Connection::Handlers h = std::move(d.handlers);
  d.handlers = {};
  auto observers = std::move(d.close_observers);
  d.close_observers.clear();
  if (h.on_close) h.on_close(*self, reason);
  for (auto& o : observers) o(reason, d.was_ready);
}

// ---- write path ------------------------------------------------------------------

void start_write(const ConnectionPtr& self) {
  auto& d = self->impl();
  if (d.writing || d.pending.empty() || d.closed) return;
  std::swap(d.pending, d.inflight);
  d.writing = true;
  d.stats.writes++;
  d.with_stream([&](auto& stream) {
    asio::async_write(stream, asio::buffer(d.inflight), [self](const asio::error_code& ec, size_t n) {
      auto& d = self->impl();
      d.writing = false;
      d.stats.bytes_tx += n;
      d.stats.bytes_queued -= std::min<uint64_t>(d.stats.bytes_queued, d.inflight.size());
      d.inflight.clear();
      if (d.closed) return;
      if (ec) {
        finish_close(self, fmt::format("write failed: {}", ec.message()));
        return;
      }
      if (d.read_paused && !d.closing && d.stats.bytes_queued <= d.opts.pause_read_bytes) {
        d.read_paused = false;
        start_read(self);
      }
      if (!d.pending.empty()) {
        start_write(self);
      } else if (d.closing) {
        finish_close(self, d.close_reason);
      }
    });
  });
}

void queue_bytes(Connection& c, ByteSpan b, bool internal) {
  auto& d = c.impl();
  d.pending.insert(d.pending.end(), b.begin(), b.end());
  uint64_t q = d.stats.bytes_queued += b.size();
  if (q > d.stats.high_water) d.stats.high_water = q;
  if (!internal) d.stats.msgs_tx++;
  // Flush at the end of this handler turn, so every message queued in the same
  // turn goes out in one write.
  if (!d.writing && !d.flush_posted) {
    d.flush_posted = true;
    asio::post(d.ex, [self = c.shared_from_this()] {
      self->impl().flush_posted = false;
      start_write(self);
    });
  }
}

// ---- read path -------------------------------------------------------------------

void reply_error_raw(Connection& c, uint16_t type, uint16_t code, ByteSpan request) {
  auto& d = c.impl();
  uint32_t xid = request.size() >= 8 ? load_be32(&request[4]) : 0;
  uint8_t v = d.version ? d.version.load() : d.highest;
  Bytes b = encode_error_raw(v, type, code, xid, request);
  queue_bytes(c, b, true);
}

// Returns false when the connection must stop reading.
bool handle_message(const ConnectionPtr& self, ByteSpan raw) {
  auto& d = self->impl();
  d.stats.msgs_rx++;
  uint8_t type = raw[1];
  if (!d.hello_done) {
    if (type != kTypeHello) {
      // OF1.3 6.3.1: the first message must be HELLO.
      reply_error_raw(*self, 0 /*HELLO_FAILED*/, 0 /*INCOMPATIBLE*/, raw);
      self->close(fmt::format("expected HELLO, got message type {}", type));
      return false;
    }
    of::Message hello = parse_hello(raw);
    uint8_t v = of::negotiate_version(d.bitmap, hello);
    if (v == 0) {
      std::string text =
          fmt::format("no common OpenFlow version: we speak bitmap 0x{:x}, peer hello version 0x{:02x}",
                      d.bitmap, raw[0]);
      Bytes b = encode_error_raw(std::min(raw[0], d.highest), 0, 0, load_be32(&raw[4]),
                                 ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
      // Error data is text here (OF1.3 6.3.1), not the request; encode_error_raw caps at 64 bytes.
      queue_bytes(*self, b, true);
      self->close(text);
      return false;
    }
    d.version = v;
    d.hello_done = true;
    d.was_ready = true;
    d.hello_timer.cancel();
    if (d.handlers.on_ready) d.handlers.on_ready(*self);
    return !d.closing;
  }
  if (raw[0] != d.version) {
    if (type != kTypeError && type != kTypeHello)
      reply_error_raw(*self, 1 /*BAD_REQUEST*/, 0 /*BAD_VERSION*/, raw);
    d.stats.decode_errors++;
    return true;
  }
  if (type == kTypeEchoRequest) {
    Bytes reply(raw.begin(), raw.end());
    reply[1] = kTypeEchoReply;
    queue_bytes(*self, reply, true);
    return true;
  }
  if (type == kTypeEchoReply && d.echo_xid != 0 && load_be32(&raw[4]) == d.echo_xid) {
    d.stats.echo_answered++;
    d.stats.last_echo_rtt_ns = monotonic_ns() - d.echo_sent_ns;
    d.echo_xid = 0;
    return true;
  }
  if (type == kTypeHello) return true;  // a repeated HELLO is harmless
  auto msg = of::decode_message(raw);
  if (!msg.ok()) {
    d.stats.decode_errors++;
    log::debug("channel", "{}: malformed message from {}: {}", d.opts.name, d.peer, msg.error().to_string());
    if (type == kTypeError) return true;  // never answer an error with an error
    of::Message reply = of::make_error_reply(msg.error(), raw);
    reply.version = d.version;
    auto wire = of::encode_message(reply);
    if (wire.ok()) {
      queue_bytes(*self, *wire, true);
    } else {
      uint16_t wt = static_cast<uint16_t>(msg.error().type), wc = msg.error().code;
      if (d.version == of::kOf10) of::error_to_of10(msg.error().type, msg.error().code, wt, wc);
      reply_error_raw(*self, wt, wc, raw);
    }
    return true;
  }
  if (d.handlers.on_message) d.handlers.on_message(*self, *msg, raw);
  return !d.closed;
}

void start_read(const ConnectionPtr& self) {
  auto& d = self->impl();
  if (d.reading || d.closed) return;
  d.reading = true;
  d.with_stream([&](auto& stream) {
    stream.async_read_some(asio::buffer(d.read_buf), [self](const asio::error_code& ec, size_t n) {
      auto& d = self->impl();
      d.reading = false;
      if (d.closed) return;
      if (ec) {
        finish_close(self, ec == asio::error::eof ? std::string("peer closed the connection")
                                                  : fmt::format("read failed: {}", ec.message()));
        return;
      }
      d.stats.bytes_rx += n;
      d.last_rx_ns = monotonic_ns();
      d.framer.append(ByteSpan(d.read_buf.data(), n));
      for (;;) {
        ByteSpan msg;
        auto st = d.framer.next(msg);
        if (st == of::StreamFramer::State::kNeedMore) break;
        if (st == of::StreamFramer::State::kError) {
          d.stats.decode_errors++;
          finish_close(self, fmt::format("framing error: {}", d.framer.error().message));
          return;
        }
        if (!handle_message(self, msg)) break;
      }
      if (d.closed) return;
      // Back-pressure (see connection.h): resumed by the write completion.
      if (d.writing && d.stats.bytes_queued > d.opts.pause_read_bytes)
        d.read_paused = true;
      else
        start_read(self);
    });
  });
}

}  // namespace

// ---- sending, closing -----------------------------------------------------------

Result<uint32_t> Connection::send(of::Message msg) {
  Impl& d = *impl_;
  if (d.closed || d.closing) return fail("connection to {} is closed", d.peer);
  if (!d.hello_done) return fail("connection to {} is not ready (HELLO not exchanged)", d.peer);
  msg.version = d.version;
  if (msg.xid == 0) msg.xid = next_xid();
  auto wire = of::encode_message(msg);
  if (!wire.ok())
    return fail("cannot encode {} for OpenFlow 0x{:02x}: {}", of::to_string(msg.type()), d.version.load(),
                wire.error().to_string());
  if (d.stats.bytes_queued + wire->size() > d.opts.max_queued_bytes) {
    d.stats.msgs_refused++;
    return fail("output queue to {} full ({} bytes queued)", d.peer, d.stats.bytes_queued.load());
  }
  queue_bytes(*this, *wire, false);
  return msg.xid;
}

Status Connection::send_raw(ByteSpan wire) {
  Impl& d = *impl_;
  if (d.closed || d.closing) return fail("connection to {} is closed", d.peer);
  if (d.stats.bytes_queued + wire.size() > d.opts.max_queued_bytes) {
    d.stats.msgs_refused++;
    return fail("output queue to {} full ({} bytes queued)", d.peer, d.stats.bytes_queued.load());
  }
  queue_bytes(*this, wire, false);
  return {};
}

void Connection::post_send(of::Message msg) {
  uint8_t v = version();
  if (v == 0) {
    impl_->stats.msgs_refused++;
    return;
  }
  msg.version = v;
  if (msg.xid == 0) msg.xid = next_xid();
  auto wire = of::encode_message(msg);
  if (!wire.ok()) {
    log::warn("channel", "{}: cannot encode {}: {}", impl_->opts.name, of::to_string(msg.type()),
              wire.error().to_string());
    return;
  }
  asio::post(impl_->ex, [self = shared_from_this(), b = std::move(*wire)] {
    auto st = self->send_raw(b);
    (void)st;  // refused sends are counted in stats
  });
}

void Connection::post(std::function<void()> fn) { asio::post(impl_->ex, std::move(fn)); }

void Connection::close(const std::string& reason) {
  Impl& d = *impl_;
  if (d.closed || d.closing) return;
  d.closing = true;
  d.close_reason = reason;
  auto self = shared_from_this();
  if (!d.writing && d.pending.empty()) {
    // Let a flush posted in this turn run first.
    asio::post(d.ex, [self] {
      if (!self->impl().writing && self->impl().pending.empty())
        finish_close(self, self->impl().close_reason);
    });
  }
  d.close_timer.expires_after(std::chrono::seconds(1));
  d.close_timer.async_wait([self](const asio::error_code& ec) {
    if (!ec) finish_close(self, self->impl().close_reason);
  });
}

void Connection::abort(const std::string& reason) {
  Impl& d = *impl_;
  d.pending.clear();
  finish_close(shared_from_this(), reason);
}

// ---- construction -----------------------------------------------------------------

ConnectionPtr make_connection(tcp::socket sock, ConnectionOptions opts) {
  return std::make_shared<Connection>(std::make_unique<Connection::Impl>(std::move(sock), std::move(opts)));
}

ConnectionPtr make_tls_connection(std::shared_ptr<asio::ssl::context> ctx, std::unique_ptr<TlsStream> stream,
                                  ConnectionOptions opts) {
  return std::make_shared<Connection>(
      std::make_unique<Connection::Impl>(std::move(ctx), std::move(stream), std::move(opts)));
}

Result<std::shared_ptr<asio::ssl::context>> make_tls_context(const TlsConfig& tls, bool server) {
  if (tls.cert_file.empty() || tls.key_file.empty() || tls.ca_file.empty())
    return fail("TLS needs a certificate, a private key and a CA certificate (--cert, --key, --ca)");
  auto ctx = std::make_shared<asio::ssl::context>(server ? asio::ssl::context::tls_server
                                                         : asio::ssl::context::tls_client);
  asio::error_code ec;
  ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                       asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                       asio::ssl::context::no_tlsv1_1,
                   ec);
  if (ctx->use_certificate_chain_file(tls.cert_file, ec); ec)
    return fail("cannot load certificate '{}': {}", tls.cert_file, ec.message());
  if (ctx->use_private_key_file(tls.key_file, asio::ssl::context::pem, ec); ec)
    return fail("cannot load private key '{}': {}", tls.key_file, ec.message());
  if (ctx->load_verify_file(tls.ca_file, ec); ec)
    return fail("cannot load CA certificate '{}': {}", tls.ca_file, ec.message());
  ctx->set_verify_mode(asio::ssl::verify_peer | asio::ssl::verify_fail_if_no_peer_cert, ec);
  return ctx;
}

}  // namespace flowlab::channel

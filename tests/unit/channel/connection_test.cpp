// Channel tests over loopback TCP: HELLO negotiation (1.3, 1.0, incompatible),
// echo, write coalescing, malformed input, framing errors, dead peers, queue bound.
#include "channel/connection.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>

#include "channel/connector.h"
#include "channel/endpoint.h"
#include "channel/listener.h"
#include "test_util.h"

namespace flowlab::channel {
namespace {

using namespace std::chrono_literals;
using testing::IoThread;
using testing::RawPeer;

// A listener whose accepted connections are kept and observed.
struct Server {
  explicit Server(IoThread& io, ConnectionOptions opts = {}, uint16_t port = 0) : io_(io) {
    auto ep = parse_endpoint(fmt::format("ptcp:{}:127.0.0.1", port));
    EXPECT_TRUE(ep.ok());
    auto l = Listener::open(io.io, *ep, std::move(opts), [this](const ConnectionPtr& c) {
      Connection::Handlers h;
      h.on_ready = [this](Connection& c) {
        version = c.version();
        if (on_ready) on_ready(c);
      };
      h.on_message = [this](Connection&, of::Message& m, ByteSpan) {
        std::lock_guard lock(mu);
        types.push_back(m.type());
      };
      h.on_close = [this](Connection&, const std::string& r) {
        std::lock_guard lock(mu);
        close_reason = r;
        closed = true;
      };
      c->set_handlers(std::move(h));
      c->start();
      conns.push_back(c);
    });
    EXPECT_TRUE(l.ok()) << l.error().message;
    listener = std::move(*l);
    listener->start();
  }
  ~Server() {
    io_.run([this] {
      listener->close();
      for (auto& c : conns) c->abort("test end");
      conns.clear();
      return 0;
    });
  }
  bool wait_closed(std::chrono::milliseconds t) {
    auto end = std::chrono::steady_clock::now() + t;
    while (!closed && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(5ms);
    return closed;
  }
  std::string reason() {
    std::lock_guard lock(mu);
    return close_reason;
  }

  IoThread& io_;
  std::unique_ptr<Listener> listener;
  std::vector<ConnectionPtr> conns;
  std::atomic<int> version{0};
  std::atomic<bool> closed{false};
  std::function<void(Connection&)> on_ready;
  std::mutex mu;
  std::vector<of::MsgType> types;
  std::string close_reason;
};

TEST(Endpoint, ParsesOvsStyleStrings) {
  auto a = parse_endpoint("ptcp:6653");
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->passive);
  EXPECT_FALSE(a->tls);
  EXPECT_EQ(a->port, 6653);
  EXPECT_EQ(a->host, "0.0.0.0");
  auto b = parse_endpoint("tcp:127.0.0.1:6633");
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->passive);
  EXPECT_EQ(b->host, "127.0.0.1");
  EXPECT_EQ(b->port, 6633);
  auto c = parse_endpoint("pssl:6653:10.0.0.1");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(c->tls && c->passive);
  EXPECT_EQ(c->host, "10.0.0.1");
  auto d = parse_endpoint("ssl:[::1]:6653");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->host, "::1");
  EXPECT_FALSE(parse_endpoint("tcp:host").ok());
  EXPECT_FALSE(parse_endpoint("udp:1:2").ok());
  EXPECT_FALSE(parse_endpoint("tcp:h:70000").ok());
  EXPECT_NE(parse_endpoint("ptcp:x").error().message.find("port"), std::string::npos);
}

TEST(Connection, SendsHelloWithBitmapAndNegotiates13) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  Bytes hello = p.read_message();
  ASSERT_EQ(hello.size(), 16u);
  EXPECT_EQ(hello[0], 0x06);  // the default offers 1.5, 1.4, 1.3 and 1.0
  EXPECT_EQ(hello[1], 0);
  EXPECT_EQ(load_be16(&hello[8]), 1);         // version bitmap element
  EXPECT_EQ(load_be32(&hello[12]), 0x72u);    // bits 1, 4, 5 and 6
  p.write(testing::hello_bytes(0x04, 0x12));  // a peer of 1.3 and 1.0: 1.3
  for (int i = 0; i < 300 && s.version == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.version, 0x04);
}

TEST(Connection, NegotiatesOf10WithPlainHello) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x01, 0));
  ASSERT_FALSE(p.read_message().empty());
  for (int i = 0; i < 300 && s.version == 0; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(s.version, 0x01);
  // Echo is answered in the negotiated version.
  Bytes echo = testing::header(0x01, 2, 8, 99);
  p.write(echo);
  Bytes reply = p.read_type(3);
  ASSERT_EQ(reply.size(), 8u);
  EXPECT_EQ(reply[0], 0x01);
  EXPECT_EQ(load_be32(&reply[4]), 99u);
}

TEST(Connection, IncompatibleHelloGetsHelloFailedAndClose) {
  IoThread io;
  ConnectionOptions o;
  o.versions = {0x04};
  Server s(io, o);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x01, 0x02));  // speaks only 1.0
  Bytes err = p.read_type(1);
  ASSERT_GE(err.size(), 12u);
  EXPECT_EQ(load_be16(&err[8]), 0);   // OFPET_HELLO_FAILED
  EXPECT_EQ(load_be16(&err[10]), 0);  // OFPHFC_INCOMPATIBLE
  EXPECT_TRUE(s.wait_closed(2s));
  EXPECT_NE(s.reason().find("no common OpenFlow version"), std::string::npos);
  EXPECT_TRUE(p.read_message(2s).empty());
  EXPECT_TRUE(p.eof());
}

TEST(Connection, EchoRequestAnsweredWithSameXidAndData) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  Bytes echo = testing::header(0x04, 2, 11, 0xabcdef);
  echo.insert(echo.end(), {'a', 'b', 'c'});
  p.write(echo);
  Bytes reply = p.read_type(3);
  ASSERT_EQ(reply.size(), 11u);
  EXPECT_EQ(load_be32(&reply[4]), 0xabcdefu);
  EXPECT_EQ(reply[8], 'a');
  EXPECT_EQ(reply[10], 'c');
}

TEST(Connection, MessagesQueuedInOneTurnGoOutInOneWrite) {
  IoThread io;
  Server s(io);
  s.on_ready = [](Connection& c) {
    for (int i = 0; i < 200; ++i) {
      Bytes b = testing::header(0x04, 20 /*barrier request*/, 8, uint32_t(1000 + i));
      ASSERT_TRUE(c.send_raw(b).ok());
    }
  };
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  ASSERT_EQ(p.read_message()[1], 0);  // our HELLO first
  for (int i = 0; i < 200; ++i) {
    Bytes m = p.read_message();
    ASSERT_EQ(m.size(), 8u) << i;
    EXPECT_EQ(load_be32(&m[4]), uint32_t(1000 + i));  // order kept
  }
  const auto& st = s.conns.at(0)->stats();
  EXPECT_EQ(st.msgs_tx, 200u);
  EXPECT_LE(st.writes, 2u);  // hello (+ possibly its own write) and one write for all 200
  EXPECT_GE(st.high_water, 200u * 8);
}

TEST(Connection, MalformedMessageGetsErrorReplyAndConnectionSurvives) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  // A FLOW_MOD that is only a header: the decoder must reject it.
  p.write(testing::header(0x04, 14, 8, 4242));
  Bytes err = p.read_type(1);
  ASSERT_GE(err.size(), 12u);
  EXPECT_EQ(err[0], 0x04);
  EXPECT_EQ(load_be32(&err[4]), 4242u);   // xid of the offending request
  EXPECT_EQ(load_be16(&err[12 + 2]), 8);  // data starts with the request header (length 8)
  EXPECT_EQ(s.conns.at(0)->stats().decode_errors, 1u);
  // Still up: an echo is answered.
  p.write(testing::header(0x04, 2, 8, 7));
  Bytes reply = p.read_type(3);
  ASSERT_EQ(reply.size(), 8u);
  EXPECT_FALSE(s.closed);
}

TEST(Connection, WrongVersionAfterNegotiationIsBadVersion) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  p.write(testing::header(0x01, 20, 8, 5));
  Bytes err = p.read_type(1);
  ASSERT_GE(err.size(), 12u);
  EXPECT_EQ(load_be16(&err[8]), 1);   // BAD_REQUEST
  EXPECT_EQ(load_be16(&err[10]), 0);  // BAD_VERSION
  EXPECT_FALSE(s.closed);
}

TEST(Connection, FramingErrorCloses) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  p.write(testing::header(0x04, 2, 4, 1));  // length 4 < 8
  EXPECT_TRUE(s.wait_closed(2s));
  EXPECT_NE(s.reason().find("framing error"), std::string::npos) << s.reason();
}

TEST(Connection, FirstMessageMustBeHello) {
  IoThread io;
  Server s(io);
  RawPeer p(s.listener->port());
  p.write(testing::header(0x04, 5, 8, 1));  // features request before hello
  Bytes err = p.read_type(1);
  ASSERT_GE(err.size(), 12u);
  EXPECT_EQ(load_be16(&err[8]), 0);
  EXPECT_TRUE(s.wait_closed(2s));
}

TEST(Connection, KeepaliveEchoThenDeadPeerClosed) {
  IoThread io;
  ConnectionOptions o;
  o.echo_interval = 50ms;
  o.dead_peer_timeout = 400ms;
  Server s(io, o);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  Bytes echo = p.read_type(2, 2s);  // the keepalive echo request
  ASSERT_EQ(echo.size(), 8u);
  // We do not answer: the connection must be declared dead.
  EXPECT_TRUE(s.wait_closed(3s));
  EXPECT_NE(s.reason().find("peer dead"), std::string::npos) << s.reason();
}

TEST(Connection, KeepaliveAnsweredKeepsConnection) {
  IoThread io;
  ConnectionOptions o;
  o.echo_interval = 40ms;
  // Several echo intervals of slack: a sanitizer build under `ctest -j2` can stall
  // a thread for 200 ms, which is not what this test is about.
  o.dead_peer_timeout = 500ms;
  Server s(io, o);
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  auto end = std::chrono::steady_clock::now() + 1000ms;
  int answered = 0;
  while (std::chrono::steady_clock::now() < end) {
    Bytes m = p.read_message(100ms);
    if (!m.empty() && m[1] == 2) {
      m[1] = 3;
      p.write(m);
      ++answered;
    }
  }
  EXPECT_GE(answered, 2);
  EXPECT_FALSE(s.closed) << s.reason();
  EXPECT_GE(s.conns.at(0)->stats().echo_answered, 1u);
}

TEST(Connection, QueueBoundRefusesAndCounts) {
  IoThread io;
  ConnectionOptions o;
  o.max_queued_bytes = 1000;
  Server s(io, o);
  std::atomic<int> refused{0};
  s.on_ready = [&](Connection& c) {
    for (int i = 0; i < 200; ++i) {
      Bytes b = testing::header(0x04, 20, 8, uint32_t(i));
      if (!c.send_raw(b).ok()) ++refused;
    }
  };
  RawPeer p(s.listener->port());
  p.write(testing::hello_bytes(0x04, 0x10));
  for (int i = 0; i < 300 && s.version == 0; ++i) std::this_thread::sleep_for(5ms);
  std::this_thread::sleep_for(50ms);
  EXPECT_GT(refused, 0);
  EXPECT_EQ(uint64_t(refused), s.conns.at(0)->stats().msgs_refused);
  EXPECT_LE(s.conns.at(0)->stats().high_water, 1000u);
}

TEST(Connection, TwoEndsNegotiateLowestCommon) {
  IoThread io;
  Server s(io);  // speaks 1.3 and 1.0
  ConnectionOptions client_opts;
  client_opts.versions = {0x01};
  auto ep = parse_endpoint(fmt::format("tcp:127.0.0.1:{}", s.listener->port()));
  ASSERT_TRUE(ep.ok());
  std::atomic<int> client_version{0};
  auto connector = std::make_unique<Connector>(io.io, *ep, client_opts, [&](const ConnectionPtr& c) {
    Connection::Handlers h;
    h.on_ready = [&](Connection& c) { client_version = c.version(); };
    c->set_handlers(std::move(h));
    c->start();
  });
  io.run([&] {
    connector->start();
    return 0;
  });
  for (int i = 0; i < 400 && (client_version == 0 || s.version == 0); ++i) std::this_thread::sleep_for(5ms);
  EXPECT_EQ(client_version, 0x01);
  EXPECT_EQ(s.version, 0x01);
  io.run([&] {
    connector.reset();
    return 0;
  });
}

// A Connector aimed at a free loopback port that nothing listens on yet: it
// records every wait it announces; listen() opens the port and waits for the
// connection.
struct ClosedPortConnector {
  IoThread& io;
  uint16_t port = 0;
  std::mutex mu;
  std::vector<long> waits;
  std::atomic<bool> connected{false};
  std::unique_ptr<Connector> connector;

  ClosedPortConnector(IoThread& io_thread, const BackoffOptions& b) : io(io_thread) {
    {
      asio::ip::tcp::acceptor a(io.io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
      port = a.local_endpoint().port();
    }
    auto ep = parse_endpoint(fmt::format("tcp:127.0.0.1:{}", port));
    EXPECT_TRUE(ep.ok());
    connector = std::make_unique<Connector>(
        io.io, *ep, ConnectionOptions{},
        [this](const ConnectionPtr& c) {
          connected = true;
          c->start();
        },
        b, TlsConfig{},
        [this](const std::string&, std::chrono::milliseconds next) {
          std::lock_guard lock(mu);
          waits.push_back(long(next.count()));
        });
    io.run([&] {
      connector->start();
      return 0;
    });
  }
  ~ClosedPortConnector() {
    io.run([&] {
      connector.reset();
      return 0;
    });
  }
  // The waits announced once at least n are (or after 2 s).
  std::vector<long> waits_after(size_t n) {
    for (int i = 0; i < 400; ++i) {
      {
        std::lock_guard lock(mu);
        if (waits.size() >= n) return waits;
      }
      std::this_thread::sleep_for(5ms);
    }
    std::lock_guard lock(mu);
    return waits;
  }
  // Something listens now: the next attempt connects (within 1 s).
  bool listen_and_wait() {
    Server s(io, {}, port);
    for (int i = 0; i < 200 && !connected; ++i) std::this_thread::sleep_for(5ms);
    return connected;
  }
};

TEST(Connector, BacksOffExponentiallyThenConnects) {
  IoThread io;
  BackoffOptions b;
  b.initial = 20ms;
  b.max = 80ms;
  ClosedPortConnector c(io, b);
  std::vector<long> waits = c.waits_after(5);
  ASSERT_GE(waits.size(), 5u);
  EXPECT_EQ(waits[0], 20);
  EXPECT_EQ(waits[1], 40);
  EXPECT_EQ(waits[2], 80);
  EXPECT_EQ(waits[3], 80);  // capped
  EXPECT_TRUE(c.listen_and_wait());
  EXPECT_GE(c.connector->attempts(), 6u);
}

// A controller that is not listening yet refuses: the switch retries every
// refused_max, not with the doubling meant for an unreachable host (which
// had it wait up to 8 s after a controller that started a moment late).
TEST(Connector, RefusedConnectsRetryAtRefusedMax) {
  IoThread io;
  BackoffOptions b;
  b.initial = 10ms;
  b.max = 8000ms;
  b.refused_max = 30ms;
  ClosedPortConnector c(io, b);
  std::vector<long> waits = c.waits_after(6);
  ASSERT_GE(waits.size(), 6u);
  EXPECT_EQ(waits[0], 10);
  EXPECT_EQ(waits[1], 20);
  for (size_t i = 2; i < waits.size(); ++i) EXPECT_EQ(waits[i], 30) << i;  // not 40, 80, ... 8000
  EXPECT_TRUE(c.listen_and_wait());
}

TEST(Listener, PortInUseIsAClearError) {
  IoThread io;
  Server s(io);
  auto ep = parse_endpoint(fmt::format("ptcp:{}:127.0.0.1", s.listener->port()));
  auto l = Listener::open(io.io, *ep, {}, [](const ConnectionPtr&) {});
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.error().message.find("cannot listen"), std::string::npos) << l.error().message;
}

}  // namespace
}  // namespace flowlab::channel

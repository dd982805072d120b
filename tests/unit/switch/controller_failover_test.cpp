// --controller-failover: one controller at a time, the next when the connection to
// it goes (Mininet's user switch); --connection-log's lines; the ring's waits.
#include "switch/controller_failover.h"

#include <fstream>
#include <sstream>

#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using std::chrono::milliseconds;

TEST(FailoverRing, NextAtOnceWithinARoundThenBacksOffUpToMax) {
  FailoverRing r(3, milliseconds(100), milliseconds(350));
  EXPECT_EQ(r.active(), 0u);
  EXPECT_EQ(r.failed(), milliseconds(0));
  EXPECT_EQ(r.active(), 1u);
  EXPECT_EQ(r.failed(), milliseconds(0));
  EXPECT_EQ(r.active(), 2u);
  EXPECT_EQ(r.failed(), milliseconds(100));  // a whole round failed
  EXPECT_EQ(r.active(), 0u);
  r.failed();
  r.failed();
  EXPECT_EQ(r.failed(), milliseconds(200));
  r.failed();
  r.failed();
  EXPECT_EQ(r.failed(), milliseconds(350));  // capped
  r.connected();
  EXPECT_EQ(r.failed(), milliseconds(0));
  r.failed();
  EXPECT_EQ(r.failed(), milliseconds(100));  // the backoff starts again after a connection
}

TEST(FailoverRing, OneControllerWaitsEveryTime) {
  FailoverRing r(1, milliseconds(100), milliseconds(1000));
  EXPECT_EQ(r.failed(), milliseconds(100));
  EXPECT_EQ(r.active(), 0u);
  EXPECT_EQ(r.failed(), milliseconds(200));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ChannelTarget target(uint16_t port) {
  ChannelTarget c;
  c.host = "127.0.0.1";
  c.port = port;
  c.text = "tcp:127.0.0.1:" + std::to_string(port);
  return c;
}

// A free loopback port that nothing listens on (the kernel's choice, released).
uint16_t closed_port() {
  asio::io_context io;
  asio::ip::tcp::acceptor a(io, asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return a.local_endpoint().port();
}

struct FailoverTest : ::testing::Test {
  std::string log_path = ::testing::TempDir() + "failover-" + std::to_string(::getpid()) + ".log";
  void TearDown() override { std::remove(log_path.c_str()); }
  SwitchOptions options(const std::vector<uint16_t>& ports) {
    SwitchOptions o;
    o.name = "f1";
    o.dpid = 0x43;
    for (auto p : ports) o.controllers.push_back(target(p));
    o.controller_failover = true;
    o.connection_log = log_path;
    o.echo_interval_ms = 500;
    o.reconnect_max_ms = 500;
    return o;
  }
};

TEST_F(FailoverTest, OneAtATimeAndTheNextWhenItsControllerIsKilled) {
  auto c0 = std::make_unique<TestController>();
  TestController c1, c2;
  SwitchFixture fx(options({c0->port(), c1.port(), c2.port()}));
  ASSERT_TRUE(c0->wait_ready()) << slurp(log_path);
  // The others hear nothing while the first answers.
  EXPECT_FALSE(c1.wait_ready(800ms));
  EXPECT_FALSE(c2.wait_ready(0ms));
  EXPECT_EQ(fx.sw->connected_peers(), 1u);
  std::string p0 = "tcp:127.0.0.1:" + std::to_string(c0->port());
  EXPECT_NE(slurp(log_path).find("|f1|" + p0 + ": connected (OpenFlow"), std::string::npos)
      << slurp(log_path);

  c0.reset();  // killed: its connection closes
  ASSERT_TRUE(c1.wait_ready(5s)) << slurp(log_path);
  EXPECT_FALSE(c2.wait_ready(500ms));
  std::string log = slurp(log_path);
  std::string p1 = "tcp:127.0.0.1:" + std::to_string(c1.port());
  auto first = log.find(p0 + ": connected");
  auto dropped = log.find(p0 + ": connection dropped");
  auto second = log.find(p1 + ": connected");
  ASSERT_NE(second, std::string::npos) << log;
  EXPECT_LT(first, dropped) << log;
  EXPECT_LT(dropped, second) << log;
  fx.sw->stop();
}

TEST_F(FailoverTest, AControllerThatDoesNotListenIsPassedOver) {
  TestController c1;
  uint16_t dead = closed_port();
  SwitchFixture fx(options({dead, c1.port()}));
  ASSERT_TRUE(c1.wait_ready(5s)) << slurp(log_path);
  std::string log = slurp(log_path);
  EXPECT_NE(log.find("tcp:127.0.0.1:" + std::to_string(dead) + ": connection failed"), std::string::npos)
      << log;
  EXPECT_EQ(log.find("tcp:127.0.0.1:" + std::to_string(dead) + ": connected"), std::string::npos) << log;
  fx.sw->stop();
}

TEST(ConnectionLog, AnUnwritablePathIsAStartError) {
  SwitchOptions o;
  o.controllers.push_back(target(6653));
  o.connection_log = "/nonexistent-dir/s1-ofp.log";
  std::vector<std::unique_ptr<Port>> ports;
  auto p = std::make_unique<MemoryPort>("mem1", PortCapabilities::all(), mac(0xa0));
  p->set_port_no(1);
  ports.push_back(std::move(p));
  auto s = Switch::create(o, std::move(ports));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("--connection-log /nonexistent-dir/s1-ofp.log"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace flowlab::sw::testing

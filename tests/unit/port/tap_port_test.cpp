// TapPort in a namespace made by the test (needs root): the device is created and
// removed, frames flow both ways, an existing tap is attached and left alone, and
// TCP crosses a tap <-> veth test forwarder with offloads on (GSO metadata).
#include "port/tap_port.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "netns_util.h"
#include "port/af_packet_port.h"
#include "port/netdev.h"

namespace flowlab {
namespace {

using namespace std::chrono_literals;
using testutil::Netns;

// Opens a port on a thread inside `ns` (so the tap is created there).
std::unique_ptr<Port> open_in(const Netns& ns, const std::string& spec, std::string& err) {
  std::unique_ptr<Port> port;
  ns.run([&] {
    auto r = open_port(spec);
    if (r.ok())
      port = std::move(*r);
    else
      err = r.error().message;
    return 0;
  });
  return port;
}

bool exists_in(const Netns& ns, const std::string& ifname) { return ns.exec("ip link show " + ifname) == 0; }

class TapPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::is_root()) GTEST_SKIP() << "needs root (namespaces, /dev/net/tun)";
    id_ = std::to_string(::getpid());
    ns_ = std::make_unique<Netns>("flt" + id_ + "t");
    ASSERT_TRUE(ns_->ok());
    tap_ = "flt" + id_ + "tap";
  }
  void TearDown() override { ns_.reset(); }
  std::string id_, tap_;
  std::unique_ptr<Netns> ns_;
};

TEST_F(TapPortTest, CreatesCarriesFramesAndRemovesTheDevice) {
  std::string err;
  auto port = open_in(*ns_, "tap:" + tap_, err);
  ASSERT_TRUE(port) << err;
  auto* tap = dynamic_cast<TapPort*>(port.get());
  ASSERT_TRUE(tap);
  EXPECT_TRUE(tap->created());
  EXPECT_TRUE(exists_in(*ns_, tap_));
  EXPECT_EQ(port->name(), tap_);
  EXPECT_GT(port->ifindex(), 0);
  EXPECT_FALSE(port->mac().is_zero());  // queried in the tap's namespace from this thread
  EXPECT_EQ(port->mtu(), 1500u);
  EXPECT_TRUE(port->link_up());
  PortCapabilities c = port->capabilities();
  EXPECT_TRUE(c.vnet_hdr && c.csum && c.tso4 && c.tso6);

  // Host -> port: an ARP request for a neighbour on the tap.
  ASSERT_EQ(ns_->exec("ip addr add 10.203.0.1/24 dev " + tap_), 0);
  ns_->exec("ping -c 1 -W 1 10.203.0.2");
  std::vector<std::unique_ptr<Packet>> pool;
  for (int i = 0; i < 8; ++i) pool.push_back(std::make_unique<Packet>());
  bool arp = false;
  testutil::wait_for(
      [&] {
        PacketBatch b;
        for (auto& p : pool) b.pkts.push_back(p.get());
        port->rx_batch(b, 8);
        for (Packet* p : b.pkts)
          if (p->size() >= 42 && p->data()[12] == 0x08 && p->data()[13] == 0x06) arp = true;
        return arp;
      },
      2000ms);
  EXPECT_TRUE(arp);
  EXPECT_GE(port->stats().rx_packets, 1u);

  // Port -> host: a frame written to the tap shows up on a packet socket there.
  int fd = testutil::raw_socket_in(*ns_, tap_);
  ASSERT_GE(fd, 0);
  Packet out;
  std::vector<uint8_t> f(300, 0x5e);
  for (int i = 0; i < 6; ++i) f[size_t(i)] = 0xff;
  f[12] = 0x88, f[13] = 0xb5;
  ASSERT_TRUE(out.assign(f.data(), f.size()));
  EXPECT_EQ(port->tx_one(out), 1u);
  bool got = false;
  testutil::wait_for(
      [&] {
        uint8_t buf[2048];
        ssize_t n;
        while ((n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
          if (size_t(n) == f.size() && std::equal(f.begin(), f.end(), buf)) got = true;
        return got;
      },
      2000ms);
  ::close(fd);
  EXPECT_TRUE(got);
  EXPECT_EQ(port->stats().tx_packets, 1u);

  port.reset();
  EXPECT_TRUE(testutil::wait_for([&] { return !exists_in(*ns_, tap_); }, 2000ms)) << "tap left behind";
}

TEST_F(TapPortTest, AttachesToAnExistingTapAndLeavesIt) {
  ASSERT_EQ(ns_->exec("ip tuntap add dev " + tap_ + " mode tap"), 0);
  std::string err;
  {
    auto port = open_in(*ns_, "tap:" + tap_, err);
    ASSERT_TRUE(port) << err;
    EXPECT_FALSE(dynamic_cast<TapPort*>(port.get())->created());
  }
  EXPECT_TRUE(exists_in(*ns_, tap_));
  ns_->exec("ip link del " + tap_);
}

TEST_F(TapPortTest, RefusesANonTapInterface) {
  std::string err;
  auto port = open_in(*ns_, "tap:lo", err);
  EXPECT_FALSE(port);
  EXPECT_NE(err.find("lo"), std::string::npos) << err;
}

TEST_F(TapPortTest, TcpAcrossTapAndVethWithOffloads) {
  if (testutil::sh("which iperf3") != 0) GTEST_SKIP() << "iperf3 not installed";
  Netns nsb("flt" + id_ + "u");
  ASSERT_TRUE(nsb.ok());
  testutil::VethLink veth("flp" + id_ + "u", "flh" + id_ + "u", nsb, "10.204.0.2/24");
  ASSERT_TRUE(veth.ok());
  std::string err;
  auto tap = open_in(*ns_, "tap:" + tap_, err);
  ASSERT_TRUE(tap) << err;
  ASSERT_EQ(ns_->exec("ip addr add 10.204.0.1/24 dev " + tap_), 0);
  auto vp = open_port(veth.port());
  ASSERT_TRUE(vp.ok()) << vp.error().message;

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> gso{0};
  std::thread fwd([&] {
    std::vector<std::unique_ptr<Packet>> pool;
    for (size_t i = 0; i < PacketBatch::kMax; ++i) pool.push_back(std::make_unique<Packet>());
    Port* ports[2] = {tap.get(), vp->get()};
    pollfd pfd[2] = {{ports[0]->poll_fd(), POLLIN, 0}, {ports[1]->poll_fd(), POLLIN, 0}};
    PacketBatch b;
    while (!stop) {
      ::poll(pfd, 2, 20);
      for (int k = 0; k < 2; ++k) {
        b.clear();
        for (auto& p : pool) b.pkts.push_back(p.get());
        if (ports[k]->rx_batch(b, PacketBatch::kMax) == 0) continue;
        for (Packet* p : b.pkts)
          if (p->offload.is_gso()) gso.fetch_add(1, std::memory_order_relaxed);
        ports[1 - k]->tx_batch(b);
      }
    }
  });
  testutil::Child server({"ip", "netns", "exec", nsb.name(), "iperf3", "-s", "-1", "-p", "5203"});
  bool listening =
      testutil::wait_for([&] { return nsb.exec_out("ss -ltnH").find(":5203") != std::string::npos; }, 3000ms);
  std::string out =
      listening ? ns_->exec_out("timeout 20 iperf3 -c 10.204.0.2 -p 5203 -t 2 -J --connect-timeout 3000")
                : std::string();
  stop = true;
  fwd.join();
  ASSERT_TRUE(listening);
  auto pos = out.find("\"sum_received\"");
  ASSERT_NE(pos, std::string::npos) << out.substr(0, 1500);
  pos = out.find("\"bits_per_second\"", pos);
  double bps = std::atof(out.c_str() + out.find(':', pos) + 1);
  std::printf("[ port ] iperf3 TCP tap -> veth through test forwarder: %.2f Gbit/s, %lu GSO frames\n",
              bps / 1e9, (unsigned long)gso.load());
  EXPECT_GT(bps, 1e6);
  EXPECT_GT(gso.load(), 0u);  // the tap hands over super-frames (TUNSETOFFLOAD)
}

}  // namespace
}  // namespace flowlab

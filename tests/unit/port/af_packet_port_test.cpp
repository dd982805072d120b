// AfPacketPort against real veths in namespaces made by the test (needs root):
// receive with exact content (incl. VLAN re-insertion and promiscuous mode),
// transmit, own frames not re-received, ring drops counted, link state, a
// missing interface, and a test forwarder carrying ping and iperf3 TCP with
// veth offloads at their defaults (GSO frames with partial checksums).
#include "port/af_packet_port.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "core/log.h"
#include "netns_util.h"
#include "packet/checksum.h"
#include "port/netdev.h"
#include "port/port.h"

namespace flowlab {
namespace {

using namespace std::chrono_literals;
using testutil::Netns;
using testutil::VethLink;

constexpr uint16_t kTestEthType = 0x88b5;  // IEEE local experimental

std::vector<uint8_t> test_frame(size_t len, uint8_t tag, bool vlan = false) {
  std::vector<uint8_t> f(len);
  const uint8_t dst[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};  // nobody's MAC: needs promiscuous
  const uint8_t src[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55};
  std::memcpy(f.data(), dst, 6);
  std::memcpy(f.data() + 6, src, 6);
  size_t off = 12;
  if (vlan) {
    f[12] = 0x81, f[13] = 0x00, f[14] = 0x20, f[15] = 0x64;  // pcp 1, vid 100
    off = 16;
  }
  f[off] = kTestEthType >> 8;
  f[off + 1] = kTestEthType & 0xff;
  for (size_t i = off + 2; i < len; ++i) f[i] = uint8_t(tag + i);
  return f;
}

bool is_test_frame(const uint8_t* d, size_t n) {
  if (n < 18) return false;
  uint16_t t = uint16_t(d[12] << 8 | d[13]);
  if (t == 0x8100) t = uint16_t(d[16] << 8 | d[17]);
  return t == kTestEthType;
}

// A pool of packets and helpers to receive from a port with a bounded wait.
struct RxHelper {
  std::vector<std::unique_ptr<Packet>> pool;
  RxHelper() {
    for (size_t i = 0; i < PacketBatch::kMax; ++i) pool.push_back(std::make_unique<Packet>());
  }
  // Receives test frames until `want` arrived or the timeout passed.
  std::vector<std::vector<uint8_t>> receive(Port& port, size_t want, std::chrono::milliseconds timeout,
                                            std::vector<OffloadInfo>* offs = nullptr) {
    std::vector<std::vector<uint8_t>> got;
    auto end = std::chrono::steady_clock::now() + timeout;
    PacketBatch batch;
    while (got.size() < want && std::chrono::steady_clock::now() < end) {
      pollfd pfd{port.poll_fd(), POLLIN, 0};
      ::poll(&pfd, 1, 10);
      batch.clear();
      for (auto& p : pool) batch.pkts.push_back(p.get());
      size_t n = port.rx_batch(batch, PacketBatch::kMax);
      EXPECT_EQ(n, batch.size());
      for (Packet* p : batch.pkts) {
        if (!is_test_frame(p->data(), p->size())) continue;
        got.emplace_back(p->data(), p->data() + p->size());
        if (offs) offs->push_back(p->offload);
      }
    }
    return got;
  }
};

class AfPacketPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testutil::is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
    std::string id = std::to_string(::getpid());
    ns_a_ = std::make_unique<Netns>("flt" + id + "a");
    ns_b_ = std::make_unique<Netns>("flt" + id + "b");
    ASSERT_TRUE(ns_a_->ok() && ns_b_->ok()) << "cannot create namespaces";
    link_a_ = std::make_unique<VethLink>("flp" + id + "a", "flh" + id + "a", *ns_a_, "10.201.0.1/24");
    link_b_ = std::make_unique<VethLink>("flp" + id + "b", "flh" + id + "b", *ns_b_, "10.201.0.2/24");
    ASSERT_TRUE(link_a_->ok() && link_b_->ok()) << "cannot create veth pairs";
  }
  void TearDown() override {
    link_a_.reset();
    link_b_.reset();
    ns_a_.reset();
    ns_b_.reset();
  }

  std::unique_ptr<Port> open(const std::string& name, const PortOptions& opts = {}) {
    auto p = open_port(name, opts);
    EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message);
    return p.ok() ? std::move(*p) : nullptr;
  }

  std::unique_ptr<Netns> ns_a_, ns_b_;
  std::unique_ptr<VethLink> link_a_, link_b_;
};

TEST(AfPacketPortOpen, MissingInterfaceIsAClearError) {
  auto p = open_port("flnx" + std::to_string(::getpid()));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("does not exist"), std::string::npos) << p.error().message;
  auto q = open_port("a-name-much-too-long-for-linux");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message.find("longer than"), std::string::npos) << q.error().message;
}

TEST_F(AfPacketPortTest, ReportsInterfaceProperties) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  EXPECT_EQ(port->name(), link_a_->port());
  EXPECT_EQ(port->ifindex(), *netdev::ifindex(link_a_->port()));
  EXPECT_EQ(port->mac(), *netdev::mac(link_a_->port()));
  EXPECT_FALSE(port->mac().is_zero());
  EXPECT_EQ(port->mtu(), 1500u);
  EXPECT_TRUE(port->link_up());
  EXPECT_EQ(port->speed_mbps(), 10000u);  // what veth reports
  PortCapabilities c = port->capabilities();
  EXPECT_TRUE(c.vnet_hdr && c.csum && c.tso4 && c.tso6);
  EXPECT_GE(port->poll_fd(), 0);
  auto off = netdev::offloads(link_a_->port());
  ASSERT_TRUE(off.ok());
  EXPECT_TRUE(off->tso);  // veth default, which the port leaves alone
  EXPECT_TRUE(off->tx_csum);
}

TEST_F(AfPacketPortTest, ReceivesFramesWithExactContent) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  port->set_port_no(3);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  std::vector<std::vector<uint8_t>> sent = {test_frame(60, 1), test_frame(1514, 2), test_frame(200, 3, true),
                                            test_frame(1518, 4, true), test_frame(64, 5)};
  for (auto& f : sent) ASSERT_EQ(::send(fd, f.data(), f.size(), 0), ssize_t(f.size()));
  ::close(fd);
  RxHelper rx;
  auto got = rx.receive(*port, sent.size(), 2000ms);
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(got[i], sent[i]) << "frame " << i;
  PortStats s = port->stats();
  EXPECT_GE(s.rx_packets, sent.size());
  EXPECT_GE(s.rx_bytes, 60u + 1514 + 200 + 1518 + 64);
  EXPECT_EQ(s.rx_dropped, 0u);
}

TEST_F(AfPacketPortTest, StampsInPortAndOffloadOnReceive) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  port->set_port_no(9);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  auto f = test_frame(100, 7);
  ASSERT_EQ(::send(fd, f.data(), f.size(), 0), ssize_t(f.size()));
  ::close(fd);
  RxHelper rx;
  PacketBatch batch;
  bool seen = false;
  testutil::wait_for(
      [&] {
        batch.clear();
        for (auto& p : rx.pool) batch.pkts.push_back(p.get());
        port->rx_batch(batch, 4);
        EXPECT_LE(batch.size(), 4u);
        for (Packet* p : batch.pkts)
          if (is_test_frame(p->data(), p->size())) {
            seen = true;
            EXPECT_EQ(p->in_port, 9u);
            EXPECT_FALSE(p->offload.is_gso());
            EXPECT_FALSE(p->offload.needs_csum());
          }
        return seen;
      },
      2000ms);
  EXPECT_TRUE(seen);
}

TEST_F(AfPacketPortTest, TransmitsAndDoesNotReceiveItsOwnFrames) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  std::vector<std::unique_ptr<Packet>> pkts;
  PacketBatch batch;
  for (int i = 0; i < 10; ++i) {
    auto f = test_frame(100 + size_t(i) * 100, uint8_t(i));
    pkts.push_back(std::make_unique<Packet>());
    ASSERT_TRUE(pkts.back()->assign(f.data(), f.size()));
    batch.pkts.push_back(pkts.back().get());
  }
  EXPECT_EQ(port->tx_batch(batch), 10u);
  EXPECT_EQ(batch.size(), 10u);  // batch untouched
  PortStats s = port->stats();
  EXPECT_EQ(s.tx_packets, 10u);
  EXPECT_EQ(s.tx_errors + s.tx_dropped, 0u);
  // The peer receives all ten, in order, byte for byte.
  std::vector<std::vector<uint8_t>> got;
  testutil::wait_for(
      [&] {
        uint8_t buf[2048];
        ssize_t n;
        while ((n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT)) > 0)
          if (is_test_frame(buf, size_t(n))) got.emplace_back(buf, buf + n);
        return got.size() >= 10;
      },
      2000ms);
  ::close(fd);
  ASSERT_EQ(got.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(got[size_t(i)], std::vector<uint8_t>(pkts[size_t(i)]->data(),
                                                   pkts[size_t(i)]->data() + pkts[size_t(i)]->size()));
  // Nothing of what we sent comes back on the port itself.
  RxHelper rx;
  EXPECT_TRUE(rx.receive(*port, 1, 300ms).empty());
}

TEST_F(AfPacketPortTest, TransmitsGsoSuperFrameAsOneFrame) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  // A 20 KB TCP super-frame with a partial checksum, as a veth would hand it over.
  Packet pkt;
  std::vector<uint8_t> f(14 + 20 + 20 + 20000, 0);
  const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 9};
  std::memcpy(f.data(), mac, 6);
  std::memcpy(f.data() + 6, mac, 6);
  f[12] = 0x08;
  uint8_t* ip = f.data() + 14;
  ip[0] = 0x45, ip[8] = 64, ip[9] = 6;
  ip[2] = uint8_t((f.size() - 14) >> 8), ip[3] = uint8_t(f.size() - 14);
  ip[12] = 10, ip[13] = 201, ip[15] = 9, ip[16] = 10, ip[17] = 201, ip[19] = 8;
  csum::set_ipv4_header_checksum(ip);
  uint8_t* th = ip + 20;
  th[0] = 0x9c, th[1] = 0x40, th[2] = 0x14, th[3] = 0x51, th[12] = 0x50, th[13] = 0x18;
  for (size_t i = 54; i < f.size(); ++i) f[i] = uint8_t(i);
  auto l = *csum::locate_l4(f.data(), f.size());
  uint16_t ph = csum::fold(csum::pseudo_header(f.data(), l, uint32_t(l.l4_len)));
  th[16] = uint8_t(ph >> 8), th[17] = uint8_t(ph);
  ASSERT_TRUE(pkt.assign(f.data(), f.size()));
  pkt.offload.flags = OffloadInfo::kNeedsCsum;
  pkt.offload.csum_start = 34;
  pkt.offload.csum_offset = 16;
  pkt.offload.gso_type = OffloadInfo::kGsoTcpv4;
  pkt.offload.gso_size = 1448;
  pkt.offload.hdr_len = 54;
  EXPECT_EQ(port->tx_one(pkt), 1u);
  // The peer's packet socket sees one 20 KB frame: no segmentation on the way.
  size_t big = 0;
  testutil::wait_for(
      [&] {
        std::vector<uint8_t> buf(70000);
        ssize_t n;
        while ((n = ::recv(fd, buf.data(), buf.size(), MSG_DONTWAIT)) > 0)
          if (size_t(n) == f.size() && std::memcmp(buf.data() + 54, f.data() + 54, f.size() - 54) == 0) ++big;
        return big > 0;
      },
      2000ms);
  ::close(fd);
  EXPECT_EQ(big, 1u);
  EXPECT_EQ(port->stats().tx_packets, 1u);
}

TEST_F(AfPacketPortTest, RingOverflowIsCountedAsDrops) {
  PortOptions opts;
  opts.ring_blocks = 1;  // 15 slots
  auto port = open(link_a_->port(), opts);
  ASSERT_TRUE(port);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 100; ++i) {
    auto f = test_frame(100, uint8_t(i));
    ASSERT_EQ(::send(fd, f.data(), f.size(), 0), 100);
  }
  std::this_thread::sleep_for(100ms);
  RxHelper rx;
  auto first = rx.receive(*port, 100, 300ms);
  EXPECT_LE(first.size(), 15u);
  // The kernel flags the next frame after a loss; its arrival makes us read the drop count.
  auto f = test_frame(100, 200);
  ASSERT_EQ(::send(fd, f.data(), f.size(), 0), 100);
  ::close(fd);
  auto more = rx.receive(*port, 1, 1000ms);
  EXPECT_EQ(more.size(), 1u);
  EXPECT_GE(port->stats().rx_dropped, 100u - 15u);
}

TEST_F(AfPacketPortTest, SmallRingSlotsFallBackToCopiesForBigFrames) {
  PortOptions opts;
  opts.ring_frame_size = 2048;  // 3000-byte frames plus headers do not fit: TP_STATUS_COPY path
  ASSERT_EQ(testutil::sh("ip link set " + link_a_->port() + " mtu 4000"), 0);
  ASSERT_EQ(ns_a_->exec("ip link set " + link_a_->host() + " mtu 4000"), 0);
  auto port = open(link_a_->port(), opts);
  ASSERT_TRUE(port);
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  std::vector<std::vector<uint8_t>> sent = {test_frame(3014, 1), test_frame(100, 2),
                                            test_frame(3018, 3, true), test_frame(1500, 4),
                                            test_frame(300, 5, true)};
  for (auto& f : sent) ASSERT_EQ(::send(fd, f.data(), f.size(), 0), ssize_t(f.size()));
  ::close(fd);
  RxHelper rx;
  auto got = rx.receive(*port, sent.size(), 2000ms);
  ASSERT_EQ(got.size(), sent.size());
  for (size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(got[i], sent[i]) << "frame " << i;
  EXPECT_EQ(port->stats().rx_dropped, 0u);
}

// Our side of the link set down and up again: the kernel leaves ENETDOWN
// pending on the socket, which makes every poll return at once (a forwarding
// thread spun on it) until take_error() reads it; then poll sleeps again and
// frames arrive as before.
TEST_F(AfPacketPortTest, FlapLeavesAnErrorThatTakeErrorClears) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  ASSERT_EQ(testutil::sh("ip link set " + link_a_->port() + " down"), 0);
  ASSERT_EQ(testutil::sh("ip link set " + link_a_->port() + " up"), 0);
  ASSERT_TRUE(testutil::wait_for([&] { return port->link_up(); }, 2000ms));
  pollfd pfd{port->poll_fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&pfd, 1, 0), 1);
  EXPECT_TRUE(pfd.revents & POLLERR);
  EXPECT_EQ(port->take_error(), ENETDOWN);
  EXPECT_EQ(port->take_error(), 0);
  pfd.revents = 0;
  EXPECT_EQ(::poll(&pfd, 1, 50), 0) << "revents " << pfd.revents;  // nothing pending: it sleeps
  int fd = testutil::raw_socket_in(*ns_a_, link_a_->host());
  ASSERT_GE(fd, 0);
  auto f = test_frame(100, 7);
  ASSERT_EQ(::send(fd, f.data(), f.size(), 0), ssize_t(f.size()));
  ::close(fd);
  RxHelper rx;
  auto got = rx.receive(*port, 1, 2000ms);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0], f);
}

TEST_F(AfPacketPortTest, LinkDownAndUpAreReported) {
  auto port = open(link_a_->port());
  ASSERT_TRUE(port);
  auto watcher = LinkWatcher::open();
  ASSERT_TRUE(watcher.ok());
  EXPECT_TRUE(port->link_up());
  ASSERT_EQ(ns_a_->exec("ip link set " + link_a_->host() + " down"), 0);  // peer down: no carrier
  EXPECT_TRUE(testutil::wait_for([&] { return !port->link_up(); }, 2000ms));
  bool saw_down = false;
  testutil::wait_for(
      [&] {
        for (auto& e : watcher->drain())
          if (e.ifindex == port->ifindex() && !e.up) saw_down = true;
        return saw_down;
      },
      2000ms);
  EXPECT_TRUE(saw_down);
  ASSERT_EQ(ns_a_->exec("ip link set " + link_a_->host() + " up"), 0);
  EXPECT_TRUE(testutil::wait_for([&] { return port->link_up(); }, 2000ms));
  bool saw_up = false;
  testutil::wait_for(
      [&] {
        for (auto& e : watcher->drain())
          if (e.ifindex == port->ifindex() && e.up) saw_up = true;
        return saw_up;
      },
      2000ms);
  EXPECT_TRUE(saw_up);
}

// Forwards everything between two ports until stopped, noting what offloads it saw.
class TestForwarder {
 public:
  TestForwarder(Port& a, Port& b) : a_(a), b_(b) {
    for (auto& p : pool_) p = std::make_unique<Packet>();
    thread_ = std::thread([this] { run(); });
  }
  ~TestForwarder() {
    stop_ = true;
    thread_.join();
  }
  std::atomic<uint64_t> gso_frames{0}, partial_csum_frames{0}, max_len{0}, frames{0};
  std::atomic<uint64_t> cpu_ns{0};  // forwarding thread CPU time (user + system)

 private:
  void pass(Port& in, Port& out) {
    for (int round = 0; round < 8; ++round) {
      batch_.clear();
      for (auto& p : pool_) batch_.pkts.push_back(p.get());
      size_t n = in.rx_batch(batch_, PacketBatch::kMax);
      if (n == 0) return;
      for (Packet* p : batch_.pkts) {
        if (p->offload.is_gso()) gso_frames.fetch_add(1, std::memory_order_relaxed);
        if (p->offload.needs_csum()) partial_csum_frames.fetch_add(1, std::memory_order_relaxed);
        if (p->size() > max_len.load(std::memory_order_relaxed))
          max_len.store(p->size(), std::memory_order_relaxed);
      }
      frames.fetch_add(n, std::memory_order_relaxed);
      out.tx_batch(batch_);
    }
  }
  void run() {
    pollfd pfd[2] = {{a_.poll_fd(), POLLIN, 0}, {b_.poll_fd(), POLLIN, 0}};
    while (!stop_) {
      ::poll(pfd, 2, 20);
      pass(a_, b_);
      pass(b_, a_);
      timespec ts;
      ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
      cpu_ns.store(uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec), std::memory_order_relaxed);
    }
  }
  Port& a_;
  Port& b_;
  std::unique_ptr<Packet> pool_[PacketBatch::kMax];
  PacketBatch batch_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

double iperf_bits_per_second(const std::string& json) {
  auto pos = json.find("\"sum_received\"");
  if (pos == std::string::npos) return -1;
  pos = json.find("\"bits_per_second\"", pos);
  if (pos == std::string::npos) return -1;
  pos = json.find(':', pos);
  return std::atof(json.c_str() + pos + 1);
}

TEST_F(AfPacketPortTest, ForwarderCarriesPingAndTcpWithOffloadsOn) {
  if (testutil::sh("which iperf3") != 0) GTEST_SKIP() << "iperf3 not installed";
  PortOptions opts;
  if (const char* fs = std::getenv("FLOWLAB_PORT_FRAME_SIZE")) opts.ring_frame_size = uint32_t(std::atoi(fs));
  auto pa = open(link_a_->port(), opts);
  auto pb = open(link_b_->port(), opts);
  ASSERT_TRUE(pa && pb);
  TestForwarder fwd(*pa, *pb);
  std::string ping = ns_a_->exec_out("ping -c 5 -i 0.2 -W 1 10.201.0.2");
  EXPECT_NE(ping.find(" 0% packet loss"), std::string::npos) << ping;
  auto rtt = ping.find("rtt min/avg/max");
  if (rtt != std::string::npos)
    std::printf("[ port ] ping through test forwarder: %s", ping.substr(rtt).c_str());

  testutil::Child server({"ip", "netns", "exec", ns_b_->name(), "iperf3", "-s", "-1", "-p", "5201"});
  ASSERT_TRUE(server.ok());
  ASSERT_TRUE(testutil::wait_for(
      [&] { return ns_b_->exec_out("ss -ltnH").find(":5201") != std::string::npos; }, 3000ms));
  std::string out = ns_a_->exec_out("timeout 30 iperf3 -c 10.201.0.2 -p 5201 -t 3 -J --connect-timeout 3000");
  double bps = iperf_bits_per_second(out);
  PortStats sa = pa->stats(), sb = pb->stats();
  std::printf("[ port ] a: rx %lu/%lu drop %lu err %lu tx %lu/%lu drop %lu err %lu\n",
              (unsigned long)sa.rx_packets, (unsigned long)sa.rx_bytes, (unsigned long)sa.rx_dropped,
              (unsigned long)sa.rx_errors, (unsigned long)sa.tx_packets, (unsigned long)sa.tx_bytes,
              (unsigned long)sa.tx_dropped, (unsigned long)sa.tx_errors);
  std::printf("[ port ] b: rx %lu/%lu drop %lu err %lu tx %lu/%lu drop %lu err %lu\n",
              (unsigned long)sb.rx_packets, (unsigned long)sb.rx_bytes, (unsigned long)sb.rx_dropped,
              (unsigned long)sb.rx_errors, (unsigned long)sb.tx_packets, (unsigned long)sb.tx_bytes,
              (unsigned long)sb.tx_dropped, (unsigned long)sb.tx_errors);
  ASSERT_GT(bps, 0) << out.substr(0, 2000);
  std::printf(
      "[ port ] iperf3 TCP through AfPacketPort test forwarder: %.2f Gbit/s (%lu frames, %lu GSO, "
      "%lu partial csum, max frame %lu B); forwarder CPU %.2f s = %.2f ns/byte\n",
      bps / 1e9, (unsigned long)fwd.frames.load(), (unsigned long)fwd.gso_frames.load(),
      (unsigned long)fwd.partial_csum_frames.load(), (unsigned long)fwd.max_len.load(),
      double(fwd.cpu_ns.load()) / 1e9, double(fwd.cpu_ns.load()) / double(sa.rx_bytes + sb.rx_bytes + 1));
  // Offloads at their defaults: the veths hand over super-frames with partial checksums.
  EXPECT_GT(fwd.gso_frames.load(), 0u);
  EXPECT_GT(fwd.partial_csum_frames.load(), 0u);
  EXPECT_GT(fwd.max_len.load(), 1514u);
  EXPECT_EQ(sa.rx_dropped + sb.rx_dropped + sa.tx_errors + sb.tx_errors, 0u);
  EXPECT_GT(sb.tx_bytes, 1000000u);
}

}  // namespace
}  // namespace flowlab

namespace flowlab {
namespace {

std::string iperf_json_field(const std::string& json, const std::string& section, const std::string& field) {
  auto pos = json.find("\"" + section + "\"");
  if (pos == std::string::npos) return "";
  pos = json.find("\"" + field + "\"", pos);
  if (pos == std::string::npos) return "";
  pos = json.find(':', pos);
  auto end = json.find_first_of(",}\n", pos);
  return json.substr(pos + 1, end - pos - 1);
}

TEST_F(AfPacketPortTest, ForwarderCarriesTcpOverIpv6AndSmallUdp) {
  if (testutil::sh("which iperf3") != 0) GTEST_SKIP() << "iperf3 not installed";
  for (auto* ns : {ns_a_.get(), ns_b_.get()}) ns->exec("sysctl -w net.ipv6.conf.all.disable_ipv6=0");
  ASSERT_EQ(ns_a_->exec("sysctl -w net.ipv6.conf." + link_a_->host() + ".disable_ipv6=0"), 0);
  ASSERT_EQ(ns_b_->exec("sysctl -w net.ipv6.conf." + link_b_->host() + ".disable_ipv6=0"), 0);
  ASSERT_EQ(ns_a_->exec("ip -6 addr add fd00:201::1/64 dev " + link_a_->host() + " nodad"), 0);
  ASSERT_EQ(ns_b_->exec("ip -6 addr add fd00:201::2/64 dev " + link_b_->host() + " nodad"), 0);
  auto pa = open(link_a_->port());
  auto pb = open(link_b_->port());
  ASSERT_TRUE(pa && pb);
  TestForwarder fwd(*pa, *pb);
  {
    testutil::Child server({"ip", "netns", "exec", ns_b_->name(), "iperf3", "-s", "-1", "-p", "5204"});
    ASSERT_TRUE(testutil::wait_for(
        [&] { return ns_b_->exec_out("ss -ltnH").find(":5204") != std::string::npos; }, 3000ms));
    std::string out =
        ns_a_->exec_out("timeout 20 iperf3 -6 -c fd00:201::2 -p 5204 -t 2 -J --connect-timeout 3000");
    double bps = std::atof(iperf_json_field(out, "sum_received", "bits_per_second").c_str());
    std::printf("[ port ] iperf3 TCP/IPv6 through test forwarder: %.2f Gbit/s (%lu GSO frames)\n", bps / 1e9,
                (unsigned long)fwd.gso_frames.load());
    EXPECT_GT(bps, 1e6) << out.substr(0, 1500);
    EXPECT_GT(fwd.gso_frames.load(), 0u);
  }
  {
    testutil::Child server({"ip", "netns", "exec", ns_b_->name(), "iperf3", "-s", "-1", "-p", "5205"});
    ASSERT_TRUE(testutil::wait_for(
        [&] { return ns_b_->exec_out("ss -ltnH").find(":5205") != std::string::npos; }, 3000ms));
    std::string out = ns_a_->exec_out(
        "timeout 20 iperf3 -u -b 0 -l 64 -c 10.201.0.2 -p 5205 -t 2 -J --connect-timeout 3000");
    double pkts = std::atof(iperf_json_field(out, "sum", "packets").c_str());
    double lost = std::atof(iperf_json_field(out, "sum", "lost_percent").c_str());
    double secs = std::atof(iperf_json_field(out, "sum", "seconds").c_str());
    std::printf(
        "[ port ] iperf3 UDP 64 B through test forwarder: %.0f pkt/s sent, %.1f%% lost; rx drops a %lu b "
        "%lu\n",
        secs > 0 ? pkts / secs : 0.0, lost, (unsigned long)pa->stats().rx_dropped,
        (unsigned long)pb->stats().rx_dropped);
    EXPECT_GT(pkts, 0) << out.substr(0, 1500);
    EXPECT_LT(lost, 100.0);
  }
}

}  // namespace
}  // namespace flowlab

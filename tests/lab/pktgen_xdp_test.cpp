// `flowlab pktgen --mode xdp` against a real veth, as root, in two namespaces
// of the test's own (gen: eth0 10.77.0.1, peer: p1 10.77.0.2; deleted by
// their owners even when an assertion fails):
//  * with GRO off on the peer the generator refuses to start, exit 2, and
//    says what to run;
//  * with GRO on, a paced run (20,000 frames/s for 1 s, 16 flows, --dst
//    alone: the interface from the route, the MAC from ARP) offers the rate
//    it was asked for, the peer's kernel counts exactly the frames the
//    generator reports (plus the few of the ARP exchange), and an AF_PACKET
//    socket on the peer sees all 16 destination ports, p1's MAC as the
//    destination, and valid IPv4 and UDP checksums in every frame.
// Bounded: a few seconds.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "lab/host/netlink.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "loadgen/pktgen/xdp_device.h"
#include "packet/builder.h"

namespace flowlab::lab {
namespace {

// An AF_PACKET socket on an interface of another namespace, read by a thread
// of its own until stop(): the UDP frames received (not sent) by it.
class Capture {
 public:
  Capture(const std::string& ns, const std::string& ifname) {
    std::thread([&] {
      int nsfd = ::open(("/run/netns/" + ns).c_str(), O_RDONLY | O_CLOEXEC);
      if (nsfd < 0) return;
      int r = setns(nsfd, CLONE_NEWNET);
      ::close(nsfd);
      if (r != 0) return;
      fd_ = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
      if (fd_ < 0) return;
      sockaddr_ll sll{};
      sll.sll_family = AF_PACKET;
      sll.sll_protocol = htons(ETH_P_ALL);
      sll.sll_ifindex = int(if_nametoindex(ifname.c_str()));
      int size = 16 << 20;
      timeval tv{0, 100'000};
      if (::bind(fd_, reinterpret_cast<sockaddr*>(&sll), sizeof sll) != 0 ||
          ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0 ||
          ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0) {
        ::close(fd_);
        fd_ = -1;
      }
    }).join();
    if (fd_ >= 0) reader_ = std::thread([this] { read(); });
  }
  ~Capture() {
    stop();
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  void stop() {
    stop_ = true;
    if (reader_.joinable()) reader_.join();
  }

  std::set<uint16_t> ports;
  std::set<std::string> dst_macs;
  uint64_t udp = 0, bad_ip_csum = 0, bad_udp_csum = 0;

 private:
  void read() {
    uint8_t buf[2048];
    while (!stop_) {
      sockaddr_ll from{};
      socklen_t len = sizeof from;
      ssize_t n = ::recvfrom(fd_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
      if (n < 42 || from.sll_pkttype == PACKET_OUTGOING) continue;
      if (load_be16(buf + 12) != 0x0800 || buf[14 + 9] != 17) continue;
      ports.insert(load_be16(buf + 36));
      if (load_be16(buf + 34) != 49152) continue;  // not pktgen's (the ARP-provoking datagram)
      ++udp;
      MacAddr dst;
      std::copy(buf, buf + 6, dst.b.begin());
      dst_macs.insert(dst.to_string());
      if (load_be16(buf + 24) != ipv4_header_checksum(buf, 14)) ++bad_ip_csum;
      if (load_be16(buf + 40) != l4_checksum(buf, size_t(n), 14, 34, false, 17)) ++bad_udp_csum;
    }
  }
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread reader_;
};

struct PeerCounters {
  uint64_t rx = 0, dropped = 0;
};

class PktgenXdp : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (namespaces, BPF_PROG_RUN)";
    for (const char* p : {"ip", "ethtool"})
      if (!have_program(p)) GTEST_SKIP() << "needs " << p;
    utsname u{};
    ASSERT_EQ(uname(&u), 0);
    if (loadgen::kernel_version_code(u.release) < 5018) GTEST_SKIP() << "needs Linux 5.18 (live frames)";
    static int counter = 0;
    std::string id = fmt::format("flxg{}-{}", getpid(), ++counter);
    auto g = Netns::create(id + "-g", nullptr);
    ASSERT_TRUE(g.ok()) << g.error().message;
    gen_ = std::move(*g);
    auto p = Netns::create(id + "-p", nullptr);
    ASSERT_TRUE(p.ok()) << p.error().message;
    peer_ = std::move(*p);
    for (const Netns* ns : {&gen_, &peer_})  // no IPv6 chatter in the counters
      for (const char* k : {"net/ipv6/conf/all/disable_ipv6", "net/ipv6/conf/default/disable_ipv6"})
        ASSERT_TRUE(write_sysctl_in(ns->name(), k, "1", true).ok());
    ASSERT_TRUE(create_veth(gen_.name(), "eth0", peer_.name(), "p1", 0).ok());
    ASSERT_TRUE(run_checked({"ip", "addr", "add", "10.77.0.1/24", "dev", "eth0"}, in_ns(gen_.name())).ok());
    ASSERT_TRUE(run_checked({"ip", "link", "set", "eth0", "up"}, in_ns(gen_.name())).ok());
    ASSERT_TRUE(run_checked({"ip", "addr", "add", "10.77.0.2/24", "dev", "p1"}, in_ns(peer_.name())).ok());
    ASSERT_TRUE(run_checked({"ip", "link", "set", "p1", "up"}, in_ns(peer_.name())).ok());
  }
  void gro(bool on) {
    ASSERT_TRUE(run_checked({"ethtool", "-K", "p1", "gro", on ? "on" : "off"}, in_ns(peer_.name())).ok());
  }
  PeerCounters peer_counters() {
    PeerCounters c;
    auto sock = RtnlSocket::open_in(peer_.path());
    EXPECT_TRUE(sock.ok()) << sock.error().message;
    if (!sock.ok()) return c;
    auto links = sock->dump_links();
    EXPECT_TRUE(links.ok()) << links.error().message;
    if (!links.ok()) return c;
    for (const LinkInfo& l : *links)
      if (l.name == "p1") c = {l.rx_packets, l.rx_dropped};
    return c;
  }
  CommandResult pktgen(std::vector<std::string> args) {
    args.insert(args.begin(), {FLOWLAB_BINARY, "pktgen", "--mode", "xdp"});
    return run_command(args, in_ns(gen_.name(), 30));
  }
  Netns gen_, peer_;
};

TEST_F(PktgenXdp, PeerWithoutGroIsAClearErrorExit2) {
  gro(false);
  auto r = pktgen({"--dst", "10.77.0.2", "--dev", "eth0", "--seconds", "0.2"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("ethtool -K PEER gro on"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("flowlab pktgen: error: eth0's veth peer", 0), 0u) << r.err;
}

TEST_F(PktgenXdp, PacedFramesArriveAtThePeerOnEveryFlow) {
  gro(true);
  auto mac = run_command({"cat", "/sys/class/net/p1/address"}, in_ns(peer_.name()));
  ASSERT_TRUE(mac.ok()) << mac.describe();
  const std::string p1_mac = mac.out.substr(0, mac.out.find('\n'));
  Capture cap(peer_.name(), "p1");
  ASSERT_TRUE(cap.ok()) << "AF_PACKET socket on p1";
  PeerCounters before = peer_counters();
  auto r =
      pktgen({"--dst", "10.77.0.2", "--rate", "20000", "--seconds", "1", "--flows", "16", "--port", "9000"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  PeerCounters after = peer_counters();
  cap.stop();

  auto j = nlohmann::json::parse(r.out);
  const uint64_t sent = j["sent"], failed = j["failed"];
  EXPECT_EQ(failed, 0u);
  // The rate asked for (+ the 64-frame probe).
  EXPECT_GE(sent, 0.9 * 20000) << r.out;
  EXPECT_LE(sent, 1.1 * 20000 + 64) << r.out;
  EXPECT_NEAR(j["pps"].get<double>(), 20000, 2000) << r.out;
  // Every frame reached p1: rx grew by what pktgen sent, plus the ARP request
  // and the one datagram that provoked it; none dropped.
  EXPECT_EQ(after.dropped - before.dropped, 0u);
  EXPECT_GE(after.rx - before.rx, sent);
  EXPECT_LE(after.rx - before.rx, sent + 8) << "sent " << sent;
  // What the peer saw: every flow, addressed to p1, checksums right.
  EXPECT_GE(cap.udp, sent * 9 / 10) << "the capture kept up";
  std::set<uint16_t> want;
  for (uint16_t p = 9000; p < 9016; ++p) want.insert(p);
  want.insert(9);  // the datagram that made the kernel resolve p1's MAC
  EXPECT_EQ(cap.ports, want);
  EXPECT_EQ(cap.dst_macs, std::set<std::string>{p1_mac}) << "the MAC ARP resolved";
  EXPECT_EQ(cap.bad_ip_csum, 0u);
  EXPECT_EQ(cap.bad_udp_csum, 0u);
}

}  // namespace
}  // namespace flowlab::lab

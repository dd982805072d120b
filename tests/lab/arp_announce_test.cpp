// Gratuitous ARP (arp_announce.h) on a real kernel: three host namespaces on a
// bridge of a fourth; one host announces, and the two others, arp_accept on, know
// its address's MAC (its veth's) with no packet of their own sent; a host with
// arp_accept off learns nothing. The namespaces are deleted even when an assertion
// fails.
#include "lab/host/arp_announce.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "lab/host/netns.h"
#include "lab/host/process.h"

namespace flowlab::lab {
namespace {

class ArpAnnounce : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    if (!have_program("ip")) GTEST_SKIP() << "needs ip";
    std::string tag = fmt::format("flga{}", getpid());
    for (const char* n : {"br", "h1", "h2", "h3"}) {
      auto ns = Netns::create(tag + "-" + n, nullptr);
      ASSERT_TRUE(ns.ok()) << ns.error().message;
      ns_.push_back(std::move(*ns));
    }
    const std::string& br = ns_[0].name();
    ip(br, {"link", "add", "br0", "type", "bridge"});
    ip(br, {"link", "set", "br0", "up"});
    for (int i = 1; i <= 3; ++i) {
      std::string port = fmt::format("p{}", i);
      ip(br, {"link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns_[i].name()});
      ip(br, {"link", "set", port, "master", "br0", "up"});
      ip(ns_[i].name(), {"addr", "add", fmt::format("10.9.0.{}/24", i), "dev", "eth0"});
      ip(ns_[i].name(), {"link", "set", "eth0", "up"});
    }
  }
  void ip(const std::string& ns, std::vector<std::string> args) {
    args.insert(args.begin(), "ip");
    auto r = run_command(args, in_ns(ns, 5));
    ASSERT_TRUE(r.ok()) << r.describe();
  }
  std::string out(const std::string& ns, std::vector<std::string> args) {
    args.insert(args.begin(), "ip");
    auto r = run_command(args, in_ns(ns, 5));
    EXPECT_TRUE(r.ok()) << r.describe();
    return r.out;
  }
  std::vector<Netns> ns_;
};

TEST_F(ArpAnnounce, HostsWithArpAcceptLearnTheAnnouncerWithoutAsking) {
  for (int i : {1, 2}) ASSERT_TRUE(write_sysctl_in(ns_[i].name(), "net.ipv4.conf.all.arp_accept", "1").ok());
  std::string mac = out(ns_[3].name(), {"-br", "link", "show", "eth0"});
  auto words = std::vector<std::string>{};
  for (size_t p = 0, q; p < mac.size(); p = q + 1) {
    q = mac.find_first_of(" \n", p);
    if (q == std::string::npos) q = mac.size();
    if (q > p) words.push_back(mac.substr(p, q - p));
  }
  ASSERT_GE(words.size(), 3u);
  std::string h3_mac = words[2];  // "eth0@if5 UP aa:bb:..."
  ASSERT_EQ(h3_mac.size(), 17u) << mac;

  EXPECT_EQ(out(ns_[1].name(), {"neigh", "show", "10.9.0.3"}), "");
  auto sent = announce_addresses_in(ns_[3].name());
  ASSERT_TRUE(sent.ok()) << sent.error().message;
  EXPECT_EQ(*sent, 1);  // eth0's one address; lo is not announced
  usleep(200'000);
  for (int i : {1, 2}) {
    std::string n = out(ns_[i].name(), {"neigh", "show", "10.9.0.3"});
    EXPECT_NE(n.find("lladdr " + h3_mac), std::string::npos) << "h" << i << ": " << n;
  }
  // h3 itself sent nothing else: h1 and h2 are still unknown to it.
  EXPECT_EQ(out(ns_[3].name(), {"neigh", "show", "10.9.0.1"}), "");
}

TEST_F(ArpAnnounce, HostsWithoutArpAcceptLearnNothing) {
  auto sent = announce_addresses_in(ns_[3].name());
  ASSERT_TRUE(sent.ok()) << sent.error().message;
  EXPECT_EQ(*sent, 1);
  usleep(200'000);
  EXPECT_EQ(out(ns_[1].name(), {"neigh", "show", "10.9.0.3"}), "");
}

TEST(ArpAnnounceErrors, AMissingNamespaceIsAnError) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  auto sent = announce_addresses_in(fmt::format("flga{}-none", getpid()));
  ASSERT_FALSE(sent.ok());
  EXPECT_NE(sent.error().message.find("opening namespace"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

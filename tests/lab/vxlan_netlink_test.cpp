// VXLAN ends made through netlink (vxlan.h) on a real kernel, read back with
// iproute2 (`ip -d -j link`, `bridge -j fdb`, `ss`: its view is the reference):
// two "machines" (a namespace each, a veth between their underlay addresses) and
// a node namespace on each. A tunnel lands in its node's namespace with its VNI,
// port, MTU and ends, its UDP socket beside the underlay and nothing else there;
// frames cross it; a flooded segment has one FDB entry per peer; the device and
// its socket go with the node's namespace. Bounded (seconds); every namespace is
// deleted even when an assertion fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/net/vxlan.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

class LabVxlan : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    for (const char* p : {"ip", "bridge", "ss", "ping"})
      if (!have_program(p)) GTEST_SKIP() << "needs " << p << " (to read back)";
    for (const char* role : {"m1", "m2", "n1", "n2"}) {
      auto ns = Netns::create(fmt::format("flvx{}-{}-{}", getpid(), ++counter_, role), nullptr);
      ASSERT_TRUE(ns.ok()) << ns.error().message;
      ns_.push_back(std::move(*ns));
    }
    // The underlay: m1's ul0 (192.0.2.1) <-> m2's ul0 (192.0.2.2).
    ASSERT_TRUE(create_veth(m(1), "ul0", m(2), "ul0", 1500).ok());
    ASSERT_TRUE(add_addresses({{m(1), {{"ul0", "192.0.2.1/24"}}}, {m(2), {{"ul0", "192.0.2.2/24"}}}}).ok());
  }
  const std::string& m(int i) const { return ns_[size_t(i) - 1].name(); }
  const std::string& n(int i) const { return ns_[size_t(i) + 1].name(); }
  json ip_json(const std::string& ns, const std::vector<std::string>& args) {
    auto r = run_command(args, in_ns(ns, 5));
    EXPECT_TRUE(r.ok()) << r.describe();
    json j = json::parse(r.out, nullptr, false);
    return j.is_discarded() ? json::array() : j;
  }
  // The UDP sockets bound to `port` in namespace `ns`, as `ss` lists them.
  std::string udp_on(const std::string& ns, int port) {
    auto r = run_command({"ss", "-Hnlu", fmt::format("sport = :{}", port)}, in_ns(ns, 5));
    EXPECT_TRUE(r.ok()) << r.describe();
    return r.out;
  }
  static inline int counter_ = 0;
  std::vector<Netns> ns_;
};

TEST_F(LabVxlan, TunnelIsWhatTheKernelShowsAndCarriesFramesBetweenTheMachines) {
  ASSERT_TRUE(create_vxlans({{m(1), "192.0.2.1", {"192.0.2.2"}, 4242, 14789, n(1), "s1-eth9", 1400}}).ok());
  Status other = create_vxlan({m(2), "192.0.2.2", {"192.0.2.1"}, 4242, 14789, n(2), "eth0", 1400});
  ASSERT_TRUE(other.ok()) << other.error().message;

  json links = ip_json(n(1), {"ip", "-d", "-j", "link", "show", "dev", "s1-eth9"});
  ASSERT_EQ(links.size(), 1u) << links.dump();
  const json& l = links[0];
  EXPECT_EQ(l.value("mtu", 0), 1400);
  EXPECT_NE(l["flags"].dump().find("\"UP\""), std::string::npos) << l.dump();
  EXPECT_TRUE(l.contains("link_netnsid")) << "its socket is in another namespace: " << l.dump();
  const json& info = l["linkinfo"];
  EXPECT_EQ(info.value("info_kind", ""), "vxlan");
  const json& d = info["info_data"];
  EXPECT_EQ(d.value("id", 0), 4242);
  EXPECT_EQ(d.value("port", 0), 14789);
  EXPECT_EQ(d.value("remote", ""), "192.0.2.2");
  EXPECT_EQ(d.value("local", ""), "192.0.2.1");
  // Beside the underlay: the tunnel's UDP socket and no device (nothing made
  // there, nothing moved from there); in the node's namespace, no socket.
  EXPECT_EQ(ip_json(m(1), {"ip", "-j", "link", "show"}).dump().find("s1-eth9"), std::string::npos);
  EXPECT_NE(udp_on(m(1), 14789), "");
  EXPECT_EQ(udp_on(n(1), 14789), "");

  // Frames cross: an address on each end, a ping through the tunnel.
  ASSERT_TRUE(
      add_addresses({{n(1), {{"s1-eth9", "10.77.0.1/24"}}}, {n(2), {{"eth0", "10.77.0.2/24"}}}}).ok());
  auto ping = run_command({"ping", "-n", "-c", "2", "-i", "0.2", "-W", "2", "10.77.0.2"}, in_ns(n(1), 10));
  EXPECT_TRUE(ping.ok()) << ping.describe() << ping.out;

  // Removed after: the node's namespace gone, the device and m1's socket go with it.
  ns_[2].destroy();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (udp_on(m(1), 14789) != "" && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(udp_on(m(1), 14789), "") << "the tunnel's socket outlived its device";
  EXPECT_NE(udp_on(m(2), 14789), "") << "the other machine's end is its own";
}

TEST_F(LabVxlan, FloodedSegmentHasOneFdbEntryPerPeer) {
  Status st = create_vxlan({m(1), "192.0.2.1", {"192.0.2.2", "192.0.2.3"}, 77, 4789, n(1), "flctl", 1450});
  ASSERT_TRUE(st.ok()) << st.error().message;
  json links = ip_json(n(1), {"ip", "-d", "-j", "link", "show", "dev", "flctl"});
  ASSERT_EQ(links.size(), 1u);
  EXPECT_FALSE(links[0]["linkinfo"]["info_data"].contains("remote")) << links.dump();
  json fdb = ip_json(n(1), {"bridge", "-j", "fdb", "show", "dev", "flctl"});
  std::set<std::string> dsts;
  for (const auto& e : fdb)
    if (e.value("mac", "") == "00:00:00:00:00:00") dsts.insert(e.value("dst", ""));
  EXPECT_EQ(dsts, (std::set<std::string>{"192.0.2.2", "192.0.2.3"})) << fdb.dump();
}

TEST_F(LabVxlan, BadEndIsAnErrorNamingItAndNothingIsMadeBesideTheUnderlay) {
  ASSERT_TRUE(create_vxlan({m(1), "192.0.2.1", {"192.0.2.2"}, 5, 4789, n(1), "t0", 0}).ok());
  // The same name again in the batch's second message: the kernel's EEXIST, naming it.
  Status dup = create_vxlans({{m(1), "192.0.2.1", {"192.0.2.2"}, 6, 4789, n(1), "t1", 0},
                              {m(1), "192.0.2.1", {"192.0.2.2"}, 7, 4789, n(1), "t0", 0}});
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.error().message.find("creating vxlan t0 (VNI 7"), std::string::npos) << dup.error().message;
  EXPECT_NE(dup.error().message.find("File exists"), std::string::npos) << dup.error().message;
  Status no_remote = create_vxlan({m(1), "192.0.2.1", {}, 8, 4789, n(1), "t2", 0});
  ASSERT_FALSE(no_remote.ok());
  EXPECT_NE(no_remote.error().message.find("no remote"), std::string::npos) << no_remote.error().message;
  Status no_ns = create_vxlan({m(1), "192.0.2.1", {"192.0.2.2"}, 9, 4789, "flvx-no-such-ns", "t3", 0});
  ASSERT_FALSE(no_ns.ok());
  EXPECT_NE(no_ns.error().message.find("flvx-no-such-ns"), std::string::npos) << no_ns.error().message;
  Status bad_vni = create_vxlan({m(1), "192.0.2.1", {"192.0.2.2"}, 1u << 24, 4789, n(1), "t4", 0});
  EXPECT_FALSE(bad_vni.ok());
  std::string there = ip_json(m(1), {"ip", "-j", "link", "show"}).dump();
  for (const char* name : {"t0", "t1", "t2", "t3", "t4"})
    EXPECT_EQ(there.find(fmt::format("\"{}\"", name)), std::string::npos) << name << " beside the underlay";
}

}  // namespace
}  // namespace flowlab::lab

// flowlab controller `shortest-path` on a ring of 4 (root), the cases the
// ring test in shortest_path_net_test.cpp does not cover, with flowlab
// switches and OVS bridges:
//  * OpenFlow 1.0 only (flowlab `--protocols OpenFlow10`, OVS
//    protocols=OpenFlow10): links found by LLDP through OF1.0 packet-out /
//    packet-in, pingall complete, packet-ins bounded, flows only on the path;
//    a SIGHUP reload of the firewall in front (which on OF1.0 deletes every
//    flow) keeps the topology service's LLDP flow and every link.
//  * the firewall in front of shortest-path (OF1.3: firewall table 0,
//    shortest-path table 1): the allowed pair pings across the ring, every
//    denied pair does not, packet-ins stay bounded (no storm).
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <set>

#include "switch_net.h"

namespace flowlab::switch_interop {
namespace {

using Kind = SwitchNet::Kind;

class ShortestPathRing : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
    if (!have(FLOWLAB_BINARY)) GTEST_SKIP() << "flowlab binary not built";
    if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl not installed";
    if (GetParam() == Kind::kOvs && !have("/usr/sbin/ovs-vswitchd"))
      GTEST_SKIP() << "ovs-vswitchd not installed";
  }
  const char* kind() const { return GetParam() == Kind::kOvs ? "OVS" : "flowlab"; }
  // A ring s1-s2-s3-s4-s1 with host i on switch i (10.0.0.<i+1>).
  static bool build_ring(SwitchNet& net) {
    for (size_t s = 0; s < 4; ++s)
      if (!net.add_host(s)) return false;
    for (size_t s = 0; s < 4; ++s)
      if (!net.add_cable(s, (s + 1) % 4)) return false;
    return true;
  }
  static std::string write_rules(const SwitchNet& net, const std::string& yaml) {
    std::string path = net.dir() + "/rules.yaml";
    std::ofstream(path) << yaml;
    return path;
  }
};

// h0 (10.0.0.1) and h2 (10.0.0.3), opposite corners of the ring, may ping each
// other; h1 and h3 are covered by a group without rules: everything to or
// from them is denied.
constexpr const char* kPairRules =
    "default: deny\n"
    "security_groups:\n"
    "  - name: pair\n"
    "    targets: [{ip: 10.0.0.1}, {ip: 10.0.0.3}]\n"
    "    ingress: [{protocol: icmp}]\n"
    "    egress: [{protocol: any}]\n"
    "  - name: closed\n"
    "    targets: [{ip: 10.0.0.2}, {ip: 10.0.0.4}]\n";

// What shortest_path_net_test's RingOfFour checks, on OpenFlow 1.0.
TEST_P(ShortestPathRing, Of10PingallLldpAndAFirewallReload) {
  SwitchNet net(GetParam(), 4, GetParam() == Kind::kOvs ? "po" : "pf");
  net.only_of10();
  ASSERT_TRUE(build_ring(net));
  std::string rules = write_rules(net,
                                  "default: allow\n"
                                  "security_groups: []\n");
  ASSERT_TRUE(net.start("--app firewall --config " + rules + " --app shortest-path")) << net.logs();
  ASSERT_NE(net.controller_log().find("OpenFlow 1.0"), std::string::npos) << net.logs();
  EXPECT_EQ(net.controller_log().find("OpenFlow 1.3"), std::string::npos) << net.logs();
  ASSERT_TRUE(eventually([&] { return links_up(net) >= 8; }, 10s)) << net.logs();
  for (size_t s = 0; s < 4; ++s) EXPECT_NE(net.dump_flows(s).find("dl_type=0x88cc"), std::string::npos) << s;

  ASSERT_EQ(run_quiet(net.in(0, "ping -c 3 -i 0.2 -W 2 " + net.hosts()[1].ip)), 0) << net.logs();
  const std::string m0 = net.hosts()[0].mac, m1 = net.hosts()[1].mac;
  for (size_t s : {0, 1}) EXPECT_TRUE(has_flow_to(net.dump_flows(s), m1)) << s << ":\n" << net.dump_flows(s);
  for (size_t s : {2, 3}) {
    std::string d = net.dump_flows(s);
    EXPECT_FALSE(has_flow_to(d, m0) || has_flow_to(d, m1)) << "switch " << s + 1 << " is off the path:\n"
                                                           << d;
  }
  auto failed = net.pingall();
  if (!failed.empty()) failed = net.pingall();  // a first ARP may race the first flows
  EXPECT_TRUE(failed.empty()) << failed.size() << " pairs failed, e.g. " << failed.front() << "\n"
                              << net.logs();
  std::this_thread::sleep_for(1200ms);  // stats JSON is written every second
  uint64_t pins = packet_ins(net);
  EXPECT_GT(pins, 0u);
  EXPECT_LT(pins, 400u) << "packet-in storm";
  std::printf("ring of 4 (%s, OpenFlow 1.0): packet-ins %llu for a pingall of 4 hosts\n", kind(),
              (unsigned long long)pins);

  // SIGHUP: the firewall reloads and, on OF1.0, deletes every flow (the delete
  // was refused before: it carried a cookie mask). The LLDP flow is back at once.
  // A host's ARP probe may have a flow to m1 installed again since: only a flow older
  // than the signal was kept.
  const auto hup = std::chrono::steady_clock::now();
  ASSERT_TRUE(net.signal_controller(SIGHUP));
  ASSERT_TRUE(eventually([&] { return net.controller_log().find("reloaded") != std::string::npos; }, 5s));
  std::this_thread::sleep_for(1000ms);
  EXPECT_EQ(net.controller_log().find("cannot delete old flows"), std::string::npos) << net.logs();
  for (size_t s = 0; s < 4; ++s) {
    std::string d = net.dump_flows(s);
    const double since = std::chrono::duration<double>(std::chrono::steady_clock::now() - hup).count();
    EXPECT_NE(d.find("dl_type=0x88cc"), std::string::npos) << "switch " << s + 1 << " lost the LLDP flow:\n"
                                                           << d;
    EXPECT_FALSE(has_flow_to_older_than(d, m1, since))
        << "switch " << s + 1 << " kept a flow the reload deleted (older than " << since << " s):\n"
        << d;
  }
  EXPECT_EQ(run_quiet(net.in(0, "ping -c 2 -i 0.2 -W 2 " + net.hosts()[2].ip)), 0) << net.logs();
}

TEST_P(ShortestPathRing, FirewallInFrontAllowsThePairOnly) {
  SwitchNet net(GetParam(), 4, GetParam() == Kind::kOvs ? "wo" : "wf");
  ASSERT_TRUE(build_ring(net));
  std::string rules = write_rules(net, kPairRules);
  ASSERT_TRUE(net.start("--app firewall --config " + rules + " --app shortest-path")) << net.logs();
  ASSERT_TRUE(eventually([&] { return links_up(net) >= 8; }, 10s)) << net.logs();

  // h0 -> h2 crosses two links (s1-s2-s3 or s1-s4-s3).
  EXPECT_EQ(run_quiet(net.in(0, "ping -c 3 -i 0.2 -W 2 " + net.hosts()[2].ip)), 0) << net.logs();
  std::string d0 = net.dump_flows(0);
  EXPECT_NE(d0.find("table=1"), std::string::npos) << "shortest-path's flows behind the firewall:\n" << d0;
  EXPECT_TRUE(has_flow_to(d0, net.hosts()[2].mac)) << d0;

  std::set<std::string> failed;
  for (const auto& f : net.pingall()) failed.insert(f);
  std::set<std::string> denied;
  for (size_t i = 0; i < 4; ++i)
    for (size_t j = 0; j < 4; ++j)
      if (i != j && !((i == 0 && j == 2) || (i == 2 && j == 0)))
        denied.insert(std::to_string(i) + "->" + std::to_string(j));
  EXPECT_EQ(failed, denied) << net.logs();
  std::this_thread::sleep_for(1200ms);
  uint64_t pins = packet_ins(net);
  EXPECT_GT(pins, 0u);
  EXPECT_LT(pins, 400u) << "packet-in storm";
  std::printf("ring of 4 (%s), firewall + shortest-path: %zu of 12 pairs denied, packet-ins %llu\n", kind(),
              failed.size(), (unsigned long long)pins);
}

INSTANTIATE_TEST_SUITE_P(Switches, ShortestPathRing, ::testing::Values(Kind::kFlowlab, Kind::kOvs),
                         [](const auto& info) { return info.param == Kind::kOvs ? "Ovs" : "Flowlab"; });

}  // namespace
}  // namespace flowlab::switch_interop

// Scenario YAML parsing and validation: the model built, overrides applied per case,
// and errors that name file:line and key.
#include "lab/scenario/topology.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

constexpr const char* kGood = R"(name: t
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24, mtu: 9000}
switches:
  s1: {kind: flowlab, dpid: 0x2a, controller: c1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
    mtu: 1400
cases:
  - name: a
  - name: b
    switches: {s1: {kind: ovs-tso}}
    controllers: {c1: {kind: os-ken, app: some_app.py}}
    offloads: off
    tests: [ping]
tests:
  - {type: ping, from: h1, to: h2, count: 3}
  - {type: iperf3-tcp, from: h1, to: h2, window: 64K, streams: 2}
  - {type: iperf3-tcp, from: h2, to: h1}
)";

TEST(Topology, ParsesHostsLinksCasesAndTests) {
  auto s = parse_scenario(kGood, "/tmp/t.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->name, "t");
  ASSERT_EQ(s->hosts.size(), 2u);
  EXPECT_EQ(s->hosts[1].interfaces.at(0).mtu, 9000);
  ASSERT_EQ(s->links.size(), 2u);
  EXPECT_EQ(s->links[1].mtu, 1400);
  EXPECT_EQ(s->links[0].b.node, "s1");
  EXPECT_EQ(s->links[0].b.ifname, "p1");
  ASSERT_EQ(s->cases.size(), 2u);
  EXPECT_EQ(s->cases[0].switches.at("s1").kind, SwitchKind::kFlowlab);
  EXPECT_EQ(s->cases[0].switches.at("s1").dpid, 0x2au);
  EXPECT_TRUE(s->cases[0].offloads);
  // The override changes the kind but keeps the rest (dpid, controller) of the base.
  EXPECT_EQ(s->cases[1].switches.at("s1").kind, SwitchKind::kOvsTso);
  EXPECT_EQ(s->cases[1].switches.at("s1").dpid, 0x2au);
  EXPECT_EQ(s->cases[1].switches.at("s1").controller, "c1");
  EXPECT_EQ(s->cases[1].controllers.at("c1").kind, ControllerKind::kOsKen);
  EXPECT_TRUE(s->cases[1].controllers.at("c1").apps.empty());
  EXPECT_FALSE(s->cases[1].offloads);
  ASSERT_EQ(s->tests.size(), 3u);
  EXPECT_EQ(s->tests[1].window, "64K");
  EXPECT_EQ(s->tests[1].streams, 2);
  // Same type twice: the second gets a unique name.
  EXPECT_EQ(s->tests[1].name, "iperf3-tcp");
  EXPECT_EQ(s->tests[2].name, "iperf3-tcp-2");
  EXPECT_EQ(*s->address_of("h2"), "10.0.0.2");
}

TEST(Topology, UnderlayGivesTheMachinesNetwork) {
  const std::string net = R"(
hosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}
links:
  - endpoints: [h1:eth0, h2:eth0]
)";
  auto s = parse_scenario("name: x\nunderlay: {rate: 1G, mtu: 9000}" + net, "u.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->underlay_rate_bps, 1e9);
  EXPECT_EQ(s->underlay_mtu, 9000);
  auto none = parse_scenario("name: x" + net, "u.yaml");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->underlay_rate_bps, 0);
}

TEST(Topology, NoCasesMeansOneDefaultCase) {
  auto s = parse_scenario(R"(name: x
hosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}
switches: {s1: {kind: linux-bridge}}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
)",
                          "x.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->cases.size(), 1u);
  EXPECT_EQ(s->cases[0].name, "default");
  EXPECT_EQ(s->cases[0].switches.at("s1").kind, SwitchKind::kLinuxBridge);
}

struct BadCase {
  const char* yaml;
  const char* expect;  // substring of the error
};

class TopologyErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(TopologyErrors, NameFileLineAndKey) {
  auto s = parse_scenario(GetParam().yaml, "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(GetParam().expect), std::string::npos) << s.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    All, TopologyErrors,
    ::testing::Values(
        BadCase{"name: x\nhosts:\n  h1: {addr: 10.0.0.1/24}\nswitches:\n  s1: {kindd: ovs}\nlinks: []\n",
                "bad.yaml:5: key 'kindd': unknown key in switch"},
        BadCase{"name: x\nhosts:\n  h1: {}\nswitches:\n  s1: {kind: quantum}\nlinks: []\n",
                "bad.yaml:5: key 'kind': unknown switch kind 'quantum'"},
        BadCase{"name: x\nhosts:\n  h1: {addr: 10.0.0.300/24}\nlinks: []\n", "bad.yaml:3: key 'addr'"},
        BadCase{"name: x\nunderlay: {rate: fast}\nhosts: {h1: {}, h2: {}}\nlinks:\n  - endpoints: [h1:eth0, "
                "h2:eth0]\n",
                "bad.yaml:2: key 'rate': expected a rate such as 1G or 100M"},
        BadCase{"name: x\nunderlay: {rate: 1G, nic: eth0}\nhosts: {h1: {}, h2: {}}\nlinks:\n  - endpoints: "
                "[h1:eth0, h2:eth0]\n",
                "bad.yaml:2: key 'nic'"},
        BadCase{
            "name: x\nhosts: {h1: {}, h2: {}}\nlinks:\n  - {endpoints: [h1:eth0, h2:eth0], type: fiber}\n",
            "bad.yaml:4: key 'type': unknown link type 'fiber'"},
        BadCase{
            "name: x\nhosts: {h1: {}, h2: {}}\nlinks:\n  - {endpoints: [h1:eth0, h2:eth0], type: underlay, "
            "vlan: 4095}\n",
            "bad.yaml:4: key 'vlan': expected a VLAN id, 1-4094"},
        BadCase{"name: x\nhosts: {h1: {}, h2: {}}\nlinks:\n  - {endpoints: [h1:eth0, h2:eth0], vlan: 10}\n",
                "bad.yaml:4: key 'vlan': a VLAN tag is for `type: underlay` links"},
        BadCase{"name: x\nhosts: {h1: {}}\nlinks:\n  - endpoints: [h1:eth0, s9:p1]\n",
                "bad.yaml:4: key 'endpoints': unknown node 's9'"},
        BadCase{"name: x\nhosts:\n  h1: [unclosed\n", "bad.yaml:4:1: YAML syntax error"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
                "links:\n  - endpoints: [h1:eth0, h2:eth0]\n"
                "tests:\n  - {type: iperf3-tcp, from: h1, to: h2, rate: 10X}\n",
                "bad.yaml:6: key 'rate': unknown rate unit"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {}}\nswitches: {s1: {kind: ovs}}\n"
                "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p2]\n"
                "tests:\n  - {type: ping, from: h1, to: h2}\n",
                "bad.yaml:8: key 'to': host 'h2' has no address"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs}}\n"
                "links:\n  - endpoints: [h1:averyveryverylongname, s1:p1]\n",
                "bad.yaml:5: key 'endpoints': interface name for 'h1:averyveryverylongname' would exceed 15"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
                "switches: {s1: {kind: ovs, controller: c7}}\n"
                "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p2]\n",
                "names unknown controller 'c7'"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
                "switches: {s1: {kind: ovs}}\n"
                "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p2]\n"
                "tests:\n  - {type: iperf3-tcp, from: h1, to: h2, duration: 0}\n",
                "bad.yaml:8: key 'duration': must be in (0, 600]"},
        BadCase{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs, security_group: on}}\n"
                "links:\n  - endpoints: [h1:eth0, s1:p1]\n",
                "key 'security_group': iptables security groups exist only on kind linux-bridge"}),
    // Named by index: the default name prints the pointers, which change from run to run,
    // so ctest's filter (taken when the tests were listed) would match nothing.
    [](const ::testing::TestParamInfo<BadCase>& i) { return "case" + std::to_string(i.index); });

TEST(Topology, ShippedScenariosValidate) {
  for (const char* f : {"quick.yaml", "controller-path.yaml", "security-group.yaml", "container-switch.yaml",
                        "two-nodes.yaml", "hub-100m.yaml", "wan-across-machines.yaml"}) {
    auto s = load_scenario(std::string(FLOWLAB_SOURCE_DIR) + "/scenarios/" + f);
    EXPECT_TRUE(s.ok()) << f << ": " << s.error().message;
  }
}

TEST(Topology, QuickModeShortensTests) {
  auto s = parse_scenario(kGood, "/tmp/t.yaml");
  ASSERT_TRUE(s.ok());
  s->tests[1].duration = 30;
  make_quick(*s);
  EXPECT_EQ(s->tests[0].count, 3);
  EXPECT_LE(s->tests[1].duration, 1.0);
}

TEST(Topology, MissingFileIsAnError) {
  auto s = load_scenario("/nonexistent/x.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("/nonexistent/x.yaml"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

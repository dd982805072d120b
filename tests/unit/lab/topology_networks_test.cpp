// Scenarios that are networks: switch-to-switch links, generated topologies
// (`topology:`), declared port order, loops and their warnings, the Mininet-style
// command line, and the bad input each must refuse with file:line.
#include <gtest/gtest.h>

#include "lab/generate/mininet_args.h"
#include "lab/run/topology_record.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

constexpr const char* kRing = R"(name: ring
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: linux-bridge, stp: true}
  s2: {kind: linux-bridge, stp: true, ports: [p3, p2, p1]}
  s3: {kind: linux-bridge, stp: true}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s2:p1]
  - endpoints: [s1:p2, s2:p3]
  - endpoints: [s2:p2, s3:p1]
  - endpoints: [s3:p2, s1:p3]
cases:
  - name: stp
  - name: no-stp
    switch: {stp: false}
  - name: ovs-learning
    switch: {kind: ovs, controller: c1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
tests:
  - {type: pingall}
)";

TEST(Networks, SwitchToSwitchLinksAndDeclaredPortOrder) {
  auto s = parse_scenario(kRing, "ring.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->links.size(), 5u);
  EXPECT_TRUE(s->cases[0].switches.at("s1").stp);
  EXPECT_FALSE(s->cases[1].switches.at("s1").stp) << "case key 'switch' overrides every switch";
  EXPECT_EQ(s->cases[2].switches.at("s3").kind, SwitchKind::kOvs);
  EXPECT_FALSE(s->cases[2].switches.at("s3").stp) << "stp is dropped with the bridge kind";
  EXPECT_EQ(s->cases[2].switches.at("s3").controller, "c1");
  EXPECT_EQ(s->cases[0].switches.at("s2").dpid, 2u);
  auto ports = switch_port_order(*s, s->cases[0]);
  // s2 declares p3, p2, p1: OpenFlow port 1 is s2-p3 although its link comes later.
  EXPECT_EQ(ports.at("s2"), (std::vector<std::string>{"s2-p3", "s2-p2", "s2-p1"}));
  EXPECT_EQ(ports.at("s1"), (std::vector<std::string>{"s1-p1", "s1-p2", "s1-p3"}));
  ASSERT_EQ(s->tests.size(), 1u);
  EXPECT_EQ(s->tests[0].type, TestType::kPingall);
  EXPECT_EQ(s->tests[0].count, 1);
}

TEST(Networks, LoopsWarnWhereNothingBreaksThem) {
  auto s = parse_scenario(kRing, "ring.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  std::string all;
  for (const auto& w : s->warnings) all += w + "\n";
  EXPECT_EQ(all.find("case 'stp'"), std::string::npos) << all;
  EXPECT_NE(all.find("ring.yaml:6: warning: case 'no-stp': switch s1 is on a loop and linux-bridge without "
                     "'stp: true'"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("case 'ovs-learning': switch s1 is on a loop and controller c1 runs learning-switch"),
            std::string::npos)
      << all;
  // A tree has no loop: no warning, whatever the switches.
  auto t = parse_scenario(
      "name: t\ntopology: {type: tree, depth: 2, fanout: 2, switch: {kind: linux-bridge}}\n", "t.yaml");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->warnings.empty());
  auto torus = parse_scenario("name: t\ntopology: {type: torus, x: 3, y: 3, switch: {kind: linux-bridge}}\n",
                              "t.yaml");
  ASSERT_TRUE(torus.ok());
  ASSERT_EQ(torus->warnings.size(), 1u) << "one warning per case and cause";
}

TEST(Networks, GeneratedTopologyHasMininetsHostsAndPorts) {
  auto s = parse_scenario(R"(name: lin
topology: {type: linear, k: 2, n: 2, switch: {kind: ovs, controller: c1}}
hosts:
  h2s2: {addr: 192.168.0.9/24}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
cases:
  - name: flowlab
    switch: {kind: flowlab}
  - name: ovs
tests:
  - {type: ping, from: h1s1, to: h2s2}
)",
                          "lin.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->generator, "linear k=2 n=2");
  ASSERT_EQ(s->hosts.size(), 4u);
  // Mininet numbers hosts in natural order: h1s1 .1, h1s2 .2, h2s1 .3.
  auto iface = [&](const std::string& h) { return s->host(h)->interfaces.at(0); };
  EXPECT_EQ(iface("h1s2").addr, "10.0.0.2/8");
  EXPECT_EQ(iface("h2s1").addr, "10.0.0.3/8");
  EXPECT_EQ(iface("h2s1").mac, "00:00:00:00:00:03");
  EXPECT_EQ(iface("h2s2").addr, "192.168.0.9/24") << "the file's own address wins";
  EXPECT_EQ(iface("h2s2").mac, "");
  ASSERT_EQ(s->links.size(), 5u);
  // s2's hosts take ports 1 and 2, then s2-s1 is s2:eth3 and s1:eth3.
  EXPECT_EQ(s->links[4].a.node, "s2");
  EXPECT_EQ(s->links[4].a.ifname, "eth3");
  EXPECT_EQ(s->links[4].b.ifname, "eth3");
  EXPECT_EQ(s->cases[0].switches.at("s2").kind, SwitchKind::kFlowlab);
  EXPECT_EQ(s->cases[0].switches.at("s2").controller, "c1");
  EXPECT_EQ(s->cases[1].switches.at("s2").kind, SwitchKind::kOvs);
  EXPECT_EQ(s->cases[1].switches.at("s2").dpid, 2u);
}

struct Bad {
  const char* yaml;
  const char* expect;
};

class NetworkErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(NetworkErrors, OneLineWithFileAndLine) {
  auto s = parse_scenario(GetParam().yaml, "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(GetParam().expect), std::string::npos) << s.error().message;
  EXPECT_EQ(s.error().message.find('\n'), std::string::npos) << "one line";
}

INSTANTIATE_TEST_SUITE_P(
    All, NetworkErrors,
    ::testing::Values(
        Bad{"name: x\ntopology: {type: ring, k: 3}\n",
            "bad.yaml:2: key 'type': unknown topology type 'ring'"},
        Bad{"name: x\ntopology: {type: tree, depth: 2, fanout: x}\n",
            "bad.yaml:2: key 'fanout': expected a count"},
        Bad{"name: x\ntopology: {type: tree, size: 2}\n",
            "bad.yaml:2: key 'size': topology tree has no parameter"},
        Bad{"name: x\ntopology: {type: torus, x: 2, y: 3}\n",
            "bad.yaml:2: key 'topology': topology torus needs x"},
        Bad{"name: x\ntopology: {type: tree}\nlinks: []\n", "bad.yaml:3: key 'links': with 'topology'"},
        Bad{"name: x\ntopology: {type: single, switch: {dpid: 5}}\n",
            "dpid and ports come from the generator"},
        Bad{"name: x\ntopology: {type: single}\nhosts: {h9: {}}\n",
            "bad.yaml:3: key 'h9': host is not in the"},
        Bad{"name: x\ntopology: {type: single, switch: {kind: ovs, stp: true}}\n",
            "key 'stp': stp is the Linux"},
        // A link to a port the switch does not declare.
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
            "switches: {s1: {kind: ovs, ports: [p1, p2]}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p9]\n",
            "bad.yaml:6: key 'endpoints': switch 's1' has no port 'p9' (ports: p1, p2)"},
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs, ports: [p1, p2]}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n",
            "bad.yaml:3: key 'ports': port 'p2' of switch 's1' is on no link"},
        // A port used twice (here by a switch-to-switch link and a host).
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs}, s2: {kind: ovs}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [s2:p1, s1:p1]\n",
            "bad.yaml:6: key 'endpoints': 's1:p1' is used by two links"},
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [s1:p2, s1:p3]\n",
            "bad.yaml:6: key 'endpoints': a link from 's1' to itself"},
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}}\nswitches: {s1: {kind: ovs}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [s1:p2, s7:p1]\n",
            "bad.yaml:6: key 'endpoints': unknown node 's7'"},
        Bad{"name: x\nhosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
            "switches: {s1: {kind: ovs}, s2: {kind: ovs-tso}}\n"
            "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s2:p1]\n  - endpoints: "
            "[s1:p2, s2:p2]\n",
            "mixes ovs and ovs-tso"},
        Bad{"name: x\ntopology: {type: single}\ntests:\n  - {type: pingall, from: h1}\n",
            "bad.yaml:4: key 'from': pingall takes no 'from'/'to'"},
        Bad{"name: x\ntopology: {type: single}\nsettle: -3\n",
            "bad.yaml:3: key 'settle': must be 0..600 s"}));

TEST(MininetArgs, CommandLineBuildsAScenario) {
  auto m = scenario_from_mininet_args({"tree,2,3", "flowlab", {"flowlab:learning-switch"}, "pingall"});
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->label, "--topo tree,2,3");
  auto s = parse_scenario(m->yaml, m->label);
  ASSERT_TRUE(s.ok()) << s.error().message << "\n" << m->yaml;
  EXPECT_EQ(s->hosts.size(), 9u);
  EXPECT_EQ(s->cases[0].switches.size(), 4u);
  EXPECT_EQ(s->cases[0].switches.at("s4").controller, "c0");
  EXPECT_EQ(s->cases[0].controllers.at("c0").apps, (std::vector<std::string>{"learning-switch"}));
  ASSERT_EQ(s->tests.size(), 1u);
  EXPECT_EQ(s->tests[0].type, TestType::kPingall);

  auto lx = scenario_from_mininet_args({"torus,3,3", "lxbr,stp=1", {}, "iperf"});
  ASSERT_TRUE(lx.ok()) << lx.error().message;
  auto t = parse_scenario(lx->yaml, lx->label);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->cases[0].switches.at("s2x2").stp);
  EXPECT_EQ(t->cases[0].switches.at("s2x2").controller, "");
  EXPECT_TRUE(t->warnings.empty());
  ASSERT_EQ(t->tests.size(), 1u);
  EXPECT_EQ(t->tests[0].type, TestType::kIperf3Tcp);
  EXPECT_EQ(t->tests[0].from, "h1x1");  // Mininet's iperf: first and last host
  EXPECT_EQ(t->tests[0].to, "h3x3");

  auto none = scenario_from_mininet_args({"single,3", "ovs", {"none"}, "none"});
  ASSERT_TRUE(none.ok());
  auto n = parse_scenario(none->yaml, none->label);
  ASSERT_TRUE(n.ok()) << n.error().message;
  EXPECT_TRUE(n->tests.empty());
  EXPECT_TRUE(n->cases[0].controllers.empty());
}

TEST(MininetArgs, ErrorsNameTheArgument) {
  auto err = [](MininetArgs a) {
    auto r = scenario_from_mininet_args(a);
    return r.ok() ? std::string("ok") : r.error().message;
  };
  EXPECT_EQ(err({"tree,2,x", "flowlab", {}, "pingall"}).rfind("--topo tree,2,x: ", 0), 0u);
  EXPECT_EQ(err({"mesh,3", "flowlab", {}, "pingall"}).rfind("--topo mesh,3: unknown topology type", 0), 0u);
  EXPECT_EQ(err({"tree", "quantum", {}, "pingall"}).rfind("--switch quantum: unknown switch kind", 0), 0u);
  EXPECT_EQ(err({"tree", "ovs,stp=1", {}, "pingall"}).rfind("--switch ovs,stp=1: ", 0), 0u);
  EXPECT_EQ(err({"tree", "flowlab", {"nox"}, "pingall"}).rfind("--controller nox: expected none", 0), 0u);
  EXPECT_EQ(
      err({"tree", "flowlab", {"flowlab:"}, "pingall"}).rfind("--controller flowlab:: name the apps", 0), 0u);
  EXPECT_EQ(err({"tree", "linux-bridge", {"flowlab:hub"}, "pingall"})
                .rfind("--controller flowlab:hub: a linux-bridge", 0),
            0u);
  EXPECT_EQ(err({"tree", "flowlab", {}, "ping-pong"}).rfind("--test ping-pong: expected none", 0), 0u);
  EXPECT_EQ(err({"", "flowlab", {}, "pingall"}).rfind("--topo: give a topology", 0), 0u);
}

}  // namespace
}  // namespace flowlab::lab

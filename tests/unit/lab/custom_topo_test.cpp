// Mininet's --custom topologies: the exporter's JSON decoded into the exact topology
// (addresses, dpids, ports, shaping only on TCLinks), its errors, --link, and the
// exporter itself run on tests/lab/data/*.py with Debian's mininet.topo and with
// the stand-in (both must give the same topology).
#include "lab/generate/custom_topo.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "lab/generate/mininet_args.h"
#include "lab/host/process.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

const char* kTwoSwitch = R"({"flowlab_custom_topo": 1, "topo_module": "mininet.topo", "topo": "twoswitch",
 "hosts": [{"name": "h1", "opts": {}}, {"name": "h2", "opts": {"ip": "10.0.0.22", "mac": "00:00:00:00:00:22"}},
           {"name": "h3", "opts": {"ip": "192.168.1.3/24"}}],
 "switches": [{"name": "s1", "opts": {}}, {"name": "s2", "opts": {"dpid": "00:00:00:00:00:00:00:a2"}}],
 "links": [{"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {}},
           {"node1": "h2", "node2": "s1", "port1": 0, "port2": 2, "opts": {"bw": 5}},
           {"node1": "h3", "node2": "s2", "port1": 0, "port2": 2, "opts": {}},
           {"node1": "s1", "node2": "s2", "port1": 3, "port2": 1,
            "opts": {"cls": {"class": "TCLink", "mro": ["TCLink", "Link"]}, "bw": 10, "delay": "5ms",
                     "jitter": "1ms", "loss": 2.5, "max_queue_size": 500}}]})";

TEST(CustomTopo, DecodesHostsSwitchesLinksAsMininetBuildsThem) {
  auto t = decode_custom_topology(kTwoSwitch);
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->hosts.size(), 3u);
  EXPECT_EQ(t->hosts[0].name, "h1");
  EXPECT_EQ(t->hosts[0].ip, "10.0.0.1/8");
  EXPECT_EQ(t->hosts[0].mac, "00:00:00:00:00:01");
  EXPECT_EQ(t->hosts[1].ip, "10.0.0.22/8");  // no prefix length: Mininet's /8
  EXPECT_EQ(t->hosts[1].mac, "00:00:00:00:00:22");
  EXPECT_EQ(t->hosts[2].ip, "192.168.1.3/24");
  EXPECT_EQ(t->hosts[2].mac, "00:00:00:00:00:03");  // the counter moved for h2 too
  ASSERT_EQ(t->switches.size(), 2u);
  EXPECT_EQ(t->switches[0].dpid, 1u);
  EXPECT_EQ(t->switches[1].dpid, 0xa2u);
  ASSERT_EQ(t->links.size(), 4u);
  EXPECT_FALSE(t->links[1].tc);
  EXPECT_TRUE(t->links[1].bw.empty());  // a plain Link ignores bw, as in Mininet
  const auto& sl = t->links[3];
  EXPECT_EQ(sl.node1, "s1");
  EXPECT_EQ(sl.port1, 3);
  EXPECT_EQ(sl.port2, 1);
  EXPECT_TRUE(sl.tc);
  EXPECT_EQ(sl.bw, "10M");
  EXPECT_EQ(sl.delay, "5ms");
  EXPECT_EQ(sl.jitter, "1ms");
  EXPECT_EQ(sl.loss, "2.5%");
  EXPECT_EQ(sl.queue, 500);
  ASSERT_EQ(t->notes.size(), 1u);
  EXPECT_NE(t->notes[0].find("link (h2, s1): bw/delay/jitter/loss/max_queue_size ignored: not a TCLink"),
            std::string::npos);

  YAML::Node root;
  YAML::Node tmpl;
  tmpl["kind"] = "flowlab";
  add_custom_topology(root, *t, tmpl);
  EXPECT_EQ(root["hosts"]["h2"]["interfaces"]["eth0"]["addr"].as<std::string>(), "10.0.0.22/8");
  EXPECT_EQ(root["switches"]["s2"]["dpid"].as<std::string>(), "0xa2");
  EXPECT_EQ(root["switches"]["s2"]["kind"].as<std::string>(), "flowlab");
  ASSERT_EQ(root["switches"]["s1"]["ports"].size(), 3u);
  EXPECT_EQ(root["switches"]["s1"]["ports"][2].as<std::string>(), "eth3");
  EXPECT_EQ(root["switches"]["s2"]["ports"][0].as<std::string>(), "eth1");  // port order, not link order
  EXPECT_EQ(root["links"][3]["endpoints"][0].as<std::string>(), "s1:eth3");
  EXPECT_EQ(root["links"][3]["bw"].as<std::string>(), "10M");
  EXPECT_EQ(root["links"][3]["loss"].as<std::string>(), "2.5%");
  EXPECT_FALSE(root["links"][1]["bw"]);
}

TEST(CustomTopo, LinkTcGivesEveryLinkWithoutItsOwnClassTheOptions) {
  auto d = parse_link_arg("tc,bw=10,delay=5ms,max_queue_size=100");
  ASSERT_TRUE(d.ok()) << d.error().message;
  auto t = decode_custom_topology(kTwoSwitch, *d);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_TRUE(t->links[0].tc);
  EXPECT_EQ(t->links[0].bw, "10M");
  EXPECT_EQ(t->links[0].delay, "5ms");
  EXPECT_EQ(t->links[0].queue, 100);
  EXPECT_EQ(t->links[1].bw, "5M");      // the link's own option over --link's
  EXPECT_EQ(t->links[3].delay, "5ms");  // cls=TCLink of its own: only its options
  EXPECT_EQ(t->links[3].queue, 500);
  EXPECT_TRUE(t->notes.empty());
  for (auto [arg, msg] : std::vector<std::pair<std::string, std::string>>{
           {"tcx", "--link tcx: expected default or tc"},
           {"tc,bw", "--link tc,bw: 'bw' is not KEY=VALUE"},
           {"tc,bw=fast", "bw=\"fast\": expected a number of Mbit/s"},
           {"tc,speedup=2", "link option 'speedup' is not supported"},
           {"default,bw=1", "options need --link tc"}}) {
    auto r = parse_link_arg(arg);
    ASSERT_FALSE(r.ok()) << arg;
    EXPECT_NE(r.error().message.find(msg), std::string::npos) << r.error().message;
  }
}

TEST(CustomTopo, ErrorsNameTheNodeLinkAndOption) {
  auto wrap = [](const std::string& hosts, const std::string& switches, const std::string& links) {
    return R"({"flowlab_custom_topo": 1, "hosts": [)" + hosts + R"(], "switches": [)" + switches +
           R"(], "links": [)" + links + "]}";
  };
  std::string h1 = R"({"name": "h1", "opts": {}})", s1 = R"({"name": "s1", "opts": {}})";
  std::string l = R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {}})";
  std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "the topology exporter printed no JSON object: 'not json'"},
      {"[1]", "printed no JSON object"},
      {R"({"hosts": []})", "no \"flowlab_custom_topo\": 1"},
      {R"({"flowlab_custom_topo": 1, "error": "t.py:3: in build: ValueError: no", "traceback": "  File x\n"})",
       "t.py:3: in build: ValueError: no\n  File x"},
      {R"({"flowlab_custom_topo": 1, "hosts": []})", "the topology has no 'switches' list"},
      {wrap(R"({"name": "h1", "opts": {"cpu": 0.5}})", s1, l),
       "host h1: host option 'cpu' is not supported by the lab (supported: ip, mac, cls=Host)"},
      {wrap(R"({"name": "h1", "opts": {"ip": "10.0.0.300"}})", s1, l),
       "host h1: ip='10.0.0.300': expected an IPv4"},
      {wrap(R"({"name": "h1", "opts": {"ip": "10.0.0.3/33"}})", s1, l), "ip='10.0.0.3/33'"},
      {wrap(R"({"name": "h1", "opts": {"mac": "00:00"}})", s1, l), "host h1: mac=\"00:00\": expected six"},
      {wrap(R"({"name": "h1", "opts": {"cls": {"class": "CPULimitedHost", "mro": []}}})", s1, l),
       "cls=CPULimitedHost: the lab's hosts are plain Hosts"},
      {wrap(h1, R"({"name": "core", "opts": {}})",
            R"({"node1": "h1", "node2": "core", "port1": 0, "port2": 1})"),
       "switch core: no dpid= and no number in the name"},
      {wrap(h1, R"({"name": "s1", "opts": {"dpid": "xyz"}})", l),
       "switch s1: dpid=\"xyz\": expected up to 16 hex"},
      {wrap(h1, R"({"name": "s1", "opts": {"failMode": "standalone"}})", l),
       "switch s1: switch option 'failMode' is not supported"},
      {wrap(h1, R"({"name": "s1", "opts": {"cls": {"class": "LinuxBridge", "mro": []}}})", l),
       "cls=LinuxBridge: not supported; the switch kind comes from --switch"},
      {wrap(h1 + "," + R"({"name": "h1"})", s1, l), "host 'h1': the name is used twice"},
      {wrap(R"({"name": "h-1"})", s1, l), "host 'h-1': names are 1-10 letters"},
      {wrap(h1, s1, R"({"node1": "h1", "node2": "s9", "port1": 0, "port2": 1})"),
       "link 1 (h1, s9): 's9' is neither a host nor a switch"},
      {wrap(h1, s1, R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 0})"),
       "port 0 of switch s1: OpenFlow ports start at 1"},
      {wrap(h1, s1, l + "," + R"({"node1": "h1", "node2": "s1", "port1": 1, "port2": 1})"),
       "link 2 (h1, s1): port 1 of s1 is used by another link"},
      {wrap(h1, s1, R"({"node1": "h1", "node2": "s1", "port1": "a", "port2": 1})"),
       "'port1' must be a port number"},
      {wrap(h1, s1, R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {"intfName1": "x"}})"),
       "link 1 (h1, s1): link option 'intfName1' is not supported"},
      {wrap(
           h1, s1,
           R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {"cls": {"class": "OVSLink2", "mro": ["OVSLink2"]}}})"),
       "cls=OVSLink2: the lab builds Link and TCLink"},
      {wrap(
           h1, s1,
           R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {"cls": {"class": "TCLink", "mro": ["TCLink"]}, "loss": 101}})"),
       "loss=101: expected a percentage 0..100"},
      {wrap(
           h1, s1,
           R"({"node1": "h1", "node2": "s1", "port1": 0, "port2": 1, "opts": {"cls": {"class": "TCLink", "mro": ["TCLink"]}, "delay": 5}})"),
       "delay=5: expected a time with a unit"},
  };
  for (const auto& [json, msg] : cases) {
    auto t = decode_custom_topology(json);
    ASSERT_FALSE(t.ok()) << json;
    EXPECT_NE(t.error().message.find(msg), std::string::npos) << "got: " << t.error().message;
  }
}

// The exporter on the test files, with Debian's mininet.topo and with the stand-in.
class CustomTopoExporter : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("/usr/bin/python3")) GTEST_SKIP() << "needs /usr/bin/python3";
    setenv("FLOWLAB_PYTHON_DIR", FLOWLAB_SOURCE_DIR "/python", 1);
  }
  void TearDown() override { unsetenv("FLOWLAB_TOPO_STANDIN"); }
  static std::string data(const char* f) { return std::string(FLOWLAB_SOURCE_DIR "/tests/lab/data/") + f; }
};

TEST_F(CustomTopoExporter, RealMininetTopoAndStandInBuildTheSame) {
  for (const char* standin : {"0", "1"}) {
    setenv("FLOWLAB_TOPO_STANDIN", standin, 1);
    auto t = load_custom_topology(data("param_tree.py"), "ptree,2,3");
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->topo_module.find(std::string(standin) == "1" ? "flowlab stand-in" : "mininet.topo"), 0u)
        << t->topo_module;
    ASSERT_EQ(t->hosts.size(), 9u);
    ASSERT_EQ(t->switches.size(), 4u);
    ASSERT_EQ(t->links.size(), 12u);
    EXPECT_EQ(t->hosts[8].name, "h9");
    EXPECT_EQ(t->hosts[8].ip, "10.0.0.9/8");
    // Mininet's buildFromTopo order: links sorted by (node1, node2) naturally; s1's
    // ports 1..3 to s2, s3, s4 (added first), each s<i>'s port 4? no: s2 port 1..3 to h1..h3.
    EXPECT_EQ(t->links[0].node1, "s1");
    EXPECT_EQ(t->links[0].node2, "s2");
    EXPECT_EQ(t->links[0].port1, 1);
    EXPECT_EQ(t->links[0].port2, 4);
    EXPECT_EQ(t->links[3].node1, "s2");
    EXPECT_EQ(t->links[3].node2, "h1");
    EXPECT_EQ(t->links[3].port1, 1);

    auto two = load_custom_topology(data("two_switch_shaped.py"), "twoswitch,delay=2ms");
    ASSERT_TRUE(two.ok()) << two.error().message;
    ASSERT_EQ(two->links.size(), 4u);
    EXPECT_EQ(two->links[3].node1, "s1");
    EXPECT_TRUE(two->links[3].tc);
    EXPECT_EQ(two->links[3].bw, "10M");
    EXPECT_EQ(two->links[3].delay, "2ms");  // build(delay=...) from the --topo argument
    EXPECT_EQ(two->switches[1].dpid, 0xa2u);
    EXPECT_EQ(two->hosts[1].mac, "00:00:00:00:00:22");
  }
}

TEST_F(CustomTopoExporter, MininetsTwoSwitchTwoHostExampleShape) {
  // custom/topo-2sw-2host.py's form: a Topo subclass whose build() takes nothing, offered as a lambda.
  for (const char* standin : {"0", "1"}) {
    setenv("FLOWLAB_TOPO_STANDIN", standin, 1);
    auto t = load_custom_topology(data("two_hosts_two_switches.py"), "mytopo");
    ASSERT_TRUE(t.ok()) << t.error().message;
    ASSERT_EQ(t->hosts.size(), 2u);
    ASSERT_EQ(t->switches.size(), 2u);
    ASSERT_EQ(t->links.size(), 3u);
    EXPECT_EQ(t->switches[0].name, "s3");
    EXPECT_EQ(t->switches[1].name, "s4");
    EXPECT_EQ(t->hosts[1].ip, "10.0.0.2/8");
    EXPECT_EQ(t->links[1].node1, "s3");
    EXPECT_EQ(t->links[1].node2, "s4");
    auto extra = load_custom_topology(data("two_hosts_two_switches.py"), "mytopo,2");
    EXPECT_FALSE(extra.ok()) << "an argument the lambda does not take";
  }
}

TEST_F(CustomTopoExporter, PythonErrorsComeBackWithTheirMessage) {
  auto r = load_custom_topology(data("raises.py"), "broken,3");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("raises.py:8: in build: ValueError: no hosts for n=3"), std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("raise ValueError('no hosts for n=%d' % n)"), std::string::npos);
  r = load_custom_topology(data("raises.py"), "nosuch");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("Invalid topo name nosuch (the custom files define: broken)"),
            std::string::npos)
      << r.error().message;
  r = load_custom_topology("/nonexistent/x.py", "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("could not find custom file: /nonexistent/x.py"), std::string::npos);

  MininetArgs a;
  MininetCustom c;
  c.files = data("raises.py");
  a.topo = "broken";
  auto sc = scenario_from_mininet_args(a, c);
  ASSERT_FALSE(sc.ok());
  EXPECT_EQ(sc.error().message.find("--custom " + data("raises.py") + " --topo broken: "), 0u)
      << sc.error().message;
}

TEST_F(CustomTopoExporter, ScenarioFromCustomFiles) {
  MininetArgs a;
  MininetCustom c;
  c.files = data("two_switch_shaped.py");
  a.topo = "twoswitch";
  a.test = "pingpair";
  auto sc = scenario_from_mininet_args(a, c);
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  auto y = YAML::Load(sc->yaml);
  EXPECT_EQ(y["name"].as<std::string>(), "twoswitch");
  EXPECT_EQ(y["switches"]["s1"]["controller"].as<std::string>(), "c0");
  EXPECT_EQ(y["links"][3]["delay"].as<std::string>(), "5ms");
  EXPECT_EQ(y["tests"][0]["from"].as<std::string>(), "h1");
  EXPECT_EQ(y["tests"][0]["to"].as<std::string>(), "h2");
  EXPECT_EQ(sc->label, "--custom " + data("two_switch_shaped.py") + " --topo twoswitch");
  auto s = parse_scenario(sc->yaml, sc->label);  // what the lab builds, checked as any scenario
  ASSERT_TRUE(s.ok()) << s.error().message << "\n" << sc->yaml;
  ASSERT_EQ(s->links.size(), 4u);
  EXPECT_EQ(s->links[3].a.ifname, "eth3");
  EXPECT_EQ(s->cases[0].switches.at("s2").dpid, 0xa2u);
  EXPECT_EQ(s->cases[0].switches.at("s2").ports, (std::vector<std::string>{"eth1", "eth2"}));
  EXPECT_EQ(s->host("h2")->interfaces[0].addr, "10.0.0.22/8");
  c.link = "tc,bw=1";
  c.files.clear();
  a.topo = "tree,2";
  sc = scenario_from_mininet_args(a, c);  // a generated topology: every link shaped alike
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  auto g = parse_scenario(sc->yaml, sc->label);
  ASSERT_TRUE(g.ok()) << g.error().message << "\n" << sc->yaml;
  ASSERT_EQ(g->links.size(), 6u);  // tree,2 (depth 2, fanout 2): 4 hosts, 3 switches
  for (const auto& l : g->links) {
    EXPECT_EQ(l.shape.a_to_b.bw_bps.value_or(0), 1000000u);
    EXPECT_EQ(l.shape.b_to_a.bw_bps.value_or(0), 1000000u);
  }
  c.link = "tc,bw=1,delay=5ms,loss=2,max_queue_size=50";
  sc = scenario_from_mininet_args(a, c);
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  g = parse_scenario(sc->yaml, sc->label);
  ASSERT_TRUE(g.ok()) << g.error().message << "\n" << sc->yaml;
  EXPECT_EQ(g->links[0].shape.a_to_b.delay_ns.value_or(0), 5000000u);
  EXPECT_DOUBLE_EQ(g->links[0].shape.b_to_a.loss_pct.value_or(0), 2.0);
  EXPECT_EQ(g->links[2].shape.a_to_b.queue.value_or(0), 50);
  c.link = "tc,bw=-3";
  sc = scenario_from_mininet_args(a, c);
  ASSERT_FALSE(sc.ok());
  EXPECT_NE(sc.error().message.find("bw=-3: expected a number of Mbit/s above 0"), std::string::npos)
      << sc.error().message;
  c.link = "tc,color=red";
  sc = scenario_from_mininet_args(a, c);
  ASSERT_FALSE(sc.ok());
  EXPECT_NE(sc.error().message.find("link option 'color' is not supported"), std::string::npos)
      << sc.error().message;
}

}  // namespace
}  // namespace flowlab::lab

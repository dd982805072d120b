// mn's options on --topo runs, as scenarios: remote controllers (several, Mininet's
// defaults), --switch protocols and ovsk, --test's tests, --ipbase, --arp, --mac; the
// YAML keys they become (controller lists, kind: remote, protocols, static_arp,
// pingall full) and their errors.
#include <gtest/gtest.h>

#include "lab/generate/generators.h"
#include "lab/generate/mininet_args.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

Result<Scenario> from_args(const MininetArgs& a) {
  auto m = scenario_from_mininet_args(a);
  if (!m.ok()) return unexpected(m.error());
  return parse_scenario(m->yaml, m->label);
}

std::string err(const MininetArgs& a) {
  auto s = from_args(a);
  return s.ok() ? std::string("ok") : s.error().message;
}

TEST(MininetOptions, RemoteControllersOneOrSeveral) {
  auto s = from_args({"tree,2", "flowlab", {"remote", "remote,ip=127.0.0.2,port=6654"}, "pingall"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto& cs = s->cases[0];
  ASSERT_EQ(cs.controllers.size(), 2u);
  EXPECT_EQ(cs.controllers.at("c0").kind, ControllerKind::kRemote);
  EXPECT_EQ(cs.controllers.at("c0").address, "127.0.0.1");  // Mininet's RemoteController default
  EXPECT_EQ(cs.controllers.at("c0").port, 0);               // 6653, else 6633: looked up at start
  EXPECT_EQ(cs.controllers.at("c1").address, "127.0.0.2");
  EXPECT_EQ(cs.controllers.at("c1").port, 6654);
  for (const auto& [n, sw] : cs.switches) {
    EXPECT_EQ(sw.controller, "c0") << n;
    EXPECT_EQ(sw.more_controllers, std::vector<std::string>{"c1"}) << n;
    EXPECT_TRUE(sw.uses("c1") && sw.uses("c0") && !sw.uses("c2"));
  }
  auto one = from_args({"single,2", "ovs", {"remote,ip=10.9.8.7:6633"}, "none"});
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_EQ(one->cases[0].controllers.at("c0").address, "10.9.8.7");
  EXPECT_EQ(one->cases[0].controllers.at("c0").port, 6633);
  EXPECT_TRUE(one->cases[0].switches.at("s1").more_controllers.empty());
  // ryu,FILE.py is os-ken's, as mn's --controller ryu
  auto ryu = from_args({"single,2", "flowlab", {"ryu,simple_switch_13.py"}, "none"});
  ASSERT_TRUE(ryu.ok()) << ryu.error().message;
  EXPECT_EQ(ryu->cases[0].controllers.at("c0").kind, ControllerKind::kOsKen);
}

TEST(MininetOptions, ControllerErrors) {
  EXPECT_EQ(err({"tree", "flowlab", {"remote,ip=1.2.3"}, "pingall"}),
            "--controller remote,ip=1.2.3: ip '1.2.3' is not an IPv4 address");
  EXPECT_EQ(err({"tree", "flowlab", {"remote,port=70000"}, "pingall"}),
            "--controller remote,port=70000: port '70000' is not 1..65535");
  EXPECT_EQ(err({"tree", "flowlab", {"remote,host=a"}, "pingall"}),
            "--controller remote,host=a: 'host=a': expected ip=ADDRESS or port=PORT");
  EXPECT_EQ(err({"tree", "flowlab", {"remote", "none"}, "pingall"}),
            "--controller none: not with other controllers");
  EXPECT_EQ(err({"tree", "lxbr", {"remote"}, "pingall"}),
            "--controller remote: a linux-bridge takes no controller");
}

TEST(MininetOptions, SwitchProtocolsAndKinds) {
  auto s = from_args({"single,2", "ovs,protocols=OpenFlow10,OpenFlow13", {}, "none"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cases[0].switches.at("s1").protocols, "OpenFlow10,OpenFlow13");
  s = from_args({"single,2", "flowlab,protocols=openflow10", {}, "none"});  // mn users' spelling
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->cases[0].switches.at("s1").protocols, "OpenFlow10");
  EXPECT_EQ(s->cases[0].switches.at("s1").kind, SwitchKind::kFlowlab);
  EXPECT_EQ(from_args({"single,2", "lxbr", {}, "none"})->cases[0].switches.at("s1").kind,
            SwitchKind::kLinuxBridge);

  std::string ovsk = err({"single,2", "ovsk", {}, "pingall"});
  EXPECT_EQ(ovsk.rfind("--switch ovsk: ovsk is Open vSwitch with its kernel datapath (openvswitch.ko)", 0),
            0u)
      << ovsk;
  EXPECT_NE(ovsk.find("use --switch ovs"), std::string::npos);
  EXPECT_NE(ovsk.find("--switch lxbr"), std::string::npos);
  EXPECT_EQ(err({"single,2", "lxbr,protocols=OpenFlow13", {}, "none"}),
            "--switch lxbr,protocols=OpenFlow13: a Linux bridge speaks no OpenFlow");
  EXPECT_EQ(err({"single,2", "ovs,protocols=OpenFlow19", {}, "none"}),
            "--switch ovs,protocols=OpenFlow19: 'OpenFlow19' is not an OpenFlow version (OpenFlow10 ... "
            "OpenFlow15)");
  // flowlab's switch speaks 1.0 and 1.3 to 1.5: the scenario's check names the version
  std::string f12 = err({"single,2", "flowlab,protocols=OpenFlow12", {}, "none"});
  EXPECT_NE(f12.find("'OpenFlow12': flowlab switch speaks OpenFlow10, OpenFlow13, OpenFlow14, OpenFlow15"),
            std::string::npos)
      << f12;
  EXPECT_TRUE(from_args({"single,2", "flowlab,protocols=OpenFlow14", {}, "none"}).ok());
  EXPECT_TRUE(from_args({"single,2", "flowlab,protocols=OpenFlow15", {}, "none"}).ok());
}

TEST(MininetOptions, TestsAsMininetRunsThem) {
  auto s = from_args({"linear,3", "flowlab", {}, "pingallfull+iperfudp+pingpair"});
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->tests.size(), 3u);
  EXPECT_EQ(s->tests[0].type, TestType::kPingall);
  EXPECT_TRUE(s->tests[0].full);
  EXPECT_EQ(s->tests[0].name, "pingallfull");
  EXPECT_EQ(s->tests[1].type, TestType::kIperf3Udp);
  EXPECT_EQ(s->tests[1].rate, "10M");  // Mininet's udpBw
  EXPECT_EQ(s->tests[1].from, "h1");
  EXPECT_EQ(s->tests[1].to, "h3");
  EXPECT_EQ(s->tests[1].duration, 5);
  EXPECT_EQ(s->tests[2].type, TestType::kPing);
  EXPECT_EQ(s->tests[2].to, "h2");
  auto rate = from_args({"linear,2", "flowlab", {}, "iperfUdp,25M"});  // mn's method name works too
  ASSERT_TRUE(rate.ok()) << rate.error().message;
  EXPECT_EQ(rate->tests[0].rate, "25M");
  EXPECT_EQ(s->tests[2].rate, "");  // a ping has none
  auto tcp = from_args({"linear,2", "flowlab", {}, "iperf"});
  ASSERT_TRUE(tcp.ok()) << tcp.error().message;
  EXPECT_EQ(tcp->tests[0].type, TestType::kIperf3Tcp);
  EXPECT_EQ(tcp->tests[0].rate, "");  // unpaced, as Mininet's iperf
  auto paced = from_args({"linear,2", "flowlab", {}, "iperf,10G"});
  ASSERT_TRUE(paced.ok()) << paced.error().message;
  EXPECT_EQ(paced->tests[0].type, TestType::kIperf3Tcp);
  EXPECT_EQ(paced->tests[0].rate, "10G");
  auto build = from_args({"linear,2", "flowlab", {}, "build"});
  ASSERT_TRUE(build.ok());
  EXPECT_TRUE(build->tests.empty());
  EXPECT_FALSE(from_args({"linear,2", "flowlab", {}, "pingall"})->tests[0].full);
  EXPECT_EQ(err({"linear,2", "flowlab", {}, "pingall,3"}),
            "--test pingall,3: pingall takes no arguments (iperf,RATE and iperfudp,RATE do)");
  EXPECT_EQ(err({"single,1", "flowlab", {}, "iperfudp"}),
            "--test iperfudp: the topology has fewer than two hosts");
}

TEST(MininetOptions, IpbaseArpMac) {
  MininetArgs a{"tree,2,2", "flowlab", {}, "pingall"};
  a.ipbase = "10.1.2.3/16";  // host bits cleared, as Mininet's ipAdd
  a.arp = true;
  a.mac = true;
  auto s = from_args(a);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->static_arp);
  EXPECT_EQ(s->host("h1")->interfaces[0].addr, "10.1.0.1/16");
  EXPECT_EQ(s->host("h4")->interfaces[0].addr, "10.1.0.4/16");
  EXPECT_EQ(s->host("h4")->interfaces[0].mac, "00:00:00:00:00:04");
  a.ipbase = "10.0.0.0/30";  // 3 addresses for 4 hosts
  EXPECT_EQ(err(a), "--ipbase 10.0.0.0/30: 4 hosts do not fit (3 addresses)");
  a.ipbase = "10.0.0/8";
  EXPECT_EQ(err(a).rfind("--ipbase '10.0.0/8': expected an IPv4 network", 0), 0u) << err(a);
  EXPECT_FALSE(from_args({"tree,2,2", "flowlab", {}, "pingall"})->static_arp);

  auto b = parse_ipbase("192.168.7.9/24");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(mininet_ip(5, *b), "192.168.7.5/24");
  EXPECT_EQ(b->capacity(), 255u);
  EXPECT_EQ(mininet_ip(300), "10.0.1.44/8");
}

TEST(MininetOptions, ScenarioKeysAndTheirErrors) {
  // A body without switches gets a bridge and its link, so the key under test is
  // what the parser stops at.
  auto parse = [](std::string body) {
    if (body.find("switches:") == std::string::npos)
      body += "switches: {s1: {kind: linux-bridge}}\nlinks: [{endpoints: [h1:eth0, s1:p1]}]\n";
    else if (body.find("links:") == std::string::npos)
      body += "links: [{endpoints: [h1:eth0, s1:p1]}]\n";
    auto s = parse_scenario("name: t\nhosts: {h1: {addr: 10.0.0.1/24}}\n" + body, "t.yaml");
    return s.ok() ? std::string("ok") : s.error().message;
  };
  const std::string two =
      "controllers: {a: {kind: remote, address: 127.0.0.1, port: 7000}, b: {kind: remote}}\n";
  EXPECT_EQ(
      parse(two +
            "switches: {s1: {kind: flowlab, controller: [a, b]}}\nlinks: [{endpoints: [h1:eth0, s1:p1]}]\n"),
      "ok");
  EXPECT_EQ(parse(two + "switches: {s1: {kind: flowlab, controller: [a, a]}}\n"),
            "t.yaml:4: key 'controller': controller 'a' is named twice or empty");
  EXPECT_NE(
      parse(two +
            "switches: {s1: {kind: flowlab, controller: [a, c]}}\nlinks: [{endpoints: [h1:eth0, s1:p1]}]\n")
          .find("switch 's1' names unknown controller 'c'"),
      std::string::npos);
  EXPECT_NE(
      parse("controllers: {a: {kind: remote, apps: [hub]}}\n").find("a remote controller runs elsewhere"),
      std::string::npos);
  EXPECT_NE(parse("controllers: {a: {kind: flowlab, apps: [hub], address: 1.2.3.4}}\n")
                .find("only a remote controller has an address"),
            std::string::npos);
  EXPECT_NE(
      parse("controllers: {a: {kind: remote, address: nowhere}}\n").find("'nowhere' is not an IPv4 address"),
      std::string::npos);
  EXPECT_NE(parse("switches: {s1: {kind: linux-bridge, protocols: OpenFlow13}}\n")
                .find("a linux-bridge speaks no OpenFlow"),
            std::string::npos);
  EXPECT_NE(parse("static_arp: maybe\n").find("static_arp"), std::string::npos);
  // controller_failover (Mininet's user switch): flowlab switches with a controller list
  EXPECT_EQ(parse(two + "switches: {s1: {kind: flowlab, controller: [a, b], controller_failover: true}}\n"
                        "links: [{endpoints: [h1:eth0, s1:p1]}]\n"),
            "ok");
  EXPECT_NE(parse(two + "switches: {s1: {kind: ovs, controller: [a, b], controller_failover: true}}\n")
                .find("ovs connects to all its controllers at once"),
            std::string::npos);
  EXPECT_NE(parse("switches: {s1: {kind: flowlab, controller_failover: true}}\n")
                .find("give the switch its 'controller' list"),
            std::string::npos);
  EXPECT_NE(
      parse("tests: [{type: ping, from: h1, to: h1, full: true}]\n").find("only a pingall test has 'full'"),
      std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

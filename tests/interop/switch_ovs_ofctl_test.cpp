// ovs-ofctl against flowlab switch's passive listener: add-flow installs flows
// that forward traffic between two namespace hosts, dump-flows shows them with
// their counters; the LOCAL port is a TAP device the switch's own host stack
// uses. Needs root and ovs-ofctl.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

TEST(SwitchOvsOfctl, AddFlowDumpFlowsAndForward) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("v");
  ASSERT_TRUE(hosts.ok());
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-ofctl" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  std::string target = " tcp:127.0.0.1:" + std::to_string(port);

  // No flows yet, fail-secure: nothing crosses.
  EXPECT_FALSE(hosts.ping(1));

  int st = -1;
  std::string out =
      run_output("ovs-ofctl -O OpenFlow13 add-flow" + target + " in_port=1,actions=output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output("ovs-ofctl -O OpenFlow13 add-flow" + target + " in_port=2,actions=output:1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();

  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(hosts.ping(3));

  out = run_output("ovs-ofctl -O OpenFlow13 dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_NE(out.find("in_port=1"), std::string::npos) << out;
  EXPECT_NE(out.find("actions=output:2"), std::string::npos) << out;
  EXPECT_NE(out.find("in_port=2"), std::string::npos) << out;
  EXPECT_EQ(out.find("n_packets=0,"), std::string::npos) << "both flows carried packets:\n" << out;

  out = run_output("ovs-ofctl -O OpenFlow13 dump-ports" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_NE(out.find("port  1: rx pkts="), std::string::npos) << out;

  out = run_output("ovs-ofctl -O OpenFlow13 del-flows" + target, &st);
  EXPECT_EQ(st, 0) << out;
  EXPECT_TRUE(eventually([&] { return !hosts.ping(1); }, 5s));
  out = run_output("ovs-ofctl -O OpenFlow13 dump-flows" + target, &st);
  EXPECT_EQ(out.find("in_port"), std::string::npos) << out;

  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

// `--local tap:NAME`: the switch runs in a namespace of its own; its LOCAL port
// is a TAP device there with 10.0.0.254, reached from host h1 once flows join
// port 1 and LOCAL. ovs-ofctl sees it as LOCAL(NAME) and counts on it.
TEST(SwitchOvsOfctl, LocalPortIsATapForTheSwitchHost) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET, TAP)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  std::string id = "l" + std::to_string(::getpid() % 100000);
  std::string swns = "fl" + id + "sw", h1 = "fl" + id + "h1", p1 = "fl" + id + "p1", tap = "fl" + id + "lt";
  auto in_sw = [&](const std::string& cmd) { return "ip netns exec " + swns + " " + cmd; };
  // Removed now (what a crashed run left) and when the test ends, pass or fail.
  struct Namespaces {
    std::vector<std::string> names;
    void remove() const {
      for (const auto& n : names) run_quiet("ip netns del " + n);
    }
    ~Namespaces() { remove(); }
  } namespaces{{swns, h1}};
  namespaces.remove();
  ASSERT_EQ(run_quiet("ip netns add " + swns), 0);
  ASSERT_EQ(run_quiet("ip netns add " + h1), 0);
  ASSERT_EQ(run_quiet(in_sw("ip link set lo up")), 0);
  ASSERT_EQ(run_quiet(in_sw("ip link add " + p1 + " type veth peer name eth0 netns " + h1)), 0);
  ASSERT_EQ(run_quiet(in_sw("ip link set " + p1 + " up")), 0);
  ASSERT_EQ(run_quiet("ip netns exec " + h1 + " ip addr add 10.0.0.1/24 dev eth0"), 0);
  ASSERT_EQ(run_quiet("ip netns exec " + h1 + " ip link set eth0 up"), 0);

  uint16_t port = free_tcp_port();
  std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  Process sw({"ip", "netns", "exec", swns, FLOWLAB_BINARY, "switch", "--name", "s1", "--port", p1, "--local",
              "tap:" + tap, "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-local" + id + ".log");
  int st = -1;
  std::string out;
  ASSERT_TRUE(eventually(
      [&] {
        out = run_output(in_sw("ovs-ofctl -O OpenFlow13 show" + target), &st);
        return st == 0;
      },
      10s))
      << out << sw.log();
  EXPECT_NE(out.find("LOCAL(" + tap + "): addr:"), std::string::npos) << out;
  EXPECT_NE(out.find(" 1(" + p1 + "): addr:"), std::string::npos) << out;
  EXPECT_NE(sw.log().find("port " + tap + " added as OpenFlow port LOCAL"), std::string::npos) << sw.log();
  ASSERT_EQ(run_quiet(in_sw("ip addr add 10.0.0.254/24 dev " + tap)), 0) << sw.log();
  auto ping = [&](int n) {
    return run_quiet("ip netns exec " + h1 + " ping -c " + std::to_string(n) + " -i 0.2 -W 1 10.0.0.254") ==
           0;
  };
  EXPECT_FALSE(ping(1)) << "no flows yet (fail-secure), yet h1 reached LOCAL";

  for (const char* f : {" in_port=1,actions=LOCAL", " in_port=LOCAL,actions=output:1"}) {
    out = run_output(in_sw("ovs-ofctl -O OpenFlow13 add-flow" + target + f), &st);
    ASSERT_EQ(st, 0) << out << sw.log();
  }
  EXPECT_TRUE(eventually([&] { return ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(ping(3));
  out = run_output(in_sw("ovs-ofctl -O OpenFlow13 dump-ports" + target + " LOCAL"), &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find("port LOCAL: rx pkts="), std::string::npos) << out;
  EXPECT_EQ(out.find("rx pkts=0,"), std::string::npos) << out;
  out = run_output(in_sw("ovs-ofctl -O OpenFlow13 dump-flows" + target), &st);
  EXPECT_NE(out.find("in_port=LOCAL"), std::string::npos) << out;
  EXPECT_EQ(out.find("n_packets=0,"), std::string::npos) << "both flows carried packets:\n" << out;

  EXPECT_EQ(sw.stop(), 0) << sw.log();
  // The TAP device was the switch's: it is gone with it.
  EXPECT_NE(run_quiet(in_sw("ip link show " + tap)), 0);
}

}  // namespace
}  // namespace flowlab::switch_interop

// Counters without forks, as root: after `h1 ping h2` through a lab of Linux
// bridges, the per-port counters read by one RTM_GETLINK dump of the switches'
// namespace equal what the kernel shows in /sys/class/net/*/statistics (read with
// `ip netns exec`, which mounts that namespace's sysfs); the bridge ports report
// STP state "forwarding" and have no IPv6 (netns.h, prepare_switch_namespace),
// while the hosts keep theirs. Bounded: a 2-host lab, a few seconds.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

class LabCounters : public LabDirTest {
 protected:
  LabCounters() : LabDirTest("counters-test", {"ip", "ping"}, 60) {}
  // One /sys statistics counter of `ifname`, as the namespace's own sysfs shows it.
  static long long sys_counter(const std::string& ns, const std::string& ifname, const std::string& what) {
    auto r = run_command({"cat", "/sys/class/net/" + ifname + "/statistics/" + what}, in_ns(ns, 10));
    EXPECT_TRUE(r.ok()) << r.describe();
    return r.ok() ? std::stoll(r.out) : -1;
  }
  static std::string read_in(const std::string& ns, const std::string& path) {
    auto r = run_command({"cat", path}, in_ns(ns, 10));
    return r.ok() ? r.out.substr(0, r.out.find('\n')) : "error: " + r.describe();
  }
};

TEST_F(LabCounters, BridgePortCountersFromNetlinkEqualSysAfterPing) {
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "linear,2", "--switch", "linux-bridge",
                         "--controller", "none", "--out", out()},
                        opts(60));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = up.out.substr(4, up.out.find(' ', 4) - 4);
  std::string core = "fl" + id + "-0-sw", h1 = "fl" + id + "-0-h1";
  auto ping =
      run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c3", "-i0.2", "-W5", "h2"}, opts(30));
  EXPECT_NE(ping.out.find("3 received"), std::string::npos) << ping.out << ping.err;

  // s1-eth1 faces h1: it received h1's echo requests (and ARP), sent the replies.
  long long rx0 = sys_counter(core, "s1-eth1", "rx_packets"),
            tx0 = sys_counter(core, "s1-eth1", "tx_packets");
  auto links = namespace_links(core);
  long long rx1 = sys_counter(core, "s1-eth1", "rx_packets"),
            tx1 = sys_counter(core, "s1-eth1", "tx_packets");
  ASSERT_TRUE(links.ok()) << links.error().message;
  const LinkInfo* port = nullptr;
  const LinkInfo* bridge = nullptr;
  for (const auto& l : *links) {
    if (l.name == "s1-eth1") port = &l;
    if (l.name == "br-s1") bridge = &l;
  }
  ASSERT_NE(port, nullptr);
  ASSERT_NE(bridge, nullptr);
  // Between two /sys reads (a host's IPv6 may still be sending): sys0 <= netlink <= sys1.
  EXPECT_GE((long long)port->rx_packets, rx0);
  EXPECT_LE((long long)port->rx_packets, rx1);
  EXPECT_GE((long long)port->tx_packets, tx0);
  EXPECT_LE((long long)port->tx_packets, tx1);
  EXPECT_GE(port->rx_packets, 3u) << "the three echo requests";
  EXPECT_GE(port->tx_packets, 3u) << "the three echo replies";
  EXPECT_EQ(port->master, bridge->index);
  EXPECT_STREQ(bridge_port_state_name(port->bridge_port_state), "forwarding");
  EXPECT_EQ(bridge->bridge_port_state, -1) << "a bridge is not a bridge port";
  EXPECT_TRUE(port->up);

  // No IPv6 on the switch side; the hosts keep it.
  EXPECT_EQ(read_in(core, "/proc/sys/net/ipv6/conf/s1-eth1/disable_ipv6"), "1");
  EXPECT_EQ(read_in(core, "/proc/sys/net/ipv6/conf/br-s1/disable_ipv6"), "1");
  EXPECT_EQ(read_in(h1, "/proc/sys/net/ipv6/conf/eth0/disable_ipv6"), "0");
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(60));
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
}

TEST_F(LabCounters, RunRecordsBridgeCountersAndStpStatesWithoutForks) {
  // `lab run` on a line of bridges: switch_counters come from the netlink dump, in
  // dump-ports form (rx pkts=...), per bridge only its own ports.
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,3", "--switch", "linux-bridge",
                        "--controller", "none", "--test", "pingall", "--out", out()},
                       opts(120));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out() + "/results.json");
  json j = json::parse(in, nullptr, false);
  ASSERT_TRUE(j.is_object());
  const json& c = j["cases"][0]["switch_counters"];
  std::string s2 = c["s2"].value("dump_ports", "");
  EXPECT_NE(s2.find("port s2-eth1: rx pkts="), std::string::npos) << s2;
  EXPECT_NE(s2.find("port s2-eth2: rx pkts="), std::string::npos) << s2;
  EXPECT_NE(s2.find("port s2-eth3: rx pkts="), std::string::npos) << s2;
  EXPECT_EQ(s2.find("s1-eth"), std::string::npos) << "only s2's own ports: " << s2;
  EXPECT_EQ(s2.find("rx pkts=0,"), std::string::npos) << "pingall crossed every port of s2: " << s2;
}

}  // namespace
}  // namespace flowlab::lab

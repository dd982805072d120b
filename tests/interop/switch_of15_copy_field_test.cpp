// Copy-field at OpenFlow 1.5 through real traffic: h1 reaches h2 only through
// a copy. h1 and h2 get MACs whose low 24 bits agree (02:00:01:11:22:33 and
// 02:00:00:11:22:33) and h1 a static neighbour entry for 10.0.0.2 whose low
// 24 bits are wrong (02:00:00:00:00:00). ovs-ofctl -O OpenFlow15 installs
// `move:eth_src[0..23]->eth_dst[0..23]` (OFPAT_COPY_FIELD on the wire) for
// h1's IPv4 frames above a plain flow for them: only with the 24 bits copied
// does h2 take the ping. Both ovs-ofctl and flowlab ofctl read the flow back
// in ovs-ofctl's text. Needs root and ovs-ofctl.
//
// The plain flow has priority 10, below the copy's 40: it once had the
// default 32768, so the copy never ran on either datapath (its n_packets
// stayed 0). On af-packet the ping then failed, as it should; on tc it
// crossed, because the kernel fast path's bpf_redirect_peer hands the frame
// to h2's stack as addressed to it whatever its destination MAC
// (docs/OPENFLOW.md), so the first of these tests passed by that.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

TEST(SwitchOvsOfctl15, CopyFieldRewritesTheDestinationMacAndThePingCrosses) {
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
  if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl is not installed";
  TwoHosts hosts("c");
  ASSERT_TRUE(hosts.ok());
  ASSERT_EQ(run_quiet(hosts.in1("ip link set eth0 address 02:00:01:11:22:33")), 0);
  ASSERT_EQ(run_quiet(hosts.in2("ip link set eth0 address 02:00:00:11:22:33")), 0);
  ASSERT_EQ(run_quiet(hosts.in1("ip neigh replace 10.0.0.2 lladdr 02:00:00:00:00:00 dev eth0 nud permanent")),
            0);
  uint16_t port = free_tcp_port();
  std::string pid = std::to_string(::getpid());
  Process sw({FLOWLAB_BINARY, "switch", "--name", "s1", "--port", hosts.port1(), "--port", hosts.port2(),
              "--listen", "ptcp:" + std::to_string(port) + ":127.0.0.1"},
             "/tmp/flowlab-switch-copy15-" + pid + ".log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(port); }, 10s)) << sw.log();
  const std::string target = " tcp:127.0.0.1:" + std::to_string(port);
  const std::string ovs = "ovs-ofctl -O OpenFlow15 ",
                    ours = std::string(FLOWLAB_BINARY) + " ofctl -O OpenFlow15 ";
  int st = -1;
  std::string out = run_output(ovs + "add-flow" + target + " in_port=2,actions=output:1", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  out = run_output(ovs + "add-flow" + target + " in_port=1,arp,actions=output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  // Without the copy h2 drops h1's frames (not its MAC): the check below can fail.
  // One echo: it goes through user space (the first of a flow), which sends
  // it as a veth does (h2's stack sees another host's MAC and drops it).
  out = run_output(ovs + "add-flow" + target + " priority=10,in_port=1,ip,actions=output:2", &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_FALSE(hosts.ping(1)) << "h2 took a frame that was not for its MAC";

  out = run_output(ovs + "add-flow" + target +
                       " 'priority=40,in_port=1,ip,actions=move:eth_src[0..23]->eth_dst[0..23],output:2'",
                   &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  EXPECT_TRUE(hosts.ping(3));
  // The copy ran: its flow counted the echoes, the plain flow only the first one.
  const std::string flows = run_output(ovs + "dump-flows" + target, &st);
  auto line_of = [&flows](std::string_view what) {
    const size_t at = flows.find(what);
    if (at == std::string::npos) return std::string();
    const size_t begin = flows.rfind('\n', at) + 1, end = flows.find('\n', at);
    return flows.substr(begin, end - begin);
  };
  EXPECT_EQ(line_of("priority=40,").find("n_packets=0,"), std::string::npos) << flows;
  EXPECT_NE(line_of("priority=10,").find("n_packets=1,"), std::string::npos) << flows;

  const std::string want = "move:NXM_OF_ETH_SRC[0..23]->NXM_OF_ETH_DST[0..23],output:2";
  out = run_output(ovs + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << out;
  EXPECT_NE(out.find(want), std::string::npos) << out;
  std::string mine = run_output(ours + "dump-flows" + target, &st);
  ASSERT_EQ(st, 0) << mine;
  EXPECT_NE(mine.find(want), std::string::npos) << mine;
  // flowlab ofctl writes the same flow (its own encoder) and the switch keeps both as one.
  out = run_output(
      ours + "add-flow" + target +
          " 'priority=40,in_port=1,ip,actions=copy_field:NXM_OF_ETH_SRC[0..23]->NXM_OF_ETH_DST[0..23],"
          "output:2'",
      &st);
  ASSERT_EQ(st, 0) << out << sw.log();
  // The re-added flow replaces the first; in one run the first echo right after it was
  // lost (tc and af-packet alike; not yet explained), so a few tries.
  EXPECT_TRUE(eventually([&] { return hosts.ping(1); }, 5s)) << sw.log();
  // A copy into a field the pipeline cannot write: the spec's error.
  out = run_output(
      ovs + "add-flow" + target + " 'in_port=1,ip,actions=move:eth_src[0..31]->OXM_OF_IN_PORT[]'", &st);
  EXPECT_NE(st, 0) << out;
  EXPECT_NE(out.find("OFPBAC_BAD_SET_TYPE"), std::string::npos) << out;
  EXPECT_TRUE(sw.running()) << sw.log();
  EXPECT_EQ(sw.stop(), 0) << sw.log();
}

}  // namespace
}  // namespace flowlab::switch_interop

// Links flapping under the learning switch and under the firewall (issue #14,
// faults), as root in namespaces with a 1 ms probe from h1 to h2 running: h2's
// link (the switch's port 2) goes down and up five times. Then, once h1 and h2
// talk again: the switch and the controller still run, traffic passes again
// (no stuck flow), and the counters add up: a burst of exactly N probe packets
// afterwards moves the learned flow's n_packets, port 1's rx and port 2's tx
// by N (give or take the odd ARP refresh), and the receiver counts N.
#include <gtest/gtest.h>

#include <regex>
#include <tuple>

#include "fault_net.h"

namespace flowlab::lab::fault {
namespace {

// Sum of n_packets over the flows whose line contains `match`.
uint64_t flow_packets(const std::string& dump, const std::string& match) {
  uint64_t n = 0;
  std::istringstream in(dump);
  static const std::regex re("n_packets=([0-9]+)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (line.find(match) != std::string::npos && std::regex_search(line, m, re)) n += std::stoull(m[1]);
  }
  return n;
}

// rx or tx packets of one port in a dump-ports reply.
uint64_t port_packets(const std::string& dump, uint32_t port, bool rx) {
  std::regex re("port +" + std::to_string(port) + ": rx pkts=([0-9]+)[^\\n]*\\n +tx pkts=([0-9]+)");
  std::smatch m;
  if (!std::regex_search(dump, m, re)) return ~0ULL;
  return std::stoull(m[rx ? 1 : 2]);
}

// (app, datapath): the learning switch or the firewall, on the kernel (tc)
// fast path or on AF_PACKET sockets only.
using FlapParam = std::tuple<std::string, std::string>;

class FaultFlap : public ::testing::TestWithParam<FlapParam> {
 protected:
  void SetUp() override {
    if (auto why = missing_for_fault_tests(); !why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(FaultFlap, FlapsLeaveNoCrashNoStuckFlowAndCountersAddUp) {
  const std::string app = std::get<0>(GetParam()), datapath = std::get<1>(GetParam());
  const bool firewall = app == "firewall";
  FaultNet net(std::string(firewall ? "ff" : "fl") + (datapath == "af-packet" ? "a" : "t"), 2);
  ASSERT_TRUE(net.ok());
  net.set_switch_args({"--datapath", datapath});
  std::vector<std::string> args = {"--app", "learning-switch"};
  if (firewall) {
    std::ofstream(net.dir() + "/rules.yaml") << kClientServerRules;
    args = {"--app", "firewall", "--app", "learning-switch", "--config", net.dir() + "/rules.yaml"};
  }
  net.set_controller_args(args);
  ASSERT_TRUE(net.start_controller()) << net.logs();
  ASSERT_TRUE(net.start_switch()) << net.logs();
  ASSERT_TRUE(net.wait_switch_connected()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();

  {
    FaultNet::Probe probe(net, 0, 1, 5.5, 1000);
    ASSERT_TRUE(probe.started());
    const std::string port = net.port_if(1);
    for (int k = 0; k < 5; ++k) {
      probe.sleep_until(0.5 + k * 0.4);
      ASSERT_TRUE(run_command({"ip", "link", "set", port, "down"}, in_ns(net.core(), 5)).ok());
      probe.sleep_until(0.7 + k * 0.4);
      ASSERT_TRUE(run_command({"ip", "link", "set", port, "up"}, in_ns(net.core(), 5)).ok());
    }
    // The learning switch forgot h2 when its link went down (its flows to port 2
    // deleted); until h2 sends again, h1's one-way stream is flooded by
    // packet-out, every packet through the controller, where a loaded machine
    // sheds some. Two-way traffic (a ping's reply here) teaches it h2 again.
    // One echo right after the flaps, through the controller both ways, missed
    // the 1 s it waits (seen: 0 of 1, the four variants 1 run in 5 beside each
    // other; why is not established: h2's neighbour entry survives a flap of
    // its link, checked by hand): three echoes, half a second apart; one
    // answered (by 4.5 s at the latest) is the two-way traffic.
    probe.sleep_until(2.5);
    EXPECT_GE(FaultNet::received(net.ping(0, 1, 3, 0.5)), 1) << net.logs();
    ASSERT_TRUE(probe.finish()) << probe.sender_output();
    EXPECT_GT(probe.lost_between(0.5, 2.5), 100u);  // the flaps did cut the stream
    // Then the stream is whole again, on the flows relearned: no stuck flow.
    EXPECT_EQ(probe.lost_between(4.5, 5.5), 0u) << net.logs();
  }
  EXPECT_TRUE(net.switch_running()) << net.logs();
  EXPECT_TRUE(net.controller_running()) << net.logs();
  ASSERT_EQ(FaultNet::received(net.ping(0, 1, 3, 0.1)), 3) << net.logs();

  // Exactly N packets now; every counter on their path moves by N.
  auto flows0 = net.ofctl({"dump-flows"}), ports0 = net.ofctl({"dump-ports"});
  ASSERT_TRUE(flows0.ok() && ports0.ok()) << flows0.describe() << ports0.describe();
  const uint64_t kN = 500;
  FaultNet::Probe burst(net, 0, 1, 0.5, 1000, 7004);
  ASSERT_TRUE(burst.started());
  ASSERT_TRUE(burst.finish()) << burst.sender_output();
  ASSERT_EQ(burst.sent, kN);
  EXPECT_EQ(kN - burst.lost(), kN) << "delivered";
  std::this_thread::sleep_for(1500ms);  // kernel-path counters are folded back on a timer
  auto flows1 = net.ofctl({"dump-flows"}), ports1 = net.ofctl({"dump-ports"});
  ASSERT_TRUE(flows1.ok() && ports1.ok());
  const std::string to_h1 = "dl_dst=02:00:00:00:00:02";
  // The learning switch's flow for the pair existed before the burst: it counts
  // every packet. Under the firewall the burst is a new connection: its first
  // packets miss table 0 (to the controller, sent on by packet-out), the rest hit
  // the connection's flow; the two add up to N.
  uint64_t flow_d = flow_packets(flows1.out, to_h1) - flow_packets(flows0.out, to_h1);
  if (firewall) {
    const std::string conn = "tp_dst=7004";
    auto table0_miss = [&](const std::string& dump) {
      uint64_t n = 0;
      std::istringstream in(dump);
      for (std::string line; std::getline(in, line);)
        if (line.find("table=0,") != std::string::npos && line.find("priority=0 ") != std::string::npos)
          n += flow_packets(line, "priority=0 ");
      return n;
    };
    flow_d = flow_packets(flows1.out, conn) - flow_packets(flows0.out, conn) + table0_miss(flows1.out) -
             table0_miss(flows0.out);
  }
  EXPECT_GE(flow_d, kN) << flows0.out << flows1.out;
  EXPECT_LE(flow_d, kN + 4) << flows0.out << flows1.out;
  uint64_t rx_d = port_packets(ports1.out, 1, true) - port_packets(ports0.out, 1, true);
  uint64_t tx_d = port_packets(ports1.out, 2, false) - port_packets(ports0.out, 2, false);
  EXPECT_GE(rx_d, kN) << ports0.out << ports1.out;
  EXPECT_LE(rx_d, kN + 10) << ports0.out << ports1.out;
  EXPECT_GE(tx_d, kN) << ports0.out << ports1.out;
  EXPECT_LE(tx_d, kN + 10) << ports0.out << ports1.out;
  // The flows are the ones the apps installed for this pair, not one per flap.
  EXPECT_LE(count_of(flows1.out, to_h1), firewall ? 2u : 1u) << flows1.out;
}

INSTANTIATE_TEST_SUITE_P(AppsAndDatapaths, FaultFlap,
                         ::testing::Combine(::testing::Values("learning-switch", "firewall"),
                                            ::testing::Values("tc", "af-packet")),
                         [](const auto& info) {
                           std::string name =
                               std::get<0>(info.param) == "firewall" ? "Firewall" : "LearningSwitch";
                           return name + (std::get<1>(info.param) == "af-packet" ? "AfPacket" : "Tc");
                         });

}  // namespace
}  // namespace flowlab::lab::fault

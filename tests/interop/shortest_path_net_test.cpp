// flowlab controller `shortest-path` on looped networks (root): a ring of 4
// and a fat-tree k=4, built here (switch_net.h) with flowlab switches and with
// OVS bridges (userspace datapath). Checked: every link discovered by LLDP,
// pingall complete, packet-ins bounded (no storm: a loop would multiply
// them), flows only on the switches of the path, and a cable pulled mid-stream
// (ping every 10 ms): traffic resumes on the other way round the ring, the
// longest gap is reported (a figure, not asserted). Needs root, ovs-ofctl
// (and ovs-vswitchd for the OVS runs); skips otherwise.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "switch_net.h"

namespace flowlab::switch_interop {
namespace {

using Kind = SwitchNet::Kind;

class ShortestPathNet : public ::testing::TestWithParam<Kind> {
 protected:
  void SetUp() override {
    if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
    if (!have(FLOWLAB_BINARY)) GTEST_SKIP() << "flowlab binary not built";
    if (!have("/usr/bin/ovs-ofctl")) GTEST_SKIP() << "ovs-ofctl not installed";
    if (GetParam() == Kind::kOvs && !have("/usr/sbin/ovs-vswitchd"))
      GTEST_SKIP() << "ovs-vswitchd not installed";
  }
  std::string tag() const { return GetParam() == Kind::kOvs ? "so" : "sf"; }
};

// Longest gap (ms) between successive replies in `ping -D` output after epoch t; -1 if none after t.
double longest_gap_ms(const std::string& out, double t, size_t* after = nullptr) {
  std::regex re(R"(\[(\d+\.\d+)\] \d+ bytes from)");
  std::vector<double> ts;
  for (std::sregex_iterator it(out.begin(), out.end(), re), end; it != end; ++it)
    ts.push_back(std::stod((*it)[1]));
  double prev = -1, gap = -1;
  size_t n = 0;
  for (double x : ts) {
    if (x >= t && prev > 0) {
      gap = std::max(gap, (x - prev) * 1000);
      ++n;
    }
    prev = x;
  }
  if (after) *after = n;
  return gap;
}

double epoch_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

TEST_P(ShortestPathNet, RingOfFour) {
  SwitchNet net(GetParam(), 4, tag());
  for (size_t s = 0; s < 4; ++s) ASSERT_TRUE(net.add_host(s));
  for (size_t s = 0; s < 4; ++s) ASSERT_TRUE(net.add_cable(s, (s + 1) % 4));
  ASSERT_TRUE(net.start("--app shortest-path")) << net.logs();
  ASSERT_TRUE(eventually([&] { return links_up(net) >= 8; }, 10s)) << net.logs();

  // h0 -> h1 (neighbours): flows for both MACs on s1 and s2 only.
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
  EXPECT_LT(pins, 400u) << "packet-in storm";  // 12 pairs; a loop would give thousands
  RecordProperty("packet_ins_ring4", int(pins));

  // Pull the s1-s2 cable while h0 pings h1 every 10 ms.
  std::string ping_out;
  std::thread pinger(
      [&] { ping_out = run_output(net.in(0, "ping -D -i 0.01 -W 1 -w 4 " + net.hosts()[1].ip)); });
  std::this_thread::sleep_for(1500ms);
  double t = epoch_now();
  ASSERT_EQ(run_quiet("ip link set " + net.cables()[0].ifa + " down"), 0);
  pinger.join();
  size_t after = 0;
  double gap = longest_gap_ms(ping_out, t, &after);
  EXPECT_GT(after, 50u) << "traffic did not resume after the cable went down:\n" << ping_out << net.logs();
  RecordProperty("outage_ms", int(gap));
  std::printf("ring of 4 (%s): packet-ins %llu, outage when s1-s2 lost carrier: %.0f ms\n",
              GetParam() == Kind::kOvs ? "OVS" : "flowlab", (unsigned long long)pins, gap);
  // The reply path now runs s2 -> s3 -> s4 -> s1: s3 carries flows towards h0.
  EXPECT_TRUE(has_flow_to(net.dump_flows(2), m0)) << net.dump_flows(2);
}

// Fat-tree k=4: 4 core, 8 aggregation, 8 edge switches, 2 hosts per edge switch.
TEST_P(ShortestPathNet, FatTreeK4) {
  SwitchNet net(GetParam(), 20, tag());
  auto core = [](size_t c) { return c; };
  auto agg = [](size_t pod, size_t a) { return 4 + pod * 2 + a; };
  auto edge = [](size_t pod, size_t e) { return 12 + pod * 2 + e; };
  for (size_t pod = 0; pod < 4; ++pod)
    for (size_t a = 0; a < 2; ++a) {
      for (size_t j = 0; j < 2; ++j) ASSERT_TRUE(net.add_cable(agg(pod, a), core(2 * a + j)));
      for (size_t e = 0; e < 2; ++e) ASSERT_TRUE(net.add_cable(agg(pod, a), edge(pod, e)));
    }
  for (size_t pod = 0; pod < 4; ++pod)
    for (size_t e = 0; e < 2; ++e)
      for (size_t h = 0; h < 2; ++h) ASSERT_TRUE(net.add_host(edge(pod, e)));
  ASSERT_EQ(net.cables().size(), 32u);
  ASSERT_TRUE(net.start("--app shortest-path")) << net.logs();
  ASSERT_TRUE(eventually([&] { return links_up(net) >= 64; }, 20s)) << links_up(net) << "\n" << net.logs();
  auto failed = net.pingall();
  if (!failed.empty()) failed = net.pingall();
  EXPECT_TRUE(failed.empty()) << failed.size() << " of 240 pairs failed, e.g. " << failed.front();
  std::this_thread::sleep_for(1200ms);
  uint64_t pins = packet_ins(net);
  EXPECT_GT(pins, 0u);
  EXPECT_LT(pins, 20000u) << "packet-in storm";  // 240 pairs over up to 5 switches each
  RecordProperty("packet_ins_fat_tree", int(pins));
  std::printf("fat-tree k=4 (%s): packet-ins %llu for a pingall of 16 hosts\n",
              GetParam() == Kind::kOvs ? "OVS" : "flowlab", (unsigned long long)pins);
}

INSTANTIATE_TEST_SUITE_P(Switches, ShortestPathNet, ::testing::Values(Kind::kFlowlab, Kind::kOvs),
                         [](const auto& info) { return info.param == Kind::kOvs ? "Ovs" : "Flowlab"; });

}  // namespace
}  // namespace flowlab::switch_interop

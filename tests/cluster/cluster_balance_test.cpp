// The controller cluster's balance and join (issue #24), as root in
// namespaces: six flowlab switches on three `flowlab controller --cluster`
// nodes. Two nodes share the six, 3 and 3; the third joins and takes its
// share by hand-offs, 2-2-2, every switch mastered all along; a killed switch
// comes back to all three nodes and is mastered again.
#include <gtest/gtest.h>

#include "cluster_net.h"

namespace flowlab::cluster_test {
namespace {

class ClusterBalance : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_for_cluster_tests(); !why.empty()) GTEST_SKIP() << why;
  }
};

// Switches mastered per node, in cluster-status; -1 if a switch has no master.
std::map<std::string, int> shares(const nlohmann::json& status, size_t switches) {
  std::map<std::string, int> out;
  size_t n = 0;
  for (const auto& s : status.value("switches", nlohmann::json::array())) {
    if (!s["master"].is_string()) return {{"", -1}};
    out[s["master"].get<std::string>()]++;
    ++n;
  }
  if (n != switches) return {{"", -1}};
  return out;
}

TEST_F(ClusterBalance, SixSwitchesSpreadOverTwoNodesThenAThirdJoinsAndTakesItsShare) {
  ClusterNet c("cb", 2);
  ASSERT_TRUE(c.ok()) << c.logs();
  ASSERT_TRUE(c.start_node(0)) << c.logs();
  ASSERT_TRUE(c.start_node(1)) << c.logs();
  ASSERT_TRUE(c.start_switch()) << c.logs();
  for (uint64_t d = 2; d <= 6; ++d) ASSERT_TRUE(c.start_bare_switch(d)) << c.logs();
  std::map<std::string, int> want2 = {{"c0", 3}, {"c1", 3}};
  ASSERT_TRUE(eventually([&] { return shares(c.status(), 6) == want2; }, 30s))
      << c.status().dump(1) << c.logs();
  ASSERT_EQ(FaultNet::received(c.net().ping(0, 1, 3, 0.1)), 3) << c.logs();

  ASSERT_TRUE(c.start_node(2)) << c.logs();
  std::map<std::string, int> want3 = {{"c0", 2}, {"c1", 2}, {"c2", 2}};
  std::string unmastered;  // the first status read that showed a switch with no master
  ASSERT_TRUE(eventually(
      [&] {
        auto st = c.status();
        auto s = shares(st, 6);
        // A listed switch with no master; a read that failed or listed fewer switches is not one.
        for (const auto& sw : st.value("switches", nlohmann::json::array()))
          if (st.value("switches", nlohmann::json::array()).size() == 6 && !sw["master"].is_string() &&
              unmastered.empty())
            unmastered = st.dump(1);
        return s == want3;
      },
      30s))
      << c.status().dump(1) << c.logs();
  EXPECT_TRUE(unmastered.empty()) << "a switch was left without a master during the hand-offs:\n"
                                  << unmastered << c.logs();
  EXPECT_TRUE(c.node_log(0).find("handing mastership over") != std::string::npos ||
              c.node_log(1).find("handing mastership over") != std::string::npos)
      << c.logs();
  // The switches agree (each node's stats, written every second, say what the switches granted).
  auto total = [&] {
    int n = 0;
    for (int i = 0; i < ClusterNet::kNodes; ++i) n += int(c.masters(i));
    return n;
  };
  EXPECT_TRUE(eventually([&] { return total() == 6 && c.masters(2) == 2; }, 5s)) << total() << c.logs();
  EXPECT_EQ(FaultNet::received(c.net().ping(0, 1, 3, 0.1)), 3) << c.logs();

  // The host switch killed and started again: it reconnects to every node and is mastered.
  ASSERT_TRUE(c.net().kill_switch());
  ASSERT_TRUE(c.net().restart_switch()) << c.logs();
  ASSERT_TRUE(eventually(
      [&] {
        return c.connected(0) >= 1 && c.connected(1) >= 1 && c.connected(2) >= 1 &&
               !c.master_of(1).first.empty() && shares(c.status(), 6) == want3;
      },
      30s))
      << c.status().dump(1) << c.logs();
  EXPECT_EQ(FaultNet::received(c.net().ping(0, 1, 3, 0.1)), 3) << c.logs();
}

}  // namespace
}  // namespace flowlab::cluster_test

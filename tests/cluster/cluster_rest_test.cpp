// The controller cluster's REST API (issue #24), as root in namespaces: three
// `flowlab controller --cluster --rest` nodes, flowlab's switch on all three.
//   - a flow added through a slave node's REST reaches the switch (stored in
//     etcd, sent by the master); one added through the master's too;
//   - the switch loses both (deleted behind the controllers' backs), the
//     master is killed with -9: the new master re-asserts both from etcd;
//   - the switch killed and started again reconnects to every live node, one
//     of them masters it and it gets the stored flows again;
//   - a clear through any node empties the log: the next master replays nothing.
#include <gtest/gtest.h>

#include "cluster_net.h"

namespace flowlab::cluster_test {
namespace {

int rest_port(int i) { return 8090 + i; }

// curl in the core namespace: (HTTP status, body).
std::pair<int, std::string> http(ClusterNet& c, int node, const std::string& method, const std::string& path,
                                 const std::string& body = "") {
  std::vector<std::string> argv = {"curl", "-s", "-m", "10", "-X", method, "-w", "\n%{http_code}"};
  if (!body.empty()) argv.insert(argv.end(), {"-H", "Content-Type: application/json", "-d", body});
  argv.push_back(fmt::format("http://127.0.0.1:{}{}", rest_port(node), path));
  auto r = lab::run_command(argv, lab::in_ns(c.net().core(), 15));
  auto nl = r.out.rfind('\n');
  if (nl == std::string::npos) return {0, r.out + r.err};
  return {std::atoi(r.out.c_str() + nl + 1), r.out.substr(0, nl)};
}

std::string flow_body(int priority, const std::string& dst) {
  return fmt::format(
      R"({{"dpid": 1, "priority": {}, "cookie": 2748, "table_id": 0, "match": {{"in_port": 1, "dl_type": 2048, )"
      R"("ipv4_dst": "{}"}}, "actions": [{{"type": "OUTPUT", "port": 2}}]}})",
      priority, dst);
}

bool has_flow(ClusterNet& c, int priority) {
  auto r = c.net().ofctl({"dump-flows"});
  return r.ok() && r.out.find(fmt::format("priority={}", priority)) != std::string::npos;
}

class ClusterRest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = missing_for_cluster_tests(); !why.empty()) GTEST_SKIP() << why;
    if (!lab::have_program("curl")) GTEST_SKIP() << "needs curl";
  }
};

TEST_F(ClusterRest, WritesOnAnyNodeReachTheSwitchAndANewMasterReassertsThem) {
  ClusterNet c("crs", 2);
  ASSERT_TRUE(c.ok()) << c.logs();
  for (int i = 0; i < ClusterNet::kNodes; ++i)
    ASSERT_TRUE(c.start_node(i, {"--rest", fmt::format("127.0.0.1:{}", rest_port(i))})) << c.logs();
  ASSERT_TRUE(c.start_switch()) << c.logs();
  int master = -1;
  ASSERT_TRUE(eventually(
      [&] {
        master = c.master_node();
        return master >= 0 && c.connected(0) == 1 && c.connected(1) == 1 && c.connected(2) == 1;
      },
      20s))
      << c.status().dump(1) << c.logs();
  const int slave = (master + 1) % ClusterNet::kNodes;

  // A write on a slave: stored, answered 200, sent by the master.
  auto r = http(c, slave, "POST", "/stats/flowentry/add", flow_body(4321, "10.9.9.1"));
  ASSERT_EQ(r.first, 200) << r.second << c.logs();
  ASSERT_TRUE(eventually([&] { return has_flow(c, 4321); }, 5s))
      << c.net().ofctl({"dump-flows"}).out << c.logs();
  // A write on the master: sent at once, answered once the switch confirmed it.
  r = http(c, master, "POST", "/stats/flowentry/add", flow_body(4322, "10.9.9.2"));
  ASSERT_EQ(r.first, 200) << r.second << c.logs();
  EXPECT_TRUE(has_flow(c, 4322)) << c.net().ofctl({"dump-flows"}).out;
  // Bad input is refused where it came in, nothing stored.
  r = http(c, slave, "POST", "/stats/flowentry/add", R"({"dpid": 1, "match": {"in_port": "x"}})");
  EXPECT_EQ(r.first, 400) << r.second;
  // The slave reads the switch too.
  r = http(c, slave, "GET", "/stats/flow/1");
  EXPECT_EQ(r.first, 200);
  EXPECT_NE(r.second.find("4321"), std::string::npos) << r.second;

  // The switch loses both behind the controllers' backs; the master dies; the
  // next master re-asserts them from etcd.
  ASSERT_TRUE(c.net().ofctl({"del-flows", "ip"}).ok());
  ASSERT_FALSE(has_flow(c, 4321));
  ASSERT_TRUE(c.kill_node(master));
  int next = -1;
  ASSERT_TRUE(eventually(
      [&] {
        next = c.master_node();
        return next >= 0 && next != master;
      },
      10s))
      << c.status().dump(1) << c.logs();
  ASSERT_TRUE(eventually([&] { return has_flow(c, 4321) && has_flow(c, 4322); }, 5s))
      << c.net().ofctl({"dump-flows"}).out << c.logs();
  EXPECT_NE(c.node_log(next).find("re-asserted 2 stored change(s)"), std::string::npos) << c.node_log(next);

  // The switch killed and started again: it reconnects to both live nodes, one
  // masters it and gives it the stored flows.
  ASSERT_TRUE(c.net().kill_switch());
  ASSERT_TRUE(c.net().restart_switch()) << c.logs();
  const int other = 3 - master - next;  // the third node, still alive
  ASSERT_TRUE(eventually(
      [&] {
        int m = c.master_node();
        return m >= 0 && m != master && c.connected(next) == 1 && c.connected(other) == 1 &&
               has_flow(c, 4321) && has_flow(c, 4322);
      },
      20s))
      << c.status().dump(1) << c.net().ofctl({"dump-flows"}).out << c.logs();

  // A clear through any node empties the switch and the log.
  r = http(c, other, "DELETE", "/stats/flowentry/clear/1");
  ASSERT_EQ(r.first, 200) << r.second;
  ASSERT_TRUE(eventually([&] { return !has_flow(c, 4321) && !has_flow(c, 4322); }, 5s))
      << c.net().ofctl({"dump-flows"}).out << c.logs();
  auto left = c.etcd().in_netns([&] {
    coord::EtcdClient etcd(c.etcd().config());
    return etcd.get_prefix("/flowlab/cluster-flows/");
  });
  ASSERT_TRUE(left.ok()) << left.error().message;
  ASSERT_EQ(left->kvs.size(), 1u);  // the clear itself, not replayed
  EXPECT_NE(left->kvs[0].value.find("\"replay\":false"), std::string::npos) << left->kvs[0].value;
}

}  // namespace
}  // namespace flowlab::cluster_test

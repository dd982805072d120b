// The cluster's keys and values (src/cluster/view.h) and the balance
// (balance.h): exact records, candidates in election order, what is skipped.
#include "cluster/view.h"

#include <gtest/gtest.h>

#include "cluster/balance.h"
#include "cluster/status.h"

namespace flowlab::cluster {
namespace {

coord::KeyValue kv(std::string key, std::string value, int64_t lease, int64_t rev) {
  coord::KeyValue k;
  k.key = std::move(key);
  k.value = std::move(value);
  k.lease = lease;
  k.create_revision = rev;
  return k;
}

TEST(ClusterView, KeysAreUnderTheClusterRoot) {
  const auto root = cluster_root("lab");
  EXPECT_EQ(root, "/flowlab/cluster/lab/");
  EXPECT_EQ(node_key(root, "c1"), "/flowlab/cluster/lab/nodes/c1");
  EXPECT_EQ(candidate_key(root, 0x2a, 0x694d),
            "/flowlab/cluster/lab/switches/000000000000002a/000000000000694d");
}

TEST(ClusterView, NodeRecordRoundTripsAndBadOnesAreRefused) {
  NodeRecord n{"c1", 0x694d7a1c2b3e4f01, "10.0.0.1:41000", "10.0.0.1:8080", 1764750000000};
  auto back = decode_node(encode_node(n));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->node, "c1");
  EXPECT_EQ(back->lease, 0x694d7a1c2b3e4f01);
  EXPECT_EQ(back->peer, "10.0.0.1:41000");
  EXPECT_EQ(back->rest, "10.0.0.1:8080");
  EXPECT_EQ(back->since_ms, 1764750000000);
  EXPECT_FALSE(decode_node(""));
  EXPECT_FALSE(decode_node("[]"));
  EXPECT_FALSE(decode_node(R"({"node":"c1","peer":"a:1"})"));                            // no lease
  EXPECT_FALSE(decode_node(R"({"node":"c1","lease":"xyz","peer":"a:1"})"));              // not hex
  EXPECT_FALSE(decode_node(R"({"node":"c 1","lease":"1","peer":"a:1"})"));               // bad name
  EXPECT_FALSE(decode_node(R"({"node":"c1","lease":"11111111111111111","peer":"a"})"));  // 17 digits
  EXPECT_FALSE(decode_candidate(R"({"node":"c1","state":"boss"})"));
  auto c = decode_candidate(encode_candidate("c2", true, 5));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->node, "c2");
  EXPECT_TRUE(c->master);
  EXPECT_EQ(c->since_ms, 5);
}

TEST(ClusterView, CandidatesInCreateRevisionOrderAndUndecodableKeysSkipped) {
  const auto root = cluster_root("t");
  std::vector<coord::KeyValue> kvs = {
      kv(node_key(root, "c1"), encode_node({"c1", 10, "h:1", "", 0}), 10, 3),
      kv(node_key(root, "c2"), encode_node({"c2", 11, "h:2", "", 0}), 11, 4),
      kv(candidate_key(root, 1, 11), encode_candidate("c2", false, 0), 11, 9),
      kv(candidate_key(root, 1, 10), encode_candidate("c1", true, 0), 10, 7),
      kv(node_key(root, "c3"), encode_node({"c9", 12, "h:3", "", 0}), 12, 5),  // key and name differ
      kv(root + "switches/zz/10", encode_candidate("c1", false, 0), 10, 8),    // dpid not hex
      kv(candidate_key(root, 2, 10), encode_candidate("c1", false, 0), 0, 8),  // no lease
      kv(root + "other", "x", 0, 2),
  };
  auto v = build_view(root, kvs, 20);
  EXPECT_EQ(v.revision, 20);
  EXPECT_EQ(v.nodes.size(), 2u);
  ASSERT_EQ(v.switches.size(), 1u);
  ASSERT_EQ(v.switches[1].size(), 2u);
  EXPECT_EQ(v.leader(1)->node, "c1");
  EXPECT_EQ(v.leader(1)->create_revision, 7);
  EXPECT_TRUE(v.leader(1)->master);
  EXPECT_EQ(v.switches[1][1].node, "c2");
  EXPECT_EQ(v.skipped, 4u);
  EXPECT_EQ(v.leader(2), nullptr);

  auto j = status_json(v, "t");
  ASSERT_EQ(j["switches"].size(), 1u);
  EXPECT_EQ(j["switches"][0]["master"], "c1");
  EXPECT_EQ(j["switches"][0]["generation_id"], 7);
  EXPECT_EQ(j["nodes"][0]["masters"], 1);
  EXPECT_EQ(j["nodes"][1]["masters"], 0);
  auto text = status_text(v, "t");
  EXPECT_NE(text.find("cluster t: 2 node(s), 1 switch(es), 1 mastered (etcd revision 20)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("4 key(s) under the cluster's root did not decode"), std::string::npos) << text;
}

TEST(ClusterView, AHandOffMovesTheKeyAndStatusNamesTheNodeStillServing) {
  const auto root = cluster_root("t");
  const auto first = candidate_key(root, 1, 10);
  EXPECT_EQ(requeued_key(root, 1, 10, first), first + ".1");
  EXPECT_EQ(requeued_key(root, 1, 10, first + ".1"), first);
  // c1 was master and went to the back; c2 leads but the switch has not granted it yet.
  std::vector<coord::KeyValue> kvs = {
      kv(node_key(root, "c1"), encode_node({"c1", 10, "h:1", "", 0}), 10, 3),
      kv(node_key(root, "c2"), encode_node({"c2", 11, "h:2", "", 0}), 11, 4),
      kv(candidate_key(root, 1, 11), encode_candidate("c2", false, 0), 11, 9),
      kv(requeued_key(root, 1, 10, first), encode_candidate("c1", true, 0), 10, 12),
  };
  auto v = build_view(root, kvs, 20);
  EXPECT_EQ(v.skipped, 0u);
  ASSERT_EQ(v.switches[1].size(), 2u);
  EXPECT_EQ(v.leader(1)->node, "c2");
  auto j = status_json(v, "t");
  EXPECT_EQ(j["switches"][0]["master"], "c1");
  EXPECT_EQ(j["switches"][0]["generation_id"], 12);
  EXPECT_EQ(j["switches"][0]["handing_over_to"], "c2");
  EXPECT_EQ(j["nodes"][0]["masters"], 1);
  // Once c2 is granted, it is the master and the hand-off is over.
  kvs[2].value = encode_candidate("c2", true, 0);
  j = status_json(build_view(root, kvs, 21), "t");
  EXPECT_EQ(j["switches"][0]["master"], "c2");
  EXPECT_TRUE(j["switches"][0]["handing_over_to"].is_null());
}

// A view of `nodes` nodes, every one a candidate of every switch, node i's
// keys created in the order given by `first` (the leader of each switch).
ClusterView full_view(int nodes, int switches, const std::function<int(int)>& first) {
  ClusterView v;
  for (int n = 0; n < nodes; ++n)
    v.nodes["c" + std::to_string(n)] = {"c" + std::to_string(n), 100 + n, "h:1", "", 0};
  for (int s = 1; s <= switches; ++s) {
    int lead = first(s);
    int64_t rev = 1;
    for (int k = 0; k < nodes; ++k) {
      int n = (lead + k) % nodes;
      Candidate c;
      c.node = "c" + std::to_string(n);
      c.lease = 100 + n;
      c.create_revision = s * 10 + rev++;
      v.switches[uint64_t(s)].push_back(c);
    }
  }
  return v;
}

std::map<std::string, int> loads(const std::map<uint64_t, std::string>& m) {
  std::map<std::string, int> out;
  for (const auto& [d, n] : m) out[n]++;
  return out;
}

TEST(ClusterBalance, HundredSwitchesOverThreeNodesFirstComeLeadersAreSpread) {
  // Node c0 connected first everywhere: it leads all 100 elections.
  auto v = full_view(3, 100, [](int) { return 0; });
  auto m = preferred_masters(v);
  ASSERT_EQ(m.size(), 100u);
  auto l = loads(m);
  EXPECT_EQ(l["c0"], 34);  // keeps its first ceil(100/3)
  EXPECT_EQ(l["c1"] + l["c2"], 66);
  EXPECT_GE(l["c1"], 28);
  EXPECT_GE(l["c2"], 28);
  EXPECT_LE(l["c1"], 34);
  EXPECT_LE(l["c2"], 34);
}

TEST(ClusterBalance, BalancedLeadersStayAndAJoinMovesOnlyAShare) {
  auto v = full_view(2, 6, [](int s) { return s % 2; });
  auto m2 = preferred_masters(v);
  for (const auto& [d, n] : m2) EXPECT_EQ(n, v.leader(d)->node) << d;  // balanced already: nothing moves
  // c2 joins: a candidate everywhere, last in every queue.
  v.nodes["c2"] = {"c2", 102, "h:1", "", 0};
  for (auto& [d, cands] : v.switches) cands.push_back({"c2", 102, 1000 + int64_t(d), false, 0, ""});
  auto m3 = preferred_masters(v);
  EXPECT_EQ(loads(m3), (std::map<std::string, int>{{"c0", 2}, {"c1", 2}, {"c2", 2}}));
  int moved = 0;
  for (const auto& [d, n] : m3) moved += n != m2[d];
  EXPECT_EQ(moved, 2);
}

TEST(ClusterBalance, CandidatesOfDeadNodesAreIgnored) {
  auto v = full_view(3, 4, [](int) { return 0; });
  v.nodes.erase("c0");  // its node key went with its lease; its candidate keys are about to
  auto m = preferred_masters(v);
  for (const auto& [d, n] : m) EXPECT_NE(n, "c0");
  EXPECT_EQ(loads(m), (std::map<std::string, int>{{"c1", 2}, {"c2", 2}}));
  EXPECT_TRUE(preferred_masters(ClusterView{}).empty());
}

TEST(ClusterBalance, RendezvousScoresDependOnNodeAndSwitch) {
  EXPECT_EQ(rendezvous_score("c1", 7), rendezvous_score("c1", 7));
  EXPECT_NE(rendezvous_score("c1", 7), rendezvous_score("c2", 7));
  EXPECT_NE(rendezvous_score("c1", 7), rendezvous_score("c1", 8));
}

}  // namespace
}  // namespace flowlab::cluster

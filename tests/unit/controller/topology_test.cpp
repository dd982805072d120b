// Topology building blocks without sockets: LLDP frames against bytes
// recorded from os-ken (os_ken.topology.switches.LLDPPacket.lldp_packet(1, 2,
// '02:00:00:00:00:02', 120)), malformed LLDP, and the graph's paths, trees and
// spanning tree on a ring of 4 and a fat-tree k=4.
#include <gtest/gtest.h>

#include <set>

#include "controller/topology/graph.h"
#include "controller/topology/lldp.h"
#include "core/bytes.h"

namespace flowlab::controller::topology {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  for (size_t i = 0; i + 1 < s.size(); i += 2)
    b.push_back(uint8_t(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
  return b;
}

const char* kOskenLldp =
    "0180c200000e02000000000288cc021607647069643a303030303030303030303030303030310405020000000206020078000000"
    "00"
    "00000000000000";

TEST(Lldp, EncodesTheBytesOsKenSends) {
  Bytes f = encode_lldp(LldpId{1, 2}, MacAddr::from_u64(0x020000000002));
  EXPECT_EQ(to_hex(f), to_hex(hex(kOskenLldp)));
}

TEST(Lldp, DecodesOsKenFramesAndItsOwn) {
  auto id = decode_lldp(hex(kOskenLldp));
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(*id, (LldpId{1, 2}));
  LldpId big{0xfedcba9876543210ull, 0xfffffff0u};
  auto back = decode_lldp(encode_lldp(big, MacAddr::from_u64(0x0a0b0c0d0e0f)));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(*back, big);
}

TEST(Lldp, RejectsMalformedFramesWithAReason) {
  Bytes good = hex(kOskenLldp);
  auto expect_error = [](const Bytes& f, std::string_view what) {
    auto r = decode_lldp(f);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find(what), std::string::npos) << r.error().message;
  };
  expect_error(Bytes(good.begin(), good.begin() + 10), "shorter");
  Bytes ip = good;
  ip[12] = 0x08, ip[13] = 0x00;
  expect_error(ip, "0x0800");
  expect_error(Bytes(good.begin(), good.begin() + 20), "runs past");  // chassis TLV cut
  expect_error(Bytes(good.begin(), good.begin() + 15), "truncated");
  Bytes bad_chassis = good;
  bad_chassis[17] = 'X';  // "dpid:" -> "Xpid:"
  expect_error(bad_chassis, "dpid:");
  Bytes bad_hex = good;
  bad_hex[37] = 'g';
  expect_error(bad_hex, "not hex");
  Bytes no_port = good;
  no_port[38] = 0;  // the port TLV becomes the end TLV (type 0)
  no_port[39] = 0;
  expect_error(no_port, "no port ID");
  // Every prefix of a good frame fails cleanly (no crash, no read past the end).
  for (size_t n = 0; n < 51; ++n)
    EXPECT_FALSE(decode_lldp(Bytes(good.begin(), good.begin() + long(n))).ok()) << n;
}

// Ring s1-s2-s3-s4-s1: port 1 towards the next switch, port 2 towards the previous.
Graph ring4() {
  Graph g;
  for (uint64_t i = 1; i <= 4; ++i) {
    uint64_t next = i % 4 + 1;
    g.add_edge(Edge{{i, 1}, {next, 2}});
    g.add_edge(Edge{{next, 2}, {i, 1}});
  }
  return g;
}

TEST(Graph, ShortestPathsOnARing) {
  Graph g = ring4();
  auto p = g.path(1, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<Hop>{{1, 1}}));
  p = g.path(2, 1);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<Hop>{{2, 2}}));
  // Two equal paths 1->3 (via 2 or via 4): the lower next-hop dpid wins.
  p = g.path(1, 3);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<Hop>{{1, 1}, {2, 1}}));
  EXPECT_EQ(g.path(3, 3)->size(), 0u);
  EXPECT_FALSE(g.path(1, 9));
}

TEST(Graph, WeightsMoveThePath) {
  Graph g;
  for (uint64_t i = 1; i <= 4; ++i) {
    uint64_t next = i % 4 + 1;
    uint32_t w = i == 1 ? 10 : 1;  // the 1<->2 cable is expensive
    g.add_edge(Edge{{i, 1}, {next, 2}, w});
    g.add_edge(Edge{{next, 2}, {i, 1}, w});
  }
  auto p = g.path(1, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<Hop>{{1, 2}, {4, 2}, {3, 2}}));
}

TEST(Graph, TreeToADestinationIsConsistent) {
  Graph g = ring4();
  auto t = g.tree_to(3);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_FALSE(t.count(3));
  // Following next hops from any switch reaches 3 without revisiting a switch.
  for (uint64_t s : {1, 2, 4}) {
    auto p = g.path(s, 3);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->front(), t.at(s));
    EXPECT_LE(p->size(), 2u);
  }
}

TEST(Graph, RemovingALinkReroutes) {
  Graph g;  // the ring without 1<->2
  for (uint64_t i = 2; i <= 4; ++i) {
    uint64_t next = i % 4 + 1;
    g.add_edge(Edge{{i, 1}, {next, 2}});
    g.add_edge(Edge{{next, 2}, {i, 1}});
  }
  auto p = g.path(1, 2);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (std::vector<Hop>{{1, 2}, {4, 2}, {3, 2}}));
  g.add_switch(9);  // isolated
  EXPECT_FALSE(g.path(1, 9));
  EXPECT_TRUE(g.tree_to(9).empty());
}

TEST(Graph, SpanningTreeOfARingDropsOneCable) {
  Graph g = ring4();
  auto st = g.spanning_tree();
  EXPECT_EQ(st.size(), 6u);  // 3 cables, both ends
  // Exactly one cable is left out, and it is left out at both ends.
  int out = 0;
  for (uint64_t i = 1; i <= 4; ++i) {
    uint64_t next = i % 4 + 1;
    bool a = st.count(PortRef{i, 1}), b = st.count(PortRef{next, 2});
    EXPECT_EQ(a, b);
    out += !a;
  }
  EXPECT_EQ(out, 1);
}

// Fat-tree k=4: 4 core, 8 aggregation, 8 edge switches, 32 cables.
// core c (1..4), pod p (0..3): agg 100+10p+a (a=0,1), edge 200+10p+e (e=0,1).
// agg a connects to cores 2a+1, 2a+2 (agg ports 3,4; core port p+1); agg port e+1 -> edge port a+3.
Graph fat_tree4(size_t* cables) {
  Graph g;
  size_t n = 0;
  auto cable = [&](PortRef a, PortRef b) {
    g.add_edge(Edge{a, b});
    g.add_edge(Edge{b, a});
    ++n;
  };
  for (uint32_t p = 0; p < 4; ++p)
    for (uint32_t a = 0; a < 2; ++a) {
      uint64_t agg = 100 + 10 * p + a;
      for (uint32_t j = 0; j < 2; ++j) cable({agg, 3 + j}, {uint64_t(2 * a + 1 + j), p + 1});
      for (uint32_t e = 0; e < 2; ++e) cable({agg, e + 1}, {200 + 10 * p + e, a + 3});
    }
  *cables = n;
  return g;
}

TEST(Graph, FatTreePathsAndSpanningTree) {
  size_t cables = 0;
  Graph g = fat_tree4(&cables);
  EXPECT_EQ(cables, 32u);
  EXPECT_EQ(g.n_switches(), 20u);
  // Same pod: edge -> agg -> edge (2 hops); other pod: edge -> agg -> core -> agg -> edge.
  EXPECT_EQ(g.path(200, 201)->size(), 2u);
  EXPECT_EQ(g.path(200, 231)->size(), 4u);
  auto st = g.spanning_tree();
  EXPECT_EQ(st.size(), 2 * (g.n_switches() - 1));  // a tree over 20 switches has 19 cables
  // Every switch is touched by the tree.
  std::set<uint64_t> touched;
  for (const auto& p : st) touched.insert(p.dpid);
  EXPECT_EQ(touched.size(), 20u);
}

}  // namespace
}  // namespace flowlab::controller::topology

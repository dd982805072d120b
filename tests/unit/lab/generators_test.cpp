// Topology generators against Mininet 2.3.0: node/link counts, names, port order,
// address order; Mininet's --topo syntax and its errors.
#include "lab/generate/generators.h"

#include <gtest/gtest.h>

#include <set>

namespace flowlab::lab {
namespace {

struct Count {
  std::string topo;
  size_t hosts, switches, links;
};

// Counted with Mininet 2.3.0's own classes (mininet/topo.py, topolib.py:
// len(t.hosts()), len(t.switches()), len(t.links())); fat-tree is not in Mininet and
// follows the k-ary fat tree: k^3/4 hosts, 5k^2/4 switches, 3k^3/4 links.
const Count kMininet[] = {
    {"single,4", 4, 1, 4},       {"linear,4", 4, 4, 7},       {"linear,3,2", 6, 3, 8},
    {"tree,2,3", 9, 4, 12},      {"tree,3,2", 8, 7, 14},      {"tree,2,2", 4, 3, 6},
    {"torus,3,3", 9, 9, 27},     {"torus,4,3,2", 24, 12, 48}, {"fat-tree,4", 16, 20, 48},
    {"fat-tree,6", 54, 45, 162}, {"single", 2, 1, 2},         {"tree", 2, 1, 2},
};

TEST(Generators, CountsMatchMininet) {
  for (const auto& c : kMininet) {
    SCOPED_TRACE(c.topo);
    auto req = parse_topo_arg(c.topo);
    ASSERT_TRUE(req.ok()) << req.error().message;
    auto t = generate_topology(req->type, req->args);
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->hosts.size(), c.hosts);
    EXPECT_EQ(t->switches.size(), c.switches);
    EXPECT_EQ(t->links.size(), c.links);
    std::set<std::string> names(t->hosts.begin(), t->hosts.end());
    names.insert(t->switches.begin(), t->switches.end());
    EXPECT_EQ(names.size(), c.hosts + c.switches) << "names are unique";
    std::set<uint64_t> dpids;
    for (const auto& [n, d] : t->dpids) dpids.insert(d);
    EXPECT_EQ(dpids.size(), c.switches) << "dpids are unique";
    EXPECT_EQ(dpids.count(0), 0u);
  }
}

TEST(Generators, TreeNumbersPreOrderAndLinksInMininetOrder) {
  auto t = generate_topology("tree", {{"depth", 2}, {"fanout", 2}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->switches, (std::vector<std::string>{"s1", "s2", "s3"}));
  EXPECT_EQ(t->hosts, (std::vector<std::string>{"h1", "h2", "h3", "h4"}));
  // Mininet adds s2-h1, s2-h2, then s1-s2 (s1 port 1, s2 port 3), then s3's subtree.
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(
      t->links,
      (std::vector<P>{{"s2", "h1"}, {"s2", "h2"}, {"s1", "s2"}, {"s3", "h3"}, {"s3", "h4"}, {"s1", "s3"}}));
  EXPECT_EQ(t->dpids.at("s3"), 3u);
}

TEST(Generators, LinearAndTorusNamesAsMininet) {
  auto l = generate_topology("linear", {{"k", 2}, {"n", 2}});
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->hosts, (std::vector<std::string>{"h1s1", "h2s1", "h1s2", "h2s2"}));
  EXPECT_EQ(l->links[4], (std::pair<std::string, std::string>{"s2", "s1"}));
  auto t = generate_topology("torus", {{"x", 3}, {"y", 3}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->switches.front(), "s1x1");
  EXPECT_EQ(t->hosts.back(), "h3x3");
  EXPECT_EQ(t->dpids.at("s2x1"), 0x201u);  // Mininet: '%x' % ((i+1)*256 + (j+1))
}

TEST(Generators, AddressesFollowMininetsNaturalHostOrder) {
  EXPECT_EQ(natural_sorted({"h10", "h2", "h1"}), (std::vector<std::string>{"h1", "h2", "h10"}));
  // Mininet sorts h1s1, h1s2, h2s1, h2s2 and numbers addresses in that order.
  EXPECT_EQ(natural_sorted({"h1s1", "h2s1", "h1s2", "h2s2"}),
            (std::vector<std::string>{"h1s1", "h1s2", "h2s1", "h2s2"}));
  EXPECT_EQ(mininet_ip(1), "10.0.0.1/8");
  EXPECT_EQ(mininet_ip(256), "10.0.1.0/8");
  EXPECT_EQ(mininet_mac(1), "00:00:00:00:00:01");
  EXPECT_EQ(mininet_mac(300), "00:00:00:00:01:2c");
}

TEST(Generators, TopoArgumentsByPositionOrName) {
  auto a = parse_topo_arg("tree,depth=3,fanout=2");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->args.at("depth"), 3);
  auto b = parse_topo_arg("linear,4");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->args.at("k"), 4);
  EXPECT_EQ(b->args.count("n"), 0u);
}

TEST(Generators, BadArgumentsAreErrors) {
  auto msg = [](const std::string& s) {
    auto r = parse_topo_arg(s);
    if (!r.ok()) return r.error().message;
    auto t = generate_topology(r->type, r->args);
    return t.ok() ? std::string("ok") : t.error().message;
  };
  EXPECT_NE(msg("ring,3").find("unknown topology type 'ring'"), std::string::npos);
  EXPECT_NE(msg("tree,2,x").find("'x' is not a count"), std::string::npos);
  EXPECT_NE(msg("tree,1,2,3").find("at most 2 argument"), std::string::npos);
  EXPECT_NE(msg("tree,depth=2,depth=3").find("given twice"), std::string::npos);
  EXPECT_NE(msg("tree,size=2").find("no parameter 'size'"), std::string::npos);
  EXPECT_NE(msg("torus,2,3").find("at least 3"), std::string::npos);
  EXPECT_NE(msg("torus,3").find("needs 'y'"), std::string::npos);
  EXPECT_NE(msg("fat-tree,3").find("even k"), std::string::npos);
  EXPECT_NE(msg("single,0").find("at least 1"), std::string::npos);
  EXPECT_NE(msg("tree,12,12").find("at most 4096"), std::string::npos) << "refused before building";
  EXPECT_NE(msg("tree,0").find("no network"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

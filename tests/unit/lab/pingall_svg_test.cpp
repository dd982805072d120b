// pingall's matrix and verdict, its report pieces, and the topology picture.
#include <gtest/gtest.h>

#include "lab/report/topology_svg.h"
#include "lab/run/topology_record.h"
#include "lab/traffic/pingall.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

json echo(int sent, int got, double rtt) {
  json m = {{"sent", sent}, {"received", got}, {"loss_pct", 100.0 * (sent - got) / sent}};
  if (got) m["rtt_avg_ms"] = rtt;
  return m;
}

TEST(Pingall, MatrixAndVerdict) {
  std::vector<std::vector<json>> p(3, std::vector<json>(3));
  p[0][1] = echo(2, 2, 0.5);
  p[0][2] = echo(2, 1, 1.5);
  p[1][0] = echo(2, 2, 0.5);
  p[1][2] = echo(2, 0, 0);
  p[2][0] = echo(2, 2, 1.0);
  p[2][1] = echo(2, 2, 1.0);
  auto o = summarize_pingall({"h1", "h2", "h3"}, p);
  EXPECT_EQ(o.outcome.status, "failed");
  EXPECT_NE(o.outcome.reason.find("1 of 6 pairs got no echo (h2->h3)"), std::string::npos)
      << o.outcome.reason;
  EXPECT_EQ(o.outcome.metrics["pairs"], 6);
  EXPECT_EQ(o.outcome.metrics["pairs_reached"], 5);
  EXPECT_NEAR(o.outcome.metrics["dropped_pct"].get<double>(), 100.0 * 3 / 12, 1e-9);
  EXPECT_NEAR(o.outcome.metrics["rtt_avg_ms"].get<double>(), (0.5 + 1.5 + 0.5 + 1 + 1) / 5, 1e-9);
  EXPECT_TRUE(o.matrix["loss_pct"][0][0].is_null());
  EXPECT_EQ(o.matrix["loss_pct"][1][2], 100.0);
  EXPECT_TRUE(o.matrix["rtt_ms"][1][2].is_null());
  EXPECT_EQ(o.matrix["rtt_ms"][0][2], 1.5);

  json rec = {{"case", "c"}, {"test", "pingall"}, {"metrics", o.outcome.metrics}, {"matrix", o.matrix}};
  auto text = render_pingall_text(rec);
  EXPECT_NE(text.find("pingall 5/6 pairs reached, 25.0% dropped"), std::string::npos) << text;
  EXPECT_NE(text.find("no echo h2 -> h3"), std::string::npos) << text;
  auto html = render_pingall_html(rec);
  EXPECT_NE(html.find("<th>h3</th>"), std::string::npos);
  EXPECT_NE(html.find("1.50 ms (50% lost)"), std::string::npos) << html;
  EXPECT_NE(html.find("#fbb"), std::string::npos) << "the unreachable pair is red";
  // Too many hosts for a table: the unreachable pairs are listed instead.
  auto big = render_pingall_html(rec, 2);
  EXPECT_NE(big.find("h2 → h3"), std::string::npos) << big;

  for (auto& row : p)
    for (auto& c : row)
      if (c.is_object()) c = echo(1, 1, 0.2);
  EXPECT_EQ(summarize_pingall({"h1", "h2", "h3"}, p).outcome.status, "ok");
}

TEST(Pingall, ParsesFpingPerTargetLines) {
  auto m = parse_fping("10.0.0.2  : 0.05 - 0.04\n10.0.0.10 : - -\nICMP Host Unreachable from 10.0.0.1\n");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m.at("10.0.0.2"), (std::vector<double>{0.05, -1, 0.04}));
  EXPECT_EQ(m.at("10.0.0.10"), (std::vector<double>{-1, -1}));
  EXPECT_TRUE(parse_fping("").empty());
}

TEST(TopologyRecord, InterfaceBytesFromIpJson) {
  auto m = parse_ip_link_stats(
      R"([{"ifname":"s1-eth1","stats64":{"rx":{"bytes":100},"tx":{"bytes":23}}},{"ifname":"lo"}])");
  EXPECT_EQ(m.at("s1-eth1"), 123);
  EXPECT_EQ(m.count("lo"), 0u);
  EXPECT_TRUE(parse_ip_link_stats("not json").empty());
}

TEST(TopologySvg, DrawsEveryNodeAndColoursByLoad) {
  json topo = {
      {"generator", "tree depth=2 fanout=2"},
      {"hosts", {{{"name", "h1"}, {"addr", "10.0.0.1/8"}}, {{"name", "h2"}, {"addr", "10.0.0.2/8"}}}},
      {"switches", {{{"name", "s1"}, {"kind", "ovs"}}, {{"name", "s2"}, {"kind", "ovs"}}}},
      {"links",
       {{{"a", "h1:eth0"}, {"b", "s1:eth1"}, {"b_if", "s1-eth1"}, {"mtu", 0}},
        {{"a", "s1:eth2"}, {"b", "s2:eth1"}, {"a_if", "s1-eth2"}, {"b_if", "s2-eth1"}, {"mtu", 9000}},
        {{"a", "h2:eth0"}, {"b", "s2:eth2"}, {"b_if", "s2-eth2"}, {"mtu", 0}}}}};
  auto svg = render_topology_svg(topo);
  for (const char* n : {">s1<", ">s2<", ">h1<", ">h2<", "10.0.0.2/8", "mtu 9000", "tree depth=2 fanout=2"})
    EXPECT_NE(svg.find(n), std::string::npos) << n;
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n'), 0);
  EXPECT_EQ(svg.find("Gbit/s"), std::string::npos) << "no load without a case record";
  EXPECT_NE(svg.find("no load measured"), std::string::npos);
  // 1 GB over 8 s on the switch link = 1 Gbit/s; the host links carry a tenth.
  json c = {{"tests_elapsed_s", 8.0},
            {"link_bytes", {{"s1-eth1", 1e8}, {"s1-eth2", 1e9}, {"s2-eth1", 1e9}, {"s2-eth2", 1e8}}}};
  auto hot = render_topology_svg(topo, c);
  EXPECT_NE(hot.find("load 1 Gbit/s"), std::string::npos) << hot;
  EXPECT_NE(hot.find("stroke=\"#e15759\""), std::string::npos) << "the busiest link is red";
  EXPECT_NE(hot.find("busiest 1 Gbit/s"), std::string::npos);
  // The root is the most central switch: a line of three draws s2 on top.
  json line = {{"switches", {{{"name", "s1"}}, {{"name", "s2"}}, {{"name", "s3"}}}},
               {"links", {{{"a", "s1:p1"}, {"b", "s2:p1"}}, {{"a", "s2:p2"}, {"b", "s3:p1"}}}}};
  auto l = render_topology_svg(line);
  EXPECT_NE(l.find("y=\"26.0\" width=\"28.0\" height=\"28.0\" fill=\"#4e79a7\" rx=\"3\"><title>s2"),
            std::string::npos)
      << l;
  EXPECT_TRUE(render_topology_svg(json::object()).empty());
}

}  // namespace
}  // namespace flowlab::lab

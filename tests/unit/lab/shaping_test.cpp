// Link shaping keys: units, per-direction overrides, and errors naming file:line
// and the key; the lab's tc program as instructions.
#include "lab/scenario/shaping.h"

#include <gtest/gtest.h>

#include "lab/net/delay_line.h"
#include "lab/net/tc_bpf.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

std::string scenario_with_link(const std::string& link_keys) {
  return "name: t\nhosts:\n  h1: {addr: 10.0.0.1/24}\n  h2: {addr: 10.0.0.2/24}\n"
         "switches:\n  s1: {kind: linux-bridge}\nlinks:\n"
         "  - endpoints: [h1:eth0, s1:p1]\n" +
         link_keys + "  - endpoints: [h2:eth0, s1:p2]\n";
}

TEST(Shaping, Rates) {
  EXPECT_EQ(*parse_rate_bps("100M"), 100'000'000u);
  EXPECT_EQ(*parse_rate_bps("1G"), 1'000'000'000u);
  EXPECT_EQ(*parse_rate_bps("10G"), 10'000'000'000u);
  EXPECT_EQ(*parse_rate_bps("2.5Gbit"), 2'500'000'000u);
  EXPECT_EQ(*parse_rate_bps("10k"), 10'000u);
  EXPECT_FALSE(parse_rate_bps("10X").ok());
  EXPECT_FALSE(parse_rate_bps("10").ok());  // a unit is required
  EXPECT_FALSE(parse_rate_bps("-1M").ok());
  EXPECT_FALSE(parse_rate_bps("M").ok());
  EXPECT_FALSE(parse_rate_bps("1000T").ok());
  EXPECT_EQ(format_rate(10'000'000'000), "10G");
  EXPECT_EQ(format_rate(100'000'000), "100M");
}

TEST(Shaping, DurationsAndPercentages) {
  EXPECT_EQ(*parse_duration_ns("5ms"), 5'000'000u);
  EXPECT_EQ(*parse_duration_ns("1.5ms"), 1'500'000u);
  EXPECT_EQ(*parse_duration_ns("100us"), 100'000u);
  EXPECT_EQ(*parse_duration_ns("2s"), 2'000'000'000u);
  EXPECT_EQ(*parse_duration_ns("0"), 0u);
  EXPECT_FALSE(parse_duration_ns("-1ms").ok());
  EXPECT_FALSE(parse_duration_ns("5").ok());
  EXPECT_FALSE(parse_duration_ns("5 parsecs").ok());
  EXPECT_EQ(*parse_percent("5%"), 5.0);
  EXPECT_EQ(*parse_percent("0.5"), 0.5);
  EXPECT_FALSE(parse_percent("101%").ok());
  EXPECT_FALSE(parse_percent("-1%").ok());
  EXPECT_FALSE(parse_percent("5 %x").ok());
  EXPECT_EQ(format_duration(1'500'000), "1.5ms");
}

TEST(Shaping, LinkKeysBothDirectionsAndOverrides) {
  auto s =
      parse_scenario(scenario_with_link("    bw: 1G\n    delay: 5ms\n    jitter: 1ms\n    loss: 1%\n"
                                        "    queue: 500\n    a_to_b: {bw: 100M}\n    b_to_a: {loss: 0}\n"),
                     "/x/t.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const LinkShapes& sh = s->links[0].shape;
  EXPECT_EQ(*sh.a_to_b.bw_bps, 100'000'000u);
  EXPECT_EQ(*sh.b_to_a.bw_bps, 1'000'000'000u);
  EXPECT_EQ(*sh.a_to_b.delay_ns, 5'000'000u);
  EXPECT_EQ(*sh.b_to_a.jitter_ns, 1'000'000u);
  EXPECT_EQ(*sh.a_to_b.loss_pct, 1.0);
  EXPECT_EQ(*sh.b_to_a.loss_pct, 0.0);
  EXPECT_EQ(*sh.a_to_b.queue, 500);
  EXPECT_TRUE(s->links[1].shape.empty());
}

TEST(Shaping, BadValuesNameFileLineAndKey) {
  auto bw = parse_scenario(scenario_with_link("    bw: 10X\n"), "/x/t.yaml");
  ASSERT_FALSE(bw.ok());
  EXPECT_EQ(bw.error().message.rfind("/x/t.yaml:9: key 'bw': '10X'", 0), 0u) << bw.error().message;
  auto d = parse_scenario(scenario_with_link("    delay: -1ms\n"), "/x/t.yaml");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("/x/t.yaml:9: key 'delay': '-1ms': a duration cannot be negative"),
            std::string::npos)
      << d.error().message;
  auto j = parse_scenario(scenario_with_link("    delay: 1ms\n    jitter: 2ms\n"), "/x/t.yaml");
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.error().message.find("key 'jitter'"), std::string::npos) << j.error().message;
  auto q = parse_scenario(scenario_with_link("    queue: 0\n"), "/x/t.yaml");
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.error().message.find("key 'queue'"), std::string::npos);
  auto k = parse_scenario(scenario_with_link("    a_to_b: {bandwidth: 1G}\n"), "/x/t.yaml");
  ASSERT_FALSE(k.ok());
  EXPECT_NE(k.error().message.find("/x/t.yaml:9: key 'bandwidth': unknown key in a_to_b"), std::string::npos)
      << k.error().message;
  auto u = parse_scenario(scenario_with_link("    bandwidth: 1G\n"), "/x/t.yaml");
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().message.find("key 'bandwidth': unknown key in link"), std::string::npos);
}

TEST(Shaping, MergeReplacesOnlyWhatIsSet) {
  LinkShape a;
  a.bw_bps = 1000000;
  a.delay_ns = 5;
  LinkShape b;
  b.loss_pct = 5;
  a.merge(b);
  EXPECT_EQ(*a.bw_bps, 1000000u);
  EXPECT_EQ(*a.loss_pct, 5.0);
  EXPECT_EQ(a.to_json()["bw_bps"], 1000000);
}

// The shape an exec request carries between machines: every field, alone and
// together, comes back exactly (a fraction of a percent, 400 Gbit/s, 60 s);
// what the YAML keys refuse is refused here too.
TEST(Shaping, WireFormRoundTripsEveryFieldAndRefusesWhatYamlRefuses) {
  auto same = [](const LinkShape& a, const LinkShape& b) {
    return a.bw_bps == b.bw_bps && a.delay_ns == b.delay_ns && a.jitter_ns == b.jitter_ns &&
           a.loss_pct == b.loss_pct && a.queue == b.queue;
  };
  LinkShape all;
  all.bw_bps = 400'000'000'000ULL;
  all.delay_ns = 60'000'000'000ULL;
  all.jitter_ns = 1'500'000;
  all.loss_pct = 0.125;
  all.queue = 1'000'000;
  std::vector<LinkShape> shapes = {LinkShape{}, all};
  for (int field = 0; field < 5; ++field) {
    LinkShape one;
    if (field == 0) one.bw_bps = all.bw_bps;
    if (field == 1) one.delay_ns = 0;
    if (field == 2) one.jitter_ns = all.jitter_ns;
    if (field == 3) one.loss_pct = 100;
    if (field == 4) one.queue = 1;
    shapes.push_back(one);
  }
  for (const auto& s : shapes) {
    auto back = link_shape_from_wire(nlohmann::json::parse(s.to_wire().dump()));
    ASSERT_TRUE(back.ok()) << s.to_wire().dump() << ": " << back.error().message;
    EXPECT_TRUE(same(*back, s)) << s.to_wire().dump() << " came back as " << back->to_wire().dump();
  }
  for (const char* bad : {R"({"bw_bps":0})", R"({"bw_bps":400000000001})", R"({"delay_ns":60000000001})",
                          R"({"jitter_ns":-1})", R"({"loss_pct":100.5})", R"({"loss_pct":"1%"})",
                          R"({"queue":0})", R"({"queue":1000001})", R"({"rate":1})", R"([1])"}) {
    auto r = link_shape_from_wire(nlohmann::json::parse(bad));
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_NE(r.error().message.find("a link shape"), std::string::npos) << r.error().message;
  }
}

TEST(TcProgram, LossThresholdAndInstructions) {
  EXPECT_EQ(loss_threshold(0), 0u);
  EXPECT_EQ(loss_threshold(50), 0x80000000u);
  EXPECT_EQ(loss_threshold(100), 0x100000000u);
  // Pass only: r0 = 0; exit.
  auto pass = tc_program({0, 0});
  ASSERT_EQ(pass.size(), 2u);
  EXPECT_EQ(pass[0], 0xb7u);  // mov64 r0, 0
  EXPECT_EQ(pass[1], 0x95u);  // exit
  // Loss 50% then redirect to ifindex 7.
  auto p = tc_program({50, 7});
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[0], 0x85u | (7ull << 32));                          // call bpf_get_prandom_u32
  EXPECT_EQ(p[1], 0x36u | (2ull << 16) | (0x80000000ull << 32));  // if w0 >= 2^31 goto +2
  EXPECT_EQ(p[2], 0xb7u | (2ull << 32));                          // r0 = TC_ACT_SHOT
  EXPECT_EQ(p[3], 0x95u);
  EXPECT_EQ(p[4], 0xb7u | (1u << 8) | (7ull << 32));  // r1 = 7
  EXPECT_EQ(p[5], 0xb7u | (2u << 8));                 // r2 = 0
  EXPECT_EQ(p[6], 0x85u | (23ull << 32));             // call bpf_redirect
  EXPECT_EQ(p[7], 0x95u);
  // 100%: every packet shot, no random number drawn.
  auto all = tc_program({100, 7});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], 0xb7u | (2ull << 32));
  // A provider link's push: tag 100 (802.1Q, big-endian 0x8100) then redirect to 7.
  auto push = tc_program({0, 7, 100, 0});
  ASSERT_EQ(push.size(), 9u);
  EXPECT_EQ(push[0], 0xbfu | (6u << 8) | (1u << 12));  // r6 = r1
  EXPECT_EQ(push[1], 0xbfu | (1u << 8) | (6u << 12));  // r1 = r6
  EXPECT_EQ(push[2], 0xb7u | (2u << 8) | (0x0081ull << 32));
  EXPECT_EQ(push[3], 0xb7u | (3u << 8) | (100ull << 32));
  EXPECT_EQ(push[4], 0x85u | (18ull << 32));  // call bpf_skb_vlan_push
  EXPECT_EQ(push[7], 0x85u | (23ull << 32));  // call bpf_redirect
  // Its pop: three checks that jump to the end (TCX_NEXT) for another VLAN's packet.
  auto pop = tc_program({0, 7, 0, 100});
  ASSERT_EQ(pop.size(), 16u);
  EXPECT_EQ(pop[2], 0x15u | (2u << 8) | (11ull << 16));                     // if r2 == 0 goto next
  EXPECT_EQ(pop[4], 0x55u | (2u << 8) | (9ull << 16) | (0x0081ull << 32));  // vlan_proto != 8021Q
  EXPECT_EQ(pop[7], 0x55u | (2u << 8) | (6ull << 16) | (100ull << 32));     // vid != 100
  EXPECT_EQ(pop[9], 0x85u | (19ull << 32));                                 // call bpf_skb_vlan_pop
  EXPECT_EQ(pop[14], 0xb7u | (uint64_t(0xffffffffu) << 32));                // r0 = TCX_NEXT (-1)
  EXPECT_EQ(pop[15], 0x95u);
}

TEST(DelayLine, ArgumentForm) {
  DelayLineDirection d{5'000'000, 1'000'000, 300};
  auto r = parse_delay_line_arg(to_arg(d));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->delay_ns, 5'000'000u);
  EXPECT_EQ(r->jitter_ns, 1'000'000u);
  EXPECT_EQ(r->queue, 300);
  EXPECT_FALSE(parse_delay_line_arg("5,6,10").ok());  // jitter > delay
  EXPECT_FALSE(parse_delay_line_arg("5,0,0").ok());
  EXPECT_FALSE(parse_delay_line_arg("5,0").ok());
  EXPECT_FALSE(parse_delay_line_arg("5,0,10x").ok());
}

}  // namespace
}  // namespace flowlab::lab

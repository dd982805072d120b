// Ryu request bodies -> OpenFlow messages: flow entries (the docs' examples),
// flow-stats filters, group and meter entries, port mods, and the errors.
#include "rest/ryu_request.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rest/ryu_stats.h"

namespace flowlab::rest {
namespace {

using ::testing::HasSubstr;

Json body(const char* text) {
  auto r = parse_body(text);
  EXPECT_TRUE(r.ok()) << text;
  return r.ok() ? *r : Json::object();
}

TEST(RyuRequest, FlowEntryFromDocs) {
  Json b = body(R"({"dpid": 1, "cookie": 1, "cookie_mask": 1, "table_id": 0, "idle_timeout": 30,
                    "hard_timeout": 30, "priority": 11111, "flags": 1,
                    "match": {"in_port": 1}, "actions": [{"type": "OUTPUT", "port": 2}]})");
  EXPECT_EQ(*body_dpid(b), 1u);
  auto fm = flow_mod_from_json(b, of::FlowModCommand::kAdd, of::kOf13);
  ASSERT_TRUE(fm.ok()) << fm.error().message;
  EXPECT_EQ(fm->command, of::FlowModCommand::kAdd);
  EXPECT_EQ(fm->cookie, 1u);
  EXPECT_EQ(fm->cookie_mask, 1u);
  EXPECT_EQ(fm->idle_timeout, 30);
  EXPECT_EQ(fm->hard_timeout, 30);
  EXPECT_EQ(fm->priority, 11111);
  EXPECT_EQ(fm->flags, 1);
  EXPECT_EQ(fm->buffer_id, of::kNoBuffer);
  EXPECT_EQ(fm->out_port, of::port::kAny);
  EXPECT_EQ(fm->match.find(of::OxmId::kInPort)->value_u64(), 1u);
  ASSERT_EQ(fm->instructions.size(), 1u);
  EXPECT_EQ(fm->instructions[0].actions[0], of::Action::output(2, 0xffe5));
}

TEST(RyuRequest, DeleteWithOutPortAndDefaults) {
  auto fm = flow_mod_from_json(body(R"({"dpid": "1", "out_port": 2, "match": {}})"),
                               of::FlowModCommand::kDeleteStrict, of::kOf13);
  ASSERT_TRUE(fm.ok());
  EXPECT_EQ(fm->out_port, 2u);
  EXPECT_EQ(fm->priority, 0);  // Ryu's default
  EXPECT_TRUE(fm->instructions.empty());
}

TEST(RyuRequest, FlowStatsFilter) {
  auto r = flow_stats_request_from_json(
      body(R"({"table_id": 0, "out_port": 2, "cookie": 1, "cookie_mask": 1, "match": {"in_port": 1}})"),
      of::kOf13);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->table_id, 0);
  EXPECT_EQ(r->out_port, 2u);
  EXPECT_EQ(r->cookie, 1u);
  EXPECT_EQ(r->match.fields.size(), 1u);
  auto all = flow_stats_request_from_json(body("{}"), of::kOf13);
  EXPECT_EQ(all->table_id, of::table::kAll);
}

TEST(RyuRequest, GroupEntryFromDocs) {
  auto gm = group_mod_from_json(body(R"({"dpid": 1, "type": "SELECT", "group_id": 1, "buckets": [
      {"weight": 50, "watch_port": 1, "actions": [{"type": "OUTPUT", "port": 1}]},
      {"weight": 50, "actions": [{"type": "OUTPUT", "port": 2}]}]})"),
                                of::GroupModCommand::kAdd, of::kOf13);
  ASSERT_TRUE(gm.ok()) << gm.error().message;
  EXPECT_EQ(gm->type, of::GroupType::kSelect);
  EXPECT_EQ(gm->group_id, 1u);
  ASSERT_EQ(gm->buckets.size(), 2u);
  EXPECT_EQ(gm->buckets[0].weight, 50);
  EXPECT_EQ(gm->buckets[0].watch_port, 1u);
  EXPECT_EQ(gm->buckets[1].watch_port, of::port::kAny);
  EXPECT_EQ(gm->buckets[1].actions, of::ActionList{of::Action::output(2, 0xffe5)});
  EXPECT_FALSE(group_mod_from_json(body(R"({"group_id": 1})"), of::GroupModCommand::kAdd, of::kOf10).ok());
  EXPECT_FALSE(
      group_mod_from_json(body(R"({"group_id": 1, "type": "RANDOM"})"), of::GroupModCommand::kAdd, of::kOf13)
          .ok());
}

TEST(RyuRequest, MeterEntryFromDocs) {
  auto mm = meter_mod_from_json(body(R"({"dpid": 1, "flags": "KBPS", "meter_id": 1,
                                         "bands": [{"type": "DROP", "rate": 1000}]})"),
                                of::MeterModCommand::kAdd);
  ASSERT_TRUE(mm.ok()) << mm.error().message;
  EXPECT_EQ(mm->flags, 1);
  EXPECT_EQ(mm->meter_id, 1u);
  ASSERT_EQ(mm->bands.size(), 1u);
  EXPECT_EQ(mm->bands[0].type, of::MeterBandType::kDrop);
  EXPECT_EQ(mm->bands[0].rate, 1000u);
  auto list = meter_mod_from_json(body(R"({"meter_id": 2, "flags": ["PKTPS", "BURST", "STATS"],
      "bands": [{"type": "DSCP_REMARK", "rate": 10, "burst_size": 5, "prec_level": 1}]})"),
                                  of::MeterModCommand::kModify);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->flags, 2 | 4 | 8);
  EXPECT_EQ(list->bands[0].prec_level, 1);
  EXPECT_EQ(meter_flags_to_json(list->flags), Json::parse(R"(["PKTPS", "BURST", "STATS"])"));
  EXPECT_FALSE(
      meter_mod_from_json(body(R"({"meter_id": 1, "flags": "FAST"})"), of::MeterModCommand::kAdd).ok());
  EXPECT_FALSE(
      meter_mod_from_json(body(R"({"meter_id": 1, "bands": [{"type": "BURN"}]})"), of::MeterModCommand::kAdd)
          .ok());
}

TEST(RyuRequest, PortMod) {
  auto mac = *MacAddr::parse("00:00:00:00:00:07");
  auto pm = port_mod_from_json(body(R"({"dpid": 1, "port_no": 1, "config": 1, "mask": 1})"), mac);
  ASSERT_TRUE(pm.ok());
  EXPECT_EQ(pm->port_no, 1u);
  EXPECT_EQ(pm->config, 1u);
  EXPECT_EQ(pm->mask, 1u);
  EXPECT_EQ(pm->hw_addr, mac);
  EXPECT_FALSE(port_mod_from_json(body(R"({"config": 1})"), mac).ok());
  EXPECT_FALSE(port_mod_from_json(body(R"({"port_no": 1, "hw_addr": "nope"})"), mac).ok());
}

TEST(RyuRequest, Errors) {
  auto bad = parse_body(R"({"dpid": 1,)");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.error().message, HasSubstr("bad JSON"));
  EXPECT_FALSE(parse_body("[1]").ok());
  EXPECT_FALSE(parse_body("").ok());
  EXPECT_THAT(body_dpid(body("{}")).error().message, HasSubstr("'dpid' is missing"));
  EXPECT_FALSE(body_dpid(body(R"({"dpid": "abc"})")).ok());
  EXPECT_FALSE(body_dpid(body(R"({"dpid": -1})")).ok());
  EXPECT_FALSE(path_dpid("0x1z").ok());
  EXPECT_EQ(*path_dpid("18"), 18u);
  auto prio = flow_mod_from_json(body(R"({"priority": 65536})"), of::FlowModCommand::kAdd, of::kOf13);
  ASSERT_FALSE(prio.ok());
  EXPECT_THAT(prio.error().message, HasSubstr("'priority'"));
  auto field = flow_mod_from_json(body(R"({"match": {"bogus": 1}})"), of::FlowModCommand::kAdd, of::kOf13);
  ASSERT_FALSE(field.ok());
  EXPECT_THAT(field.error().message, HasSubstr("unknown field 'bogus'"));
  EXPECT_FALSE(flow_mod_from_json(body(R"({"table_id": 1})"), of::FlowModCommand::kAdd, of::kOf10).ok());
}

TEST(RyuStats, FlowStatsShape) {
  of::FlowStats fs;
  fs.priority = 11111;
  fs.cookie = 1;
  fs.duration_sec = 5;
  fs.match.add(of::OxmField::basic(of::OxmId::kInPort, 1));
  fs.instructions.push_back(of::Instruction::apply({of::Action::output(2)}));
  Json j = flow_stats_to_json({fs}, of::kOf13);
  ASSERT_EQ(j.size(), 1u);
  for (const char* key : {"priority", "cookie", "idle_timeout", "hard_timeout", "byte_count", "duration_sec",
                          "duration_nsec", "packet_count", "length", "flags", "actions", "match", "table_id"})
    EXPECT_TRUE(j[0].contains(key)) << key;
  EXPECT_EQ(j[0]["actions"], Json::parse(R"(["OUTPUT:2"])"));
  EXPECT_EQ(j[0]["match"], Json::parse(R"({"in_port": 1})"));
  // ofp_flow_stats 48 + match (4 + 8, padded to 16) + apply-actions (8 + 16) = 88.
  EXPECT_EQ(j[0]["length"], 88);
}

TEST(RyuStats, PortDescAndTableShapes) {
  of::PortDesc p;
  p.port_no = of::port::kLocal;
  p.name = "br0";
  Json pd = port_desc_to_json({p}, of::kOf13);
  EXPECT_EQ(pd[0]["port_no"], "LOCAL");
  EXPECT_EQ(pd[0]["hw_addr"], "00:00:00:00:00:00");
  EXPECT_TRUE(pd[0].contains("curr_speed"));
  EXPECT_FALSE(port_desc_to_json({p}, of::kOf10)[0].contains("curr_speed"));
  of::TableStats t;
  t.active_count = 3;
  Json ts = table_stats_to_json({t}, of::kOf13);
  EXPECT_EQ(ts[0],
            Json::parse(R"({"table_id": 0, "active_count": 3, "lookup_count": 0, "matched_count": 0})"));
}

}  // namespace
}  // namespace flowlab::rest

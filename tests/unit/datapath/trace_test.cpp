// Trace: the pipeline's walk recorded, read-only. Each case also runs the
// same packet through the real pipeline where that shows the trace tells the
// truth (same outputs, same select bucket) and that the trace moved nothing.
#include "datapath/trace.h"

#include <gtest/gtest.h>

#include "openflow/text/flow_text.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;

void flow(Rig& r, const char* text) {
  auto fm = of::parse_flow_mod(text);
  ASSERT_TRUE(fm.ok()) << text << ": " << fm.error().message;
  r.add(*fm);
}
void group(Rig& r, const char* text) {
  auto gm = of::parse_group_mod(text, of::GroupModCommand::kAdd);
  ASSERT_TRUE(gm.ok()) << gm.error().message;
  ASSERT_TRUE(r.dp.group_mod(*gm, r.now).ok());
}
void meter(Rig& r, const char* text) {
  auto mm = of::parse_meter_mod(text, of::MeterModCommand::kAdd);
  ASSERT_TRUE(mm.ok()) << mm.error().message;
  ASSERT_TRUE(r.dp.meter_mod(*mm, r.now).ok());
}
Trace trace(Rig& r, const Bytes& frame, uint32_t in_port = 1,
            const std::function<bool(uint32_t)>* fast_path = nullptr) {
  Packet p(4096);
  p.assign(frame.data(), frame.size());
  p.in_port = in_port;
  return trace_packet(r.ctx, p, fast_path);
}
std::vector<uint32_t> ports(const Trace& t) {
  std::vector<uint32_t> v;
  for (const TraceOutput& o : t.outputs) v.push_back(o.port);
  return v;
}
uint64_t flow_packets(Rig& r) {
  of::FlowStatsRequest req;
  req.table_id = of::table::kAll;
  auto s = r.dp.flow_stats(req, r.now);
  uint64_t n = 0;
  for (const of::FlowStats& f : s->stats) n += f.packet_count;
  return n;
}

TEST(Trace, GotoSetFieldMeterAndSelectGroupReadOnly) {
  Rig r;
  meter(r, "meter=1,pktps,bands=type=drop,rate=1");
  group(r, "group_id=1,type=select,bucket=weight:1,actions=output:2,bucket=weight:1,actions=output:3");
  flow(
      r,
      "table=0,priority=10,cookie=0x7,tcp,in_port=1,actions=meter:1,set_field:10.0.0.9->ip_dst,goto_table:1");
  flow(r, "table=1,priority=5,ip,nw_dst=10.0.0.9,actions=group:1");

  const Trace t = trace(r, tcp_frame());
  ASSERT_EQ(t.tables.size(), 2u);
  EXPECT_TRUE(t.tables[0].matched);
  EXPECT_EQ(t.tables[0].priority, 10);
  EXPECT_EQ(t.tables[0].cookie, 0x7u);
  EXPECT_EQ(t.tables[0].meter_id, 1u);
  EXPECT_TRUE(t.tables[0].meter_exists);
  EXPECT_EQ(t.tables[0].goto_table, 1);
  // Table 1 matches the address table 0's set-field wrote.
  ASSERT_TRUE(t.tables[1].matched);
  EXPECT_EQ(t.tables[1].priority, 5);
  ASSERT_EQ(t.tables[1].groups.size(), 1u);
  const TraceGroup& g = t.tables[1].groups[0];
  EXPECT_EQ(g.group_id, 1u);
  EXPECT_EQ(g.type, of::GroupType::kSelect);
  EXPECT_EQ(g.n_buckets, 2u);
  ASSERT_EQ(g.buckets.size(), 1u);
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(t.outputs[0].port, 2 + g.buckets[0]);
  EXPECT_EQ(t.outputs[0].via, "group 1 bucket " + std::to_string(g.buckets[0]));
  EXPECT_TRUE(t.drop_reason.empty());

  // Nothing moved: no packet out, no flow/table/group/meter counter.
  EXPECT_TRUE(r.out.sent.empty());
  EXPECT_EQ(flow_packets(r), 0u);
  EXPECT_EQ(r.dp.table_stats().stats[0].lookup_count, 0u);
  EXPECT_EQ(r.dp.counters().packets, 0u);
  EXPECT_EQ(r.dp.group_stats({of::group::kAll}, r.now).stats[0].packet_count, 0u);
  EXPECT_EQ(r.dp.meter_stats({of::meter::kAll}, r.now).stats[0].packet_in_count, 0u);

  // The pipeline picks the same bucket (the meter's first packet passes).
  r.send(tcp_frame());
  EXPECT_EQ(r.out.ports(), ports(t));
  EXPECT_EQ(flow_packets(r), 2u);
}

TEST(Trace, AllGroupActionSetAndBucketCopies) {
  Rig r;
  group(r,
        "group_id=2,type=all,bucket=actions=output:2,bucket=actions=set_field:00:00:00:00:00:99->eth_dst,"
        "output:3");
  flow(r, "table=0,priority=1,actions=write_actions(output:4),group:2,goto_table:3");
  flow(r, "table=3,priority=1,actions=set_field:00:00:00:00:00:42->eth_src");

  const Trace t = trace(r, udp_frame());
  ASSERT_EQ(t.tables.size(), 2u);
  ASSERT_EQ(t.tables[0].groups.size(), 1u);
  EXPECT_EQ(t.tables[0].groups[0].buckets, (std::vector<uint32_t>{0, 1}));
  ASSERT_EQ(t.tables[0].action_set.size(), 1u);
  EXPECT_EQ(of::format_actions(t.tables[0].action_set), "output:4");
  EXPECT_EQ(ports(t), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(t.outputs[2].via, "action set");
  r.send(udp_frame());
  EXPECT_EQ(r.out.ports(), ports(t));
}

TEST(Trace, TableMissDropNamesTheTable) {
  Rig r;
  flow(r, "table=0,priority=1,actions=write_actions(output:2),goto_table:1");
  const Trace t = trace(r, tcp_frame());
  ASSERT_EQ(t.tables.size(), 2u);
  EXPECT_FALSE(t.tables[1].matched);
  EXPECT_TRUE(t.outputs.empty());
  EXPECT_EQ(t.drop_reason, "no flow matched in table 1 and it has no table-miss flow");
  const std::string text = format_trace_text(t);
  EXPECT_NE(text.find("Table 1: no flow matched"), std::string::npos) << text;
  EXPECT_NE(text.find("Final: drop: no flow matched in table 1"), std::string::npos) << text;
}

TEST(Trace, ControllerOutputIsNotSentUp) {
  Rig r;
  flow(r, "table=0,priority=0,actions=CONTROLLER:128");
  flow(r, "table=0,priority=5,arp,actions=FLOOD");
  Trace t = trace(r, tcp_frame());
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(t.outputs[0].port, of::port::kController);
  EXPECT_EQ(t.outputs[0].reason, of::PacketInReason::kNoMatch);  // the table-miss flow
  EXPECT_EQ(t.outputs[0].max_len, 128);
  EXPECT_TRUE(r.ctl.ins.empty());
  const std::string json = format_trace_json(t);
  EXPECT_NE(json.find(R"("outputs":[{"port":"CONTROLLER","port_no":4294967293,"queue":0,)"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("reason":"no_match","max_len":128)"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("drop":null)"), std::string::npos) << json;

  // FLOOD: every port of the PortView but in_port.
  const Bytes arp = FrameBuilder()
                        .eth(mac(0xffffffffffff), mac(1))
                        .arp(1, mac(1), ip4("10.0.0.1"), mac(0), ip4("10.0.0.2"))
                        .build();
  t = trace(r, arp, 2);
  EXPECT_EQ(ports(t), (std::vector<uint32_t>{1, 3, 4}));
  EXPECT_EQ(t.outputs[0].via, "table 0 apply-actions FLOOD");
}

TEST(Trace, FastPathCacheability) {
  Rig r;
  meter(r, "meter=1,kbps,bands=type=drop,rate=1000");
  flow(r, "table=0,priority=5,udp,actions=output:2");
  flow(r, "table=0,priority=5,tcp,actions=meter:1,output:2");
  const std::function<bool(uint32_t)> usable = [](uint32_t) { return true; };
  EXPECT_EQ(trace(r, udp_frame(), 1, &usable).fast_path, Trace::FastPath::kCacheable);
  const Trace t = trace(r, tcp_frame(), 1, &usable);  // meters stay in the slow path
  EXPECT_EQ(t.fast_path, Trace::FastPath::kNotCacheable);
  EXPECT_NE(format_trace_text(t).find("Kernel fast path: not cacheable"), std::string::npos);
  EXPECT_EQ(trace(r, tcp_frame()).fast_path, Trace::FastPath::kNotAsked);
}

TEST(Trace, OutputToInPortIsANote) {
  Rig r;
  flow(r, "table=0,priority=1,actions=output:1");
  const Trace t = trace(r, tcp_frame(), 1);
  EXPECT_TRUE(t.outputs.empty());
  ASSERT_EQ(t.notes.size(), 1u);
  EXPECT_EQ(t.drop_reason, "nothing sent (see the notes)");
}

TEST(Trace, OutputToAPortTheSwitchLacks) {
  Rig r;
  flow(r, "table=0,priority=1,actions=output:9,output:LOCAL,output:2");
  const Trace t = trace(r, tcp_frame(), 1);
  EXPECT_EQ(ports(t), std::vector<uint32_t>{2});
  EXPECT_EQ(t.notes.size(), 2u);
  flow(r, "table=0,priority=2,udp,actions=write_actions(set_field:5->ip_dscp)");
  EXPECT_EQ(trace(r, udp_frame(), 1).drop_reason, "no output action");
}

}  // namespace
}  // namespace flowlab::dp

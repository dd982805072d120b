// Trace through OpenFlow 1.5 egress tables: each output an ingress table makes
// lists the egress tables it ran (actset_output that port), the flow each
// matched and the output's verdict, delivered or dropped; the real pipeline
// run on the same frame sends exactly the delivered ones. Without egress
// tables the trace has no egress part.
#include <gtest/gtest.h>

#include "datapath/trace.h"
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

Trace trace(Rig& r, const Bytes& frame, uint32_t in_port) {
  Packet p(4096);
  p.assign(frame.data(), frame.size());
  p.in_port = in_port;
  return trace_packet(r.ctx, p);
}

// Port 1's frames go out by 2 and 3; the egress table drops what leaves by 2.
void egress_rig(Rig& r) {
  ASSERT_TRUE(r.dp.set_first_egress(1).ok());
  flow(r, "table=0,priority=10,in_port=1,actions=output:2,output:3");
  flow(r, "table=0,priority=10,in_port=4,actions=write_actions(output:2)");
  flow(r, "table=1,priority=20,cookie=0x20,actset_output=2,actions=clear_actions");
  flow(r, "table=1,priority=0,cookie=0x1,actions=drop");
}

TEST(TraceEgress, OneOutputDroppedTheOtherDelivered) {
  Rig r;
  egress_rig(r);
  const Trace t = trace(r, tcp_frame(), 1);
  ASSERT_EQ(t.outputs.size(), 2u);
  const TraceOutput& to2 = t.outputs[0];
  const TraceOutput& to3 = t.outputs[1];
  EXPECT_EQ(to2.port, 2u);
  EXPECT_EQ(to3.port, 3u);
  ASSERT_TRUE(to2.egress && to3.egress);
  // Port 2: table 1's actset_output=2 flow cleared the action set.
  EXPECT_EQ(to2.egress->port, 2u);
  ASSERT_EQ(to2.egress->tables.size(), 1u);
  EXPECT_EQ(to2.egress->tables[0].table_id, 1);
  EXPECT_EQ(to2.egress->tables[0].priority, 20);
  EXPECT_EQ(to2.egress->tables[0].cookie, 0x20u);
  EXPECT_TRUE(to2.egress->tables[0].action_set.empty());
  EXPECT_FALSE(to2.egress->delivered());
  EXPECT_NE(to2.egress->drop_reason.find("output:2"), std::string::npos) << to2.egress->drop_reason;
  // Port 3: the table-miss flow of table 1 left output:3 in the action set.
  ASSERT_EQ(to3.egress->tables.size(), 1u);
  EXPECT_EQ(to3.egress->tables[0].priority, 0);
  EXPECT_EQ(of::format_actions(to3.egress->tables[0].action_set), "output:3");
  EXPECT_TRUE(to3.egress->delivered());
  ASSERT_EQ(to3.egress->outputs.size(), 1u);
  EXPECT_EQ(to3.egress->outputs[0].via, "egress action set");

  // The pipeline agrees: only port 3 gets the frame.
  r.send(tcp_frame(), 1);
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{3}));
}

TEST(TraceEgress, TextNestsTheEgressTablesUnderTheirOutput) {
  Rig r;
  egress_rig(r);
  const std::string s = format_trace_text(trace(r, tcp_frame(), 4));
  // The ingress part is printed as without egress tables.
  EXPECT_NE(s.find("\nTable 0: priority=10,in_port=4, cookie=0x0\n    instructions: write_actions(output:2)\n"
                   "    action set: output:2\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("\nFinal:\n    output 2 via action set\n"
                   "        egress tables, actset_output=2:\n"
                   "        Table 1: priority=20,actset_output=2, cookie=0x20\n"
                   "            instructions: clear_actions\n"
                   "        -> dropped: the egress action set has no output:2\n"),
            std::string::npos)
      << s;
  const std::string json = format_trace_json(trace(r, tcp_frame(), 1));
  EXPECT_NE(json.find("\"egress\":{\"actset_output\":2,"), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdict\":\"dropped\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"verdict\":\"delivered\""), std::string::npos) << json;
}

TEST(TraceEgress, NoEgressTablesNoEgressPart) {
  Rig r;
  flow(r, "table=0,priority=10,in_port=1,actions=output:2");
  const Trace t = trace(r, tcp_frame(), 1);
  ASSERT_EQ(t.outputs.size(), 1u);
  EXPECT_EQ(t.outputs[0].egress, nullptr);
  EXPECT_EQ(format_trace_text(t).find("egress"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::dp

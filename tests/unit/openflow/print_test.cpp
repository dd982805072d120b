// ofp-print: message text for hand-built messages, compared with what
// `ovs-ofctl ofp-print` / `ovs-ofctl dump-*` of OVS 3.1 prints for the same content.
#include "openflow/print/print.h"

#include <gtest/gtest.h>

#include "openflow/codec.h"
#include "openflow/text/flow_text.h"

namespace flowlab::of {
namespace {

TEST(Print, FlowModLikeOvs) {
  auto fm = parse_flow_mod(
      "priority=100,in_port=1,dl_type=0x0800,nw_dst=10.0.0.0/8,tcp,tp_dst=80,idle_timeout=30,"
      "actions=output:2,controller:128,group:1,set_field:00:11:22:33:44:55->eth_dst,push_vlan:0x8100,goto_"
      "table:1");
  ASSERT_TRUE(fm.ok()) << fm.error().message;
  Message m = make_message(kOf13, 6, *fm);
  EXPECT_EQ(
      format_message(m),
      "OFPT_FLOW_MOD (OF1.3) (xid=0x6): ADD priority=100,tcp,in_port=1,nw_dst=10.0.0.0/8,tp_dst=80 idle:30 "
      "actions=output:2,CONTROLLER:128,group:1,set_field:00:11:22:33:44:55->eth_dst,push_vlan:0x8100,"
      "goto_table:1\n");
}

TEST(Print, Of10HeaderHasNoVersionTag) {
  FlowMod fm;
  fm.priority = 123;
  fm.buffer_id = 0xffff;
  fm.out_port = port::kAll;
  fm.match.add(OxmField::basic(OxmId::kEthDst, 0xf20ba47df8ea));
  fm.instructions.push_back(Instruction::apply({Action::output(6)}));
  EXPECT_EQ(format_message(make_message(kOf10, 0, fm)),
            "OFPT_FLOW_MOD (xid=0x0): ADD priority=123,dl_dst=f2:0b:a4:7d:f8:ea buf:0xffff out_port:ALL "
            "actions=output:6\n");
}

TEST(Print, FlowStatsReplyIsTheDumpFlowsText) {
  FlowStats fs;
  fs.duration_sec = 13;
  fs.duration_nsec = 80000000;
  fs.priority = 0;
  fs.instructions.push_back(Instruction::apply({Action::output(port::kNormal)}));
  MultipartReply r{0, FlowStatsReply{{fs}}};
  EXPECT_EQ(format_message(make_message(kOf13, 2, r)),
            "OFPST_FLOW reply (OF1.3) (xid=0x2):\n"
            " cookie=0x0, duration=13.080s, table=0, n_packets=0, n_bytes=0, priority=0 actions=NORMAL\n");
}

TEST(Print, PortStatsAndPortDescLikeOvs) {
  PortStats local;
  local.port_no = port::kLocal;
  local.duration_sec = 76;
  local.duration_nsec = 151000000;
  PortStats one;
  one.port_no = 1;
  one.tx_packets = 4;
  one.tx_bytes = 336;
  MultipartReply r{0, PortStatsReply{{local, one}}};
  EXPECT_EQ(format_message(make_message(kOf13, 2, r)),
            "OFPST_PORT reply (OF1.3) (xid=0x2): 2 ports\n"
            "  port LOCAL: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0\n"
            "           tx pkts=0, bytes=0, drop=0, errs=0, coll=0\n"
            "           duration=76.151s\n"
            "  port  1: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0\n"
            "           tx pkts=4, bytes=336, drop=0, errs=0, coll=0\n"
            "           duration=0s\n");
  PortDesc p;
  p.port_no = 1;
  p.name = "ftrefa";
  p.hw_addr = *MacAddr::parse("52:9c:4c:49:f4:93");
  p.config = port_config::kPortDown;
  p.state = port_state::kLinkDown;
  p.curr = port_features::k10GbFd | port_features::kCopper;
  p.curr_speed = 10000000;
  MultipartReply d{0, PortDescReply{{p}}};
  EXPECT_EQ(format_message(make_message(kOf13, 3, d)),
            "OFPST_PORT_DESC reply (OF1.3) (xid=0x3):\n"
            " 1(ftrefa): addr:52:9c:4c:49:f4:93\n"
            "     config:     PORT_DOWN\n"
            "     state:      LINK_DOWN\n"
            "     current:    10GB-FD COPPER\n"
            "     speed: 10000 Mbps now, 0 Mbps max\n");
}

TEST(Print, TableStatsFoldEqualTablesLikeOvs) {
  std::vector<TableStats> t(6);
  for (size_t i = 0; i < t.size(); ++i) t[i].table_id = uint8_t(i);
  t[0].active_count = 9;
  t[3].active_count = 1;
  EXPECT_EQ(format_table_stats(t, kOf13),
            "  table 0:\n    active=9, lookup=0, matched=0\n\n"
            "  table 1:\n    active=0, lookup=0, matched=0\n\n"
            "  table 2: ditto\n"
            "  table 3:\n    active=1, lookup=0, matched=0\n\n"
            "  table 4:\n    active=0, lookup=0, matched=0\n\n"
            "  table 5: ditto\n");
}

TEST(Print, GroupsMetersAggregate) {
  GroupDesc g{GroupType::kAll, 1, {Bucket{0, port::kAny, group::kAny, {Action::output(1)}}}};
  EXPECT_EQ(format_message(make_message(kOf13, 2, MultipartReply{0, GroupDescReply{{g}}})),
            "OFPST_GROUP_DESC reply (OF1.3) (xid=0x2):\n group_id=1,type=all,bucket=actions=output:1\n");
  MeterConfig mc{meter_flags::kKbps | meter_flags::kBurst | meter_flags::kStats,
                 1,
                 {MeterBand{MeterBandType::kDrop, 1000, 100, 0, 0, {}}}};
  EXPECT_EQ(format_message(make_message(kOf13, 2, MultipartReply{0, MeterConfigReply{{mc}}})),
            "OFPST_METER_CONFIG reply (OF1.3) (xid=0x2):\nmeter=1 kbps burst stats bands=\n"
            "type=drop rate=1000 burst_size=100\n");
  MeterStats ms;
  ms.meter_id = 1;
  ms.duration_sec = 63;
  ms.duration_nsec = 801000000;
  ms.bands.resize(1);
  EXPECT_EQ(format_message(make_message(kOf13, 2, MultipartReply{0, MeterStatsReply{{ms}}})),
            "OFPST_METER reply (OF1.3) (xid=0x2):\n"
            "meter:1 flow_count:0 packet_in_count:0 byte_in_count:0 duration:63.801s bands:\n"
            "0: packet_count:0 byte_count:0\n");
  EXPECT_EQ(format_message(make_message(kOf13, 2, MultipartReply{0, AggregateStatsReply{7, 574, 6}})),
            "OFPST_AGGREGATE reply (OF1.3) (xid=0x2): packet_count=7 byte_count=574 flow_count=6\n");
}

TEST(Print, HelloErrorEchoAndHexdump) {
  Message hello = make_hello(kOf13, version_bitmap({kOf10, kOf13}), 0);
  EXPECT_EQ(format_message(hello), "OFPT_HELLO (OF1.3) (xid=0x0):\n version bitmap: 0x01, 0x04\n");
  Message echo = make_message(kOf13, 0, EchoRequest{{'h', 'o', 'g', 'e'}});
  EXPECT_EQ(format_message(echo),
            "OFPT_ECHO_REQUEST (OF1.3) (xid=0x0): 4 bytes of payload\n"
            "00000000  68 6f 67 65                                     |hoge            |\n");
  ErrorMsg e;
  e.type = static_cast<uint16_t>(ErrorType::kBadAction);
  e.code = static_cast<uint16_t>(BadActionCode::kBadOutGroup);
  EXPECT_EQ(format_message(make_message(kOf13, 6, e)),
            "OFPT_ERROR (OF1.3) (xid=0x6): OFPBAC_BAD_OUT_GROUP\n");
  Bytes b(24);
  for (size_t i = 0; i < b.size(); ++i) b[i] = uint8_t(0x41 + i);
  EXPECT_EQ(format_hexdump(b),
            "00000000  41 42 43 44 45 46 47 48-49 4a 4b 4c 4d 4e 4f 50 |ABCDEFGHIJKLMNOP|\n"
            "00000010  51 52 53 54 55 56 57 58-                        |QRSTUVWX        |\n");
}

// OF1.4 table descriptions and table-mod: the bytes os-ken's layouts make
// (osken_of14_vectors.py), printed as `ovs-ofctl ofp-print` of OVS 3.1 prints them.
TEST(Print, Of14TableDescAndTableModLikeOvs) {
  Bytes desc;
  ASSERT_TRUE(from_hex(
      "0513003000001234000e0000000000000008000000000000001801000000000400020008000000060003000814500f00",
      desc));
  std::string out;
  ASSERT_TRUE(format_message_stream(desc, out).ok());
  EXPECT_EQ(out,
            "OFPST_TABLE_DESC reply (OF1.4) (xid=0x1234):\n"
            "  table 0:\n"
            "   eviction=off eviction_flags=(default)\n"
            "   vacancy=off\n"
            "\n"
            "  table 1:\n"
            "   eviction=on eviction_flags=IMPORTANCE|LIFETIME\n"
            "   vacancy=off\n");
  Bytes mod;
  ASSERT_TRUE(from_hex("0511002000001234030000000000000800020008000000020003000814500000", mod));
  out.clear();
  ASSERT_TRUE(format_message_stream(mod, out).ok());
  EXPECT_EQ(out, "OFPT_TABLE_MOD (OF1.4) (xid=0x1234): table_id=3, eviction=off, vacancy=on vacancy:20,80\n");
}

TEST(Print, StreamNamesTheBadMessageAndOffset) {
  // A barrier request, then a message whose header claims 4 bytes.
  Bytes data = {0x04, 0x14, 0x00, 0x08, 0, 0, 0, 1, 0x04, 0x0e, 0x00, 0x04, 0, 0, 0, 2};
  std::string out;
  auto st = format_message_stream(data, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "message 2 (OFPT_FLOW_MOD) at byte offset 8: header length 4 < 8");
  EXPECT_EQ(out, "OFPT_BARRIER_REQUEST (OF1.3) (xid=0x1):\n");
  Bytes truncated = {0x04, 0x0e, 0x00, 0x40, 0, 0, 0, 2};
  out.clear();
  auto t = format_message_stream(truncated, out);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message,
            "message 1 (OFPT_FLOW_MOD) at byte offset 0: header length 64 but only 8 bytes left");
}

}  // namespace
}  // namespace flowlab::of

// OF1.0 codec: every OF1.0 message kind round-trips model -> wire -> model, with
// the wire bytes checked against hand-assembled OF1.0 structures.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

// Encodes `m` as OF1.0, checks the bytes when `want_hex` is given, decodes and
// checks the model round-trips. Returns the wire bytes.
Bytes round_trip(const Message& m, std::string_view want_hex = {}) {
  auto wire = encode_of10(m);
  EXPECT_TRUE(wire.ok()) << wire.error().to_string();
  if (!wire.ok()) return {};
  if (!want_hex.empty()) {
    EXPECT_EQ(to_hex(*wire), to_hex(hex(want_hex)));
  }
  EXPECT_EQ(wire->at(0), kOf10);
  EXPECT_EQ(load_be16(wire->data() + 2), wire->size());
  auto back = decode_message(*wire);
  EXPECT_TRUE(back.ok()) << back.error().to_string();
  if (back.ok()) {
    EXPECT_EQ(*back, m);
  }
  return *wire;
}

Message msg(MessageBody body, uint32_t xid = 0x11223344) { return Message{kOf10, xid, std::move(body)}; }

TEST(Of10Messages, HelloPlainAndWithBitmap) {
  round_trip(msg(Hello{}), "01 00 0008 11223344");
  HelloElement e;
  e.bitmaps = {0x12};
  round_trip(msg(Hello{{e}}), "01 00 0010 11223344 0001 0008 00000012");
}

TEST(Of10Messages, ErrorEchoVendor) {
  round_trip(msg(ErrorMsg{1, 6, 0, hex("0102")}), "01 01 000e 11223344 0001 0006 0102");
  round_trip(msg(EchoRequest{hex("abcd")}), "01 02 000a 11223344 abcd");
  round_trip(msg(EchoReply{{}}), "01 03 0008 11223344");
  round_trip(msg(ExperimenterMsg{0x2320, 0, hex("00000010aabb")}),
             "01 04 0012 11223344 00002320 00000010aabb");
}

TEST(Of10Messages, FeaturesRequestAndReplyWithPorts) {
  round_trip(msg(FeaturesRequest{}), "01 05 0008 11223344");
  FeaturesReply f;
  f.datapath_id = 0x0102030405060708;
  f.n_buffers = 256;
  f.n_tables = 1;
  f.capabilities = 0xc7;
  f.reserved = 0xfff;
  PortDesc p;
  p.port_no = port::kLocal;
  p.hw_addr = *MacAddr::parse("00:11:22:33:44:55");
  p.name = "br0";
  p.config = port_config::kPortDown;
  p.state = port_state::kLinkDown;
  p.curr = port_features::k10GbFd | port_features::kCopper;  // OF1.3 bits 6 and 11
  f.ports = {p};
  round_trip(msg(f),
             "01 06 0050 11223344 0102030405060708 00000100 01 000000 000000c7 00000fff"
             " fffe 001122334455 62723000000000000000000000000000"
             " 00000001 00000001 000000c0 00000000 00000000 00000000");
}

TEST(Of10Messages, SwitchConfig) {
  round_trip(msg(GetConfigRequest{}), "01 07 0008 11223344");
  GetConfigReply r;
  r.flags = config_flags::kFragDrop;
  r.miss_send_len = 0xffff;
  round_trip(msg(r), "01 08 000c 11223344 0001 ffff");
  SetConfig s;
  s.miss_send_len = 128;
  round_trip(msg(s), "01 09 000c 11223344 0000 0080");
}

TEST(Of10Messages, PacketInCarriesInPortAsMatchField) {
  PacketIn p;
  p.buffer_id = 7;
  p.total_len = 60;
  p.reason = static_cast<uint8_t>(PacketInReason::kAction);
  p.match.add(OxmField::basic(OxmId::kInPort, 3));
  p.data = hex("ffffffffffff");
  round_trip(msg(p), "01 0a 0018 11223344 00000007 003c 0003 01 00 ffffffffffff");
}

TEST(Of10Messages, FlowRemoved) {
  FlowRemoved f;
  f.cookie = 0xabc;
  f.priority = 100;
  f.reason = static_cast<uint8_t>(FlowRemovedReason::kDelete);
  f.duration_sec = 5;
  f.duration_nsec = 6;
  f.idle_timeout = 30;
  f.packet_count = 9;
  f.byte_count = 900;
  f.match.add(OxmField::basic(OxmId::kInPort, 1));
  const Bytes wire = round_trip(msg(f));
  ASSERT_EQ(wire.size(), 88u);
  EXPECT_EQ(load_be32(&wire[8]), 0x003820feu);  // all wildcarded but in_port
  EXPECT_EQ(load_be64(&wire[48]), 0xabcu);
  EXPECT_EQ(wire[58], 2);                 // reason
  EXPECT_EQ(load_be16(&wire[68]), 30);    // idle_timeout
  EXPECT_EQ(load_be64(&wire[80]), 900u);  // byte_count
}

TEST(Of10Messages, PortStatus) {
  PortStatus s;
  s.reason = static_cast<uint8_t>(PortStatusReason::kModify);
  s.desc.port_no = 2;
  s.desc.name = "eth2";
  const Bytes wire = round_trip(msg(s));
  ASSERT_EQ(wire.size(), 64u);
  EXPECT_EQ(wire[8], 2);
  EXPECT_EQ(load_be16(&wire[16]), 2);
}

TEST(Of10Messages, PacketOutWidensPorts) {
  PacketOut p;
  p.in_port = port::kController;
  p.actions = {Action::output(port::kFlood), Action::output(port::kController, 128)};
  p.data = hex("0102");
  round_trip(msg(p),
             "01 0d 0022 11223344 ffffffff fffd 0010 0000 0008 fffb 0000"
             " 0000 0008 fffd 0080 0102");
}

TEST(Of10Messages, FlowModAllActions) {
  FlowMod f;
  f.cookie = 1;
  f.command = FlowModCommand::kModifyStrict;
  f.idle_timeout = 10;
  f.hard_timeout = 20;
  f.priority = 300;
  f.buffer_id = 5;
  f.out_port = port::kAny;
  f.flags = flow_mod_flags::kSendFlowRem;
  f.match.add(OxmField::basic(OxmId::kEthType, 0x0800));
  Action enq;
  enq.type = ActionType::kEnqueue;
  enq.port = 4;
  enq.queue_id = 7;
  Action vendor;
  vendor.type = ActionType::kExperimenter;
  vendor.experimenter = 0x2320;
  vendor.data = hex("0012000000000000");
  ActionList actions = {
      Action::output(1),
      Action::set_field(OxmField::basic(OxmId::kVlanVid, 0x1000 | 42)),
      Action::set_field(OxmField::basic(OxmId::kVlanPcp, 5)),
      Action::pop_vlan(),
      Action::set_field(OxmField::basic(OxmId::kEthSrc, 0x001122334455)),
      Action::set_field(OxmField::basic(OxmId::kEthDst, 0x66778899aabb)),
      Action::set_field(OxmField::basic(OxmId::kIpv4Src, 0x0a000001)),
      Action::set_field(OxmField::basic(OxmId::kIpv4Dst, 0x0a000002)),
      Action::set_field(OxmField::basic(OxmId::kIpDscp, 46)),
      Action::set_field(OxmField::basic(OxmId::kTcpSrc, 80)),
      Action::set_field(OxmField::basic(OxmId::kTcpDst, 443)),
      enq,
      vendor,
  };
  f.instructions = {Instruction::apply(actions)};
  const Bytes wire = round_trip(msg(f));
  const std::string h = to_hex(ByteSpan(wire).subspan(72));
  EXPECT_EQ(h, to_hex(hex("0000 0008 0001 0000"  // output:1
                          "0001 0008 002a 0000"  // set_vlan_vid 42
                          "0002 0008 05 000000"  // set_vlan_pcp 5
                          "0003 0008 00000000"   // strip_vlan
                          "0004 0010 001122334455 000000000000"
                          "0005 0010 66778899aabb 000000000000"
                          "0006 0008 0a000001"
                          "0007 0008 0a000002"
                          "0008 0008 b8 000000"  // tos = 46 << 2
                          "0009 0008 0050 0000"
                          "000a 0008 01bb 0000"
                          "000b 0010 0004 000000000000 00000007"
                          "ffff 0010 00002320 0012000000000000")));
  EXPECT_EQ(load_be16(&wire[56]), 2);       // command
  EXPECT_EQ(load_be16(&wire[68]), 0xffff);  // out_port OFPP_NONE
}

TEST(Of10Messages, FlowModUdpAndSctpPortsEncodeAsTpSetters) {
  FlowMod f;
  f.instructions = {Instruction::apply({Action::set_field(OxmField::basic(OxmId::kUdpSrc, 53)),
                                        Action::set_field(OxmField::basic(OxmId::kSctpDst, 9))})};
  auto wire = encode_of10(msg(f));
  ASSERT_TRUE(wire.ok()) << wire.error().to_string();
  EXPECT_EQ(to_hex(ByteSpan(*wire).subspan(72)), to_hex(hex("0009 0008 0035 0000 000a 0008 0009 0000")));
}

TEST(Of10Messages, FlowModWithoutActionsHasNoInstructions) {
  FlowMod f;
  f.command = FlowModCommand::kDelete;
  f.table_id = table::kAll;  // OF1.3-style "all tables" is accepted for deletes
  auto wire = encode_of10(msg(f));
  ASSERT_TRUE(wire.ok()) << wire.error().to_string();
  EXPECT_EQ(wire->size(), 72u);
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok());
  EXPECT_TRUE(back->as<FlowMod>().instructions.empty());
  EXPECT_EQ(back->as<FlowMod>().table_id, 0);
}

TEST(Of10Messages, PortMod) {
  PortMod p;
  p.port_no = 3;
  p.hw_addr = *MacAddr::parse("02:00:00:00:00:03");
  p.config = port_config::kPortDown;
  p.mask = port_config::kPortDown;
  p.advertise = port_features::kCopper;  // OF1.3 bit 11 = OF1.0 bit 7
  round_trip(msg(p), "01 0f 0020 11223344 0003 020000000003 00000001 00000001 00000080 00000000");
}

TEST(Of10Messages, StatsRequests) {
  round_trip(msg(MultipartRequest{0, DescRequest{}}), "01 10 000c 11223344 0000 0000");
  FlowStatsRequest fr;
  fr.match.add(OxmField::basic(OxmId::kInPort, 1));
  const Bytes wire = round_trip(msg(MultipartRequest{0, fr}));
  ASSERT_EQ(wire.size(), 56u);
  EXPECT_EQ(to_hex(ByteSpan(wire).subspan(52)), "ff00ffff");  // table all, pad, out_port none
  AggregateStatsRequest ar;
  ar.table_id = 0;
  ar.out_port = 2;
  round_trip(msg(MultipartRequest{0, ar}));
  round_trip(msg(MultipartRequest{0, TableStatsRequest{}}), "01 10 000c 11223344 0003 0000");
  round_trip(msg(MultipartRequest{0, PortStatsRequest{port::kAny}}),
             "01 10 0014 11223344 0004 0000 ffff 000000000000");
  round_trip(msg(MultipartRequest{0, QueueStatsRequest{port::kAll, 3}}),
             "01 10 0014 11223344 0005 0000 fffc 0000 00000003");
  round_trip(msg(MultipartRequest{0, ExperimenterMultipart{0x2320, 0, hex("01020304")}}),
             "01 10 0014 11223344 ffff 0000 00002320 01020304");
}

TEST(Of10Messages, StatsReplies) {
  DescReply d{"mfr", "hw", "sw", "serial", "dp"};
  const Bytes desc = round_trip(msg(MultipartReply{0, d}));
  EXPECT_EQ(desc.size(), 12u + 1056u);

  FlowStats s;
  s.table_id = 0;
  s.duration_sec = 1;
  s.priority = 10;
  s.cookie = 0x99;
  s.packet_count = 2;
  s.byte_count = 3;
  s.match.add(OxmField::basic(OxmId::kEthType, 0x0806));
  s.instructions = {Instruction::apply({Action::output(2)})};
  FlowStats s2 = s;
  s2.instructions.clear();
  const Bytes flows = round_trip(msg(MultipartReply{kMultipartMore, FlowStatsReply{{s, s2}}}));
  EXPECT_EQ(flows.size(), 12u + 96u + 88u);
  EXPECT_EQ(load_be16(&flows[10]), kMultipartMore);
  EXPECT_EQ(load_be16(&flows[12]), 96);   // first entry length
  EXPECT_EQ(load_be16(&flows[108]), 88);  // second entry length
  // A flow added with SEND_FLOW_REM: OF1.0 flow stats have no flags field, the
  // entry is still reported (the flags are not on the wire).
  FlowStats with_flags = s;
  with_flags.flags = flow_mod_flags::kSendFlowRem;
  auto flagged = encode_of10(msg(MultipartReply{0, FlowStatsReply{{with_flags}}}));
  ASSERT_TRUE(flagged.ok()) << flagged.error().to_string();
  EXPECT_EQ(*flagged, round_trip(msg(MultipartReply{0, FlowStatsReply{{s}}})));

  round_trip(msg(MultipartReply{0, AggregateStatsReply{10, 20, 3}}),
             "01 11 0024 11223344 0002 0000 000000000000000a 0000000000000014 00000003 00000000");
  TableStats t;
  t.name = "classifier";
  t.wildcards = 0x3fffff;
  t.max_entries = 1000;
  t.active_count = 4;
  t.lookup_count = 50;
  t.matched_count = 40;
  EXPECT_EQ(round_trip(msg(MultipartReply{0, TableStatsReply{{t}}})).size(), 12u + 64u);
  PortStats p;
  p.port_no = 1;
  p.rx_packets = 1;
  p.collisions = 12;
  const Bytes ports = round_trip(msg(MultipartReply{0, PortStatsReply{{p, p}}}));
  EXPECT_EQ(ports.size(), 12u + 2 * 104u);
  EXPECT_EQ(load_be64(&ports[12 + 96]), 12u);
  QueueStats q;
  q.port_no = 1;
  q.queue_id = 2;
  q.tx_bytes = 3;
  EXPECT_EQ(round_trip(msg(MultipartReply{0, QueueStatsReply{{q}}})).size(), 12u + 32u);
  round_trip(msg(MultipartReply{0, ExperimenterMultipart{0x2320, 0, {}}}),
             "01 11 0010 11223344 ffff 0000 00002320");
}

TEST(Of10Messages, BarrierAndQueueConfig) {
  round_trip(msg(BarrierRequest{}), "01 12 0008 11223344");
  round_trip(msg(BarrierReply{}), "01 13 0008 11223344");
  round_trip(msg(QueueGetConfigRequest{1}), "01 14 000c 11223344 0001 0000");
  QueueGetConfigReply r;
  r.port = 1;
  PacketQueue q;
  q.queue_id = 5;
  QueueProperty min;
  min.type = QueuePropType::kMinRate;
  min.rate = 500;
  q.properties = {min};
  PacketQueue empty;
  empty.queue_id = 6;
  r.queues = {q, empty};
  round_trip(msg(r),
             "01 15 0030 11223344 0001 000000000000"
             " 00000005 0018 0000 0001 0010 00000000 01f4 000000000000"
             " 00000006 0008 0000");
}

}  // namespace
}  // namespace flowlab::of

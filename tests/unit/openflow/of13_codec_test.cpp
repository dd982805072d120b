// OF1.3 codec: exact bytes of built messages, round trips of every body type,
// and the OFPT_ERROR type/code/offset of malformed input.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

Bytes enc(const Message& m) {
  auto r = encode_message(m);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? *r : Bytes{};
}

void expect_round_trip(const Message& m) {
  Bytes wire = enc(m);
  auto back = decode_message(wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string() << " for " << to_hex(wire);
  EXPECT_EQ(*back, m) << to_string(m.type());
  EXPECT_EQ(enc(*back), wire);
}

OfError decode_error(const Bytes& wire) {
  auto r = decode_message(wire);
  EXPECT_FALSE(r.ok()) << "decoded " << to_hex(wire);
  return r.ok() ? OfError{} : r.error();
}

Match tcp_dummy() {
  Match m;
  m.add(OxmField::basic(OxmId::kEthType, 0x0800));
  m.add(OxmField::basic(OxmId::kIpProto, 6));
  m.add(OxmField::basic(OxmId::kTcpDst, 22));
  return m;
}

FlowMod sample_flow_mod() {
  FlowMod fm;
  fm.table_id = 1;
  fm.priority = 100;
  fm.match.add(OxmField::basic(OxmId::kInPort, 1));
  fm.match.add(OxmField::basic(OxmId::kEthType, 0x0800));
  fm.match.add(OxmField::basic_masked(OxmId::kIpv4Dst, 0x0a000000, 0xff000000));
  fm.instructions.push_back(Instruction::apply({Action::output(2), Action::output(port::kController, 128)}));
  fm.instructions.push_back(Instruction::goto_table(2));
  return fm;
}

TEST(Of13Codec, FlowModBytesAreTheSpecLayout) {
  Bytes wire = enc(make_message(kOf13, 0x11223344, sample_flow_mod()));
  EXPECT_EQ(to_hex(wire),
            to_hex(hex(
                "040e0080 11223344 0000000000000000 0000000000000000 01 00 0000 0000 0064 ffffffff"
                "ffffffff ffffffff 0000 0000"
                "0001 001e 80000004 00000001 80000a02 0800 80001908 0a000000 ff000000 0000"
                "0004 0028 00000000 0000 0010 00000002 0000 000000000000 0000 0010 fffffffd 0080 000000000000"
                "0001 0008 02 000000")));
}

TEST(Of13Codec, HelloCarriesVersionBitmap) {
  Bytes wire = enc(make_hello(kOf13, version_bitmap({kOf10, kOf13}), 7));
  EXPECT_EQ(to_hex(wire), to_hex(hex("04000010 00000007 00010008 00000012")));
}

TEST(Of13Codec, EveryMessageTypeRoundTrips) {
  PortDesc pd;
  pd.port_no = 3;
  pd.hw_addr = *MacAddr::parse("00:11:22:33:44:55");
  pd.name = "eth3";
  pd.curr_speed = 10000000;
  Bucket bk;
  bk.weight = 1;
  bk.actions = {Action::push_vlan(), Action::set_field(OxmField::basic(OxmId::kVlanVid, kVlanPresent | 5)),
                Action::output(4)};
  MeterBand drop;
  drop.rate = 1000;
  MeterBand exp;
  exp.type = MeterBandType::kExperimenter;
  exp.experimenter = 0x2320;
  exp.data = {1, 2, 3, 4};
  Action nx;
  nx.type = ActionType::kExperimenter;
  nx.experimenter = 0x2320;
  nx.data = {0, 0x1d, 1, 2, 3, 4, 5, 6};
  TableFeatures tf;
  tf.table_id = 0;
  tf.name = "t0";
  tf.properties.push_back({TableFeaturePropType::kInstructions, {1, 3, 4}, 0, 0, {}});
  tf.properties.push_back({TableFeaturePropType::kNextTables, {1, 2, 3}, 0, 0, {}});
  tf.properties.push_back({TableFeaturePropType::kMatch, {0x80000004, 0x80001908}, 0, 0, {}});
  tf.properties.push_back({TableFeaturePropType::kExperimenter, {}, 0x2320, 7, {0, 0, 0, 1}});
  PacketQueue q;
  q.queue_id = 1;
  q.port = 2;
  q.properties.push_back({QueuePropType::kMinRate, 100, 0, 0, {}});

  std::vector<MessageBody> bodies = {
      Hello{},
      ErrorMsg{1, 6, 0, {1, 2, 3}},
      ErrorMsg{0xffff, 5, 0x2320, {9}},
      EchoRequest{{1, 2}},
      EchoReply{{}},
      ExperimenterMsg{0x2320, 9, {1}},
      FeaturesRequest{},
      FeaturesReply{0xabcdef, 256, 254, 0, 0x4f, 0, {}},
      GetConfigRequest{},
      GetConfigReply{},
      SetConfig{},
      PacketIn{kNoBuffer, 60, 1, 0, 7, Match{}.add(OxmField::basic(OxmId::kInPort, 1)), {0xde, 0xad}},
      FlowRemoved{1, 2, 0, 0, 3, 4, 5, 6, 7, 8, tcp_dummy()},
      PortStatus{2, pd},
      PacketOut{kNoBuffer, port::kController, {Action::output(port::kFlood)}, {1, 2, 3}},
      sample_flow_mod(),
      GroupMod{GroupModCommand::kAdd, GroupType::kSelect, 5, {bk}},
      PortMod{3, pd.hw_addr, 1, 1, 0},
      TableMod{0, 3, {}, {}},
      MultipartRequest{0, FlowStatsRequest{}},
      MultipartRequest{0, AggregateStatsRequest{}},
      MultipartRequest{0, DescRequest{}},
      MultipartRequest{0, PortStatsRequest{}},
      MultipartRequest{0, QueueStatsRequest{}},
      MultipartRequest{0, GroupStatsRequest{}},
      MultipartRequest{0, MeterConfigRequest{}},
      MultipartRequest{1, TableFeaturesRequest{{tf}}},
      MultipartRequest{0, ExperimenterMultipart{0x4f4e4600, 1, {5}}},
      MultipartReply{0, DescReply{"mfr", "hw", "sw", "1", "dp"}},
      MultipartReply{
          0,
          FlowStatsReply{{FlowStats{
              1, 2, 3, 4, 5, 6, 7, 8, 9, 10, tcp_dummy(), {Instruction::meter(1), Instruction::clear()}}}}},
      MultipartReply{0, AggregateStatsReply{1, 2, 3}},
      MultipartReply{0, TableStatsReply{{TableStats{0, 1, 2, 3, "", 0, 0}}}},
      MultipartReply{0, PortStatsReply{{PortStats{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}}}},
      MultipartReply{0, QueueStatsReply{{QueueStats{1, 2, 3, 4, 5, 6, 7}}}},
      MultipartReply{0, GroupStatsReply{{GroupStats{1, 2, 3, 4, 5, 6, {{7, 8}}}}}},
      MultipartReply{0, GroupDescReply{{GroupDesc{GroupType::kAll, 1, {bk}}}}},
      MultipartReply{0, GroupFeaturesReply{1, 2, {1, 2, 3, 4}, {5, 6, 7, 8}}},
      MultipartReply{0, MeterStatsReply{{MeterStats{1, 2, 3, 4, 5, 6, {{7, 8}}}}}},
      MultipartReply{0, MeterConfigReply{{MeterConfig{meter_flags::kKbps, 1, {drop, exp}}}}},
      MultipartReply{0, MeterFeaturesReply{1, 6, 15, 2, 0}},
      MultipartReply{1, TableFeaturesReply{{tf}}},
      MultipartReply{0, PortDescReply{{pd}}},
      MultipartReply{0, ExperimenterMultipart{1, 2, {3}}},
      BarrierRequest{},
      BarrierReply{},
      QueueGetConfigRequest{1},
      QueueGetConfigReply{1, {q}},
      RoleRequest{{ControllerRole::kMaster, 9}},
      RoleReply{{ControllerRole::kSlave, 10}},
      GetAsyncRequest{},
      GetAsyncReply{{{{1, 2}}, {{3, 4}}, {{5, 6}}}},
      SetAsync{},
      MeterMod{MeterModCommand::kAdd, meter_flags::kKbps, 1, {drop, exp}},
  };
  FlowMod with_nx = sample_flow_mod();
  with_nx.instructions[0].actions.push_back(nx);
  bodies.push_back(with_nx);
  uint32_t xid = 1;
  for (auto& b : bodies) {
    SCOPED_TRACE(xid);
    expect_round_trip(Message{kOf13, xid++, b});
  }
}

TEST(Of13Codec, HeaderErrors) {
  Bytes barrier = hex("04140008 00000001");
  ASSERT_TRUE(decode_message(barrier).ok());
  Bytes longer = barrier;
  longer.push_back(0);
  OfError e = decode_error(longer);
  EXPECT_EQ(e.type, ErrorType::kBadRequest);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadLen));
  e = decode_error(hex("04ff0008 00000001"));
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadType));
  e = decode_error(hex("07000008 00000001"));  // OpenFlow 1.6: not spoken
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadVersion));
  e = decode_error(hex("0414000c 00000001 00000000"));  // barrier with a body
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadLen));
  EXPECT_EQ(e.offset, 8u);
}

TEST(Of13Codec, BodyErrorsCarryCodeAndOffset) {
  // Unknown multipart type 99.
  OfError e = decode_error(hex("04120010 00000001 00630000 00000000"));
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadMultipart));
  EXPECT_EQ(e.offset, 8u);

  Bytes fm = enc(make_message(kOf13, 1, sample_flow_mod()));
  // Action type 99 where the first output action is (header 8 + body 40 + match 32 + instruction header 8).
  Bytes bad = fm;
  bad[88] = 0;
  bad[89] = 99;
  e = decode_error(bad);
  EXPECT_EQ(e.type, ErrorType::kBadAction);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadActionCode::kBadType));
  EXPECT_EQ(e.offset, 88u);
  // Output action length 12.
  bad = fm;
  bad[91] = 12;
  e = decode_error(bad);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadActionCode::kBadLen));
  // Instruction type 9 (the goto_table at offset 120).
  bad = fm;
  bad[121] = 9;
  e = decode_error(bad);
  EXPECT_EQ(e.type, ErrorType::kBadInstruction);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadInstructionCode::kUnknownInst));
  EXPECT_EQ(e.offset, 120u);
  // Match type 0 (OF1.1 standard match) at offset 48.
  bad = fm;
  bad[49] = 0;
  e = decode_error(bad);
  EXPECT_EQ(e.type, ErrorType::kBadMatch);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadMatchCode::kBadType));
  EXPECT_EQ(e.offset, 48u);
  // Match length longer than the message.
  bad = fm;
  bad[50] = 0x10;
  e = decode_error(bad);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadMatchCode::kBadLen));
  // packet_out actions_len beyond the message.
  Bytes po = enc(make_message(kOf13, 1, PacketOut{kNoBuffer, 1, {Action::output(2)}, {}}));
  po[17] = 0x40;
  e = decode_error(po);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadRequestCode::kBadLen));
}

TEST(Of13Codec, EveryTruncationFailsCleanly) {
  Bytes fm = enc(make_message(kOf13, 1, sample_flow_mod()));
  for (size_t n = 8; n < fm.size(); ++n) {
    Bytes cut(fm.begin(), fm.begin() + static_cast<std::ptrdiff_t>(n));
    store_be16(&cut[2], uint16_t(n));  // a consistent header, a short body
    auto r = decode_message(cut);
    if (n == 80 || n == 120) {  // cut at an instruction boundary: a valid, shorter flow-mod
      ASSERT_TRUE(r.ok()) << n;
      EXPECT_EQ(enc(*r), cut);
      continue;
    }
    EXPECT_FALSE(r.ok()) << n;
  }
}

TEST(Of13Codec, EnqueueIsNotAnOf13Action) {
  Action a;
  a.type = ActionType::kEnqueue;
  PacketOut po;
  po.actions = {a};
  auto r = encode_message(make_message(kOf13, 1, po));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().type, ErrorType::kBadAction);
}

}  // namespace
}  // namespace flowlab::of

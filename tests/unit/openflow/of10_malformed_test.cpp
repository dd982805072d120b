// OF1.0 codec: malformed input decodes to the exact OFPT_ERROR type/code (OF1.3
// numbering) and byte offset; model messages OF1.0 cannot express fail to encode
// with a clear error; error_to_of10/error_from_of10 translate the numbering.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

// Fixes the header length to the buffer size.
Bytes framed(std::string_view h) {
  Bytes b = hex(h);
  if (b.size() >= 4) store_be16(&b[2], static_cast<uint16_t>(b.size()));
  return b;
}

template <typename Code>
void expect_decode_error(const Bytes& wire, Code code, size_t offset) {
  auto m = decode_message(wire);
  ASSERT_FALSE(m.ok()) << "decoded " << to_hex(wire);
  EXPECT_EQ(m.error().type, error_type_of<Code>()) << m.error().to_string();
  EXPECT_EQ(m.error().code, static_cast<uint16_t>(code)) << m.error().to_string();
  EXPECT_EQ(m.error().offset, offset) << m.error().to_string();
  EXPECT_FALSE(m.error().message.empty());
}

template <typename Code>
void expect_encode_error(const Message& m, Code code, std::string_view text) {
  auto wire = encode_of10(m);
  ASSERT_FALSE(wire.ok());
  EXPECT_EQ(wire.error().type, error_type_of<Code>()) << wire.error().to_string();
  EXPECT_EQ(wire.error().code, static_cast<uint16_t>(code)) << wire.error().to_string();
  EXPECT_NE(wire.error().message.find(text), std::string::npos) << wire.error().message;
}

// A flow_mod with an empty match/fields and the given action bytes.
Bytes flow_mod_with_actions(std::string_view actions_hex) {
  std::string h = "01 0e 0000 00000001 003820ff" + std::string(72, '0') +
                  " 0000000000000000 0000 0000 0000 8000 ffffffff ffff 0000 ";
  return framed(h + std::string(actions_hex));
}

TEST(Of10Malformed, HeaderProblems) {
  expect_decode_error(hex("01 00 0009 00000001"), BadRequestCode::kBadLen, 2);  // length > size
  expect_decode_error(hex("01 00 0008 00000001 00"), BadRequestCode::kBadLen, 2);
  expect_decode_error(hex("01 00 00"), BadRequestCode::kBadLen, 0);
  expect_decode_error(framed("01 16 0000 00000001"), BadRequestCode::kBadType, 1);  // type 22
  expect_decode_error(framed("01 ff 0000 00000001"), BadRequestCode::kBadType, 1);
  auto wrong = decode_of10(framed("04 00 0000 00000001"));
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().code, static_cast<uint16_t>(BadRequestCode::kBadVersion));
}

TEST(Of10Malformed, FixedSizeBodies) {
  expect_decode_error(framed("01 05 0000 00000001 00"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 09 0000 00000001 0000"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 12 0000 00000001 00000000"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 0f 0000 00000001 0001"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 0c 0000 00000001 02 00000000000000"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 01 0000 00000001 00"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 04 0000 00000001 0000"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 0a 0000 00000001 00000001 0040 0001"), BadRequestCode::kBadLen, 8);
}

TEST(Of10Malformed, FeaturesReplyPortListNotWhole) {
  expect_decode_error(framed("01 06 0000 00000001 0000000000000001 00000000 01 000000 00000000"
                             " 00000000 0001 0203"),
                      BadRequestCode::kBadLen, 32);
}

TEST(Of10Malformed, TruncatedMatch) {
  expect_decode_error(framed("01 0e 0000 00000001 003820ff 0000 0000"), BadRequestCode::kBadLen, 8);
}

TEST(Of10Malformed, BadActions) {
  // Length 12 is not a multiple of 8.
  expect_decode_error(flow_mod_with_actions("0000 000c 0001 0000 00000000"), BadActionCode::kBadLen, 72);
  // Length 0 would loop forever if accepted.
  expect_decode_error(flow_mod_with_actions("0000 0000 0001 0000"), BadActionCode::kBadLen, 72);
  // Length beyond the message.
  expect_decode_error(flow_mod_with_actions("0000 0010 0001 0000"), BadActionCode::kBadLen, 72);
  // Fewer than 8 bytes left for a second action header.
  expect_decode_error(flow_mod_with_actions("0000 0008 0001 0000 0000"), BadActionCode::kBadLen, 80);
  // Output must be 8 bytes.
  expect_decode_error(flow_mod_with_actions("0000 0010 0001 0000 0000000000000000"), BadActionCode::kBadLen,
                      72);
  // Unknown type 12 (after a valid output).
  expect_decode_error(flow_mod_with_actions("0000 0008 0001 0000 000c 0008 00000000"),
                      BadActionCode::kBadType, 80);
  expect_decode_error(flow_mod_with_actions("0000 0008 ffff 0000"), BadActionCode::kBadOutPort, 72);
  expect_decode_error(flow_mod_with_actions("0001 0008 1388 0000"), BadActionCode::kBadArgument, 72);
  expect_decode_error(flow_mod_with_actions("0002 0008 08 000000"), BadActionCode::kBadArgument, 72);
  expect_decode_error(flow_mod_with_actions("0008 0008 03 000000"), BadActionCode::kBadArgument, 72);
  // Vendor action shorter than its header.
  expect_decode_error(flow_mod_with_actions("ffff 0004 0000"), BadActionCode::kBadLen, 72);
}

TEST(Of10Malformed, FlowModCommand) {
  Bytes b = flow_mod_with_actions("");
  store_be16(&b[56], 9);
  expect_decode_error(b, FlowModFailedCode::kBadCommand, 56);
}

TEST(Of10Malformed, PacketOutActionsLength) {
  expect_decode_error(framed("01 0d 0000 00000001 ffffffff fffd 0010 0000 0008 0001 0000"),
                      BadRequestCode::kBadLen, 14);
  // actions_len 4 cuts the output action.
  expect_decode_error(framed("01 0d 0000 00000001 ffffffff fffd 0004 0000 0008 0001 0000"),
                      BadActionCode::kBadLen, 16);
}

TEST(Of10Malformed, Stats) {
  expect_decode_error(framed("01 10 0000 00000001 0007 0000"), BadRequestCode::kBadMultipart, 8);
  expect_decode_error(framed("01 10 0000 00000001 00"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 10 0000 00000001 0004 0000 0001"), BadRequestCode::kBadLen, 12);
  expect_decode_error(framed("01 11 0000 00000001 0002 0000 00"), BadRequestCode::kBadLen, 12);
  expect_decode_error(framed("01 11 0000 00000001 0003 0000 00"), BadRequestCode::kBadLen, 12);
  // Flow stats entry claiming 80 bytes (< 88).
  std::string entry = "0050 00 00 003820ff" + std::string(72, '0') + std::string(96, '0');
  expect_decode_error(framed("01 11 0000 00000001 0001 0000 " + entry), BadRequestCode::kBadLen, 12);
}

TEST(Of10Malformed, QueueConfigReply) {
  // Queue claims 4 bytes (< 8).
  expect_decode_error(framed("01 15 0000 00000001 0001 000000000000 00000001 0004 0000"),
                      BadRequestCode::kBadLen, 16);
  // Min-rate property with length 8 instead of 16.
  expect_decode_error(framed("01 15 0000 00000001 0001 000000000000 00000001 0010 0000"
                             " 0001 0008 00000000"),
                      BadRequestCode::kBadLen, 24);
}

TEST(Of10Malformed, HelloElements) {
  expect_decode_error(framed("01 00 0000 00000001 0001 0010 00000012"), BadRequestCode::kBadLen, 8);
  expect_decode_error(framed("01 00 0000 00000001 0001"), BadRequestCode::kBadLen, 8);
}

Message msg10(MessageBody b) { return Message{kOf10, 1, std::move(b)}; }

TEST(Of10Unencodable, MessagesAndFieldsOf13Only) {
  expect_encode_error(msg10(GroupMod{}), BadRequestCode::kBadType, "OFPT_GROUP_MOD");
  expect_encode_error(msg10(MeterMod{}), BadRequestCode::kBadType, "OF1.0 has no");
  expect_encode_error(msg10(RoleRequest{}), BadRequestCode::kBadType, "OF1.0 has no");
  expect_encode_error(msg10(MultipartRequest{0, GroupDescRequest{}}), BadRequestCode::kBadMultipart,
                      "OF1.0 has no multipart");
  expect_encode_error(msg10(MultipartRequest{0, PortDescRequest{}}), BadRequestCode::kBadMultipart,
                      "OF1.0 has no multipart");

  FlowMod goto_table;
  goto_table.instructions = {Instruction::goto_table(1)};
  expect_encode_error(msg10(goto_table), BadInstructionCode::kUnsupInst, "OFPIT_GOTO_TABLE");
  FlowMod two;
  two.instructions = {Instruction::apply({}), Instruction::apply({})};
  expect_encode_error(msg10(two), BadInstructionCode::kUnsupInst, "one action list");
  FlowMod table1;
  table1.table_id = 1;
  expect_encode_error(msg10(table1), FlowModFailedCode::kBadTableId, "table_id 1");
  FlowMod group;
  group.instructions = {Instruction::apply({Action::group(3)})};
  expect_encode_error(msg10(group), BadActionCode::kBadType, "OF1.0 has no");
  FlowMod wide;
  wide.instructions = {Instruction::apply({Action::output(0x10000)})};
  expect_encode_error(msg10(wide), BadActionCode::kBadOutPort, "65536");
  FlowMod v6;
  v6.instructions = {
      Instruction::apply({Action::set_field(OxmField::basic_bytes(OxmId::kIpv6Src, Bytes(16, 0)))})};
  expect_encode_error(msg10(v6), BadActionCode::kBadSetType, "ipv6_src");
  FlowMod cookie_mask;
  cookie_mask.cookie_mask = 1;
  expect_encode_error(msg10(cookie_mask), FlowModFailedCode::kBadFlags, "cookie mask");
  FlowMod no_counts;
  no_counts.flags = flow_mod_flags::kNoPktCounts;
  expect_encode_error(msg10(no_counts), FlowModFailedCode::kBadFlags, "flags 0x8");

  PortStatus ps;
  ps.desc.port_no = 70000;
  expect_encode_error(msg10(ps), BadRequestCode::kBadPort, "70000");
  ExperimenterMsg exp;
  exp.exp_type = 1;
  expect_encode_error(msg10(exp), BadRequestCode::kBadExpType, "exp_type");

  Action odd;
  odd.type = ActionType::kExperimenter;
  odd.data = hex("01");
  PacketOut po;
  po.actions = {odd};
  expect_encode_error(msg10(po), BadActionCode::kBadLen, "multiple of 8");
}

TEST(Of10Errors, ToOf10) {
  auto to10 = [](auto code) {
    uint16_t t = 0, c = 0;
    error_to_of10(error_type_of<decltype(code)>(), static_cast<uint16_t>(code), t, c);
    return std::pair<int, int>(t, c);
  };
  using P = std::pair<int, int>;
  EXPECT_EQ(to10(HelloFailedCode::kIncompatible), P(0, 0));
  EXPECT_EQ(to10(BadRequestCode::kBadLen), P(1, 6));
  EXPECT_EQ(to10(BadRequestCode::kBufferUnknown), P(1, 8));
  EXPECT_EQ(to10(BadRequestCode::kBadMultipart), P(1, 2));  // BAD_STAT
  EXPECT_EQ(to10(BadRequestCode::kIsSlave), P(1, 5));       // EPERM
  EXPECT_EQ(to10(BadActionCode::kBadOutPort), P(2, 4));
  EXPECT_EQ(to10(BadActionCode::kBadQueue), P(2, 8));
  EXPECT_EQ(to10(BadActionCode::kBadOutGroup), P(2, 4));
  EXPECT_EQ(to10(BadActionCode::kBadSetArgument), P(2, 5));
  EXPECT_EQ(to10(BadActionCode::kUnsupportedOrder), P(3, 5));  // FLOW_MOD_FAILED/UNSUPPORTED
  EXPECT_EQ(to10(BadInstructionCode::kUnsupInst), P(2, 0));    // BAD_ACTION/BAD_TYPE
  EXPECT_EQ(to10(BadInstructionCode::kBadLen), P(2, 1));
  EXPECT_EQ(to10(BadMatchCode::kBadPrereq), P(1, 5));  // BAD_REQUEST/EPERM
  EXPECT_EQ(to10(BadMatchCode::kBadLen), P(1, 6));
  EXPECT_EQ(to10(FlowModFailedCode::kTableFull), P(3, 0));  // ALL_TABLES_FULL
  EXPECT_EQ(to10(FlowModFailedCode::kOverlap), P(3, 1));
  EXPECT_EQ(to10(FlowModFailedCode::kEperm), P(3, 2));
  EXPECT_EQ(to10(FlowModFailedCode::kBadTimeout), P(3, 3));
  EXPECT_EQ(to10(FlowModFailedCode::kBadCommand), P(3, 4));
  EXPECT_EQ(to10(PortModFailedCode::kBadPort), P(4, 0));
  EXPECT_EQ(to10(PortModFailedCode::kBadHwAddr), P(4, 1));
  EXPECT_EQ(to10(QueueOpFailedCode::kBadQueue), P(5, 1));
  EXPECT_EQ(to10(GroupModFailedCode::kLoop), P(1, 1));  // no groups: BAD_TYPE
  EXPECT_EQ(to10(MeterModFailedCode::kBadRate), P(1, 1));
  EXPECT_EQ(to10(SwitchConfigFailedCode::kBadLen), P(1, 6));
  EXPECT_EQ(to10(TableFeaturesFailedCode::kBadTable), P(1, 2));
}

TEST(Of10Errors, FromOf10) {
  auto from10 = [](uint16_t t, uint16_t c) {
    ErrorType type{};
    uint16_t code = 0;
    error_from_of10(t, c, type, code);
    return std::pair<ErrorType, int>(type, code);
  };
  using P = std::pair<ErrorType, int>;
  EXPECT_EQ(from10(1, 6), P(ErrorType::kBadRequest, 6));
  EXPECT_EQ(from10(2, 4), P(ErrorType::kBadAction, 4));
  EXPECT_EQ(from10(3, 0), P(ErrorType::kFlowModFailed, static_cast<int>(FlowModFailedCode::kTableFull)));
  EXPECT_EQ(from10(3, 1), P(ErrorType::kFlowModFailed, static_cast<int>(FlowModFailedCode::kOverlap)));
  EXPECT_EQ(from10(3, 3), P(ErrorType::kFlowModFailed, static_cast<int>(FlowModFailedCode::kBadTimeout)));
  EXPECT_EQ(from10(3, 5), P(ErrorType::kBadAction, static_cast<int>(BadActionCode::kUnsupportedOrder)));
  EXPECT_EQ(from10(4, 1), P(ErrorType::kPortModFailed, 1));
  EXPECT_EQ(from10(5, 2), P(ErrorType::kQueueOpFailed, 2));
  EXPECT_EQ(from10(0xb0c2, 7), P(ErrorType::kExperimenter, 7));
  // Every OF1.0 error survives from -> to unchanged.
  const int counts[] = {2, 9, 9, 6, 2, 3};
  for (uint16_t t = 0; t < 6; ++t) {
    for (uint16_t c = 0; c < counts[t]; ++c) {
      auto [type, code] = from10(t, c);
      uint16_t t2 = 0, c2 = 0;
      error_to_of10(type, static_cast<uint16_t>(code), t2, c2);
      EXPECT_EQ(t2, t) << "type " << t << " code " << c;
      EXPECT_EQ(c2, c) << "type " << t << " code " << c;
    }
  }
}

}  // namespace
}  // namespace flowlab::of

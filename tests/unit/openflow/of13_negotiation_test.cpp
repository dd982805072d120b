// Version negotiation (OF1.3 §6.3.1), hellos, and OFPT_ERROR replies in the
// request's version; error names.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Message hello_with_bitmap(uint8_t version, uint32_t bitmap) { return make_hello(version, bitmap); }
Message plain_hello(uint8_t version) { return make_message(version, 0, Hello{}); }

TEST(Of13Negotiation, BitmapsPickHighestCommonVersion) {
  uint32_t ours = version_bitmap({kOf10, kOf13});
  EXPECT_EQ(ours, 0x12u);
  EXPECT_EQ(negotiate_version(ours, hello_with_bitmap(kOf13, version_bitmap({kOf10, kOf13}))), kOf13);
  EXPECT_EQ(negotiate_version(ours, hello_with_bitmap(5, version_bitmap({1, 4, 5}))), kOf13);
  EXPECT_EQ(negotiate_version(ours, hello_with_bitmap(6, version_bitmap({1, 2, 3, 6}))), kOf10);
  EXPECT_EQ(negotiate_version(ours, hello_with_bitmap(6, version_bitmap({5, 6}))), 0);
  EXPECT_EQ(negotiate_version(version_bitmap({kOf13}), hello_with_bitmap(4, version_bitmap({1}))), 0);
}

TEST(Of13Negotiation, WithoutBitmapUseLowerHeaderVersion) {
  uint32_t ours = version_bitmap({kOf10, kOf13});
  EXPECT_EQ(negotiate_version(ours, plain_hello(kOf10)), kOf10);
  EXPECT_EQ(negotiate_version(ours, plain_hello(kOf13)), kOf13);
  EXPECT_EQ(negotiate_version(ours, plain_hello(6)), kOf13);  // they are newer: our highest
  EXPECT_EQ(negotiate_version(ours, plain_hello(3)), 0);      // 1.2: we do not speak it
  EXPECT_EQ(negotiate_version(version_bitmap({kOf13}), plain_hello(kOf10)), 0);
}

TEST(Of13Negotiation, HelloWireFormats) {
  Message h10 = make_hello(kOf10, version_bitmap({kOf10}));
  EXPECT_TRUE(h10.as<Hello>().elements.empty());
  auto wire = encode_message(make_hello(kOf13, version_bitmap({kOf10, kOf13}), 3));
  ASSERT_TRUE(wire.ok());
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(negotiate_version(version_bitmap({kOf13}), *back), kOf13);
}

TEST(Of13ErrorReply, Of13RequestGetsOf13ErrorWithFirst64Bytes) {
  Bytes req(100, 0xab);
  req[0] = kOf13;
  req[1] = 14;
  store_be16(&req[2], 100);
  store_be32(&req[4], 0xcafe);
  Message m = make_error_reply(OfError::make(BadMatchCode::kBadPrereq, "x"), req);
  EXPECT_EQ(m.version, kOf13);
  EXPECT_EQ(m.xid, 0xcafeu);
  const auto& e = m.as<ErrorMsg>();
  EXPECT_EQ(e.type, 4);
  EXPECT_EQ(e.code, 9);
  EXPECT_EQ(e.data, Bytes(req.begin(), req.begin() + 64));
  auto wire = encode_message(m);
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ(wire->size(), 8u + 4 + 64);
}

TEST(Of13ErrorReply, Of10RequestGetsOf10Numbering) {
  Bytes req = {kOf10, 14, 0, 8, 0, 0, 0, 9};
  Message m = make_error_reply(OfError::make(BadRequestCode::kBadLen, "short"), req);
  EXPECT_EQ(m.version, kOf10);
  EXPECT_EQ(m.xid, 9u);
  uint16_t t = 0, c = 0;
  error_to_of10(ErrorType::kBadRequest, static_cast<uint16_t>(BadRequestCode::kBadLen), t, c);
  EXPECT_EQ(m.as<ErrorMsg>().type, t);
  EXPECT_EQ(m.as<ErrorMsg>().code, c);
  EXPECT_EQ(m.as<ErrorMsg>().data, req);
}

TEST(Of13Names, TypesAndCodesHaveSpecNames) {
  EXPECT_EQ(to_string(MsgType::kFlowMod), "OFPT_FLOW_MOD");
  EXPECT_EQ(to_string(MsgType::kMeterMod), "OFPT_METER_MOD");
  EXPECT_EQ(to_string(ActionType::kSetField), "OFPAT_SET_FIELD");
  EXPECT_EQ(to_string(InstructionType::kGotoTable), "OFPIT_GOTO_TABLE");
  EXPECT_EQ(to_string(ErrorType::kBadMatch), "OFPET_BAD_MATCH");
  EXPECT_EQ(error_code_name(ErrorType::kBadRequest, 6), "OFPBRC_BAD_LEN");
  EXPECT_EQ(error_code_name(ErrorType::kBadMatch, 9), "OFPBMC_BAD_PREREQ");
  EXPECT_EQ(error_code_name(ErrorType::kBadAction, 4), "OFPBAC_BAD_OUT_PORT");
  EXPECT_EQ(error_code_name(ErrorType::kTableFeaturesFailed, 5), "OFPTFFC_EPERM");
  EXPECT_EQ(error_code_name(ErrorType::kBadRequest, 99), "OFPET_BAD_REQUEST(99)");
  OfError e = OfError::make(BadMatchCode::kBadPrereq, "tcp_dst needs ip_proto=6", 24);
  EXPECT_EQ(e.to_string(), "OFPBMC_BAD_PREREQ at offset 24: tcp_dst needs ip_proto=6");
  EXPECT_EQ(multipart_type(MultipartRequestBody(PortDescRequest{})), MultipartType::kPortDesc);
  EXPECT_EQ(multipart_type(MultipartReplyBody(ExperimenterMultipart{})), MultipartType::kExperimenter);
}

}  // namespace
}  // namespace flowlab::of

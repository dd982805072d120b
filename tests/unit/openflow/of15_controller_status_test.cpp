// OpenFlow 1.5 controller status on the wire: OFPT_CONTROLLER_STATUS (35) and
// OFPMP_CONTROLLER_STATUS (18). os-ken's bytes (osken_of15_vectors.py: the
// request serialised by os-ken, the status and the reply packed with its
// layouts and parsed back by it) decode into the model with the fields they
// were built with; the model encodes to the same bytes; other versions refuse
// them; bad lengths fail with OFPBRC_BAD_LEN.
#include <gtest/gtest.h>

#include <array>

#include "openflow/codec.h"
#include "openflow/print/print.h"
#include "osken_vectors.h"

namespace flowlab::of {
namespace {

const std::map<std::string, osken_vectors::Vector>& vectors() {
  static const auto v = osken_vectors::load("osken_of15_vectors.py");
  return v;
}

#define NEED_OSKEN()                                                        \
  if (vectors().empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

ControllerStatusEntry slave_entry(ControllerStatusReason reason, ChannelStatus channel) {
  ControllerStatusEntry e;
  e.short_id = 2;
  e.role = ControllerRole::kSlave;
  e.reason = reason;
  e.channel_status = channel;
  e.uri = "tcp:127.0.0.1:6653";
  return e;
}

TEST(Of15ControllerStatus, OskenBytesDecodeAndEncodeBack) {
  NEED_OSKEN();
  const Bytes& async = vectors().at("controller_status").wire;
  auto m = decode_message(async);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  EXPECT_EQ(m->type(), MsgType::kControllerStatus);
  ASSERT_TRUE(m->is<ControllerStatus>());
  EXPECT_EQ(m->as<ControllerStatus>().status,
            slave_entry(ControllerStatusReason::kChannelStatus, ChannelStatus::kDown));
  auto again = encode_message(*m);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, async);

  auto reply = decode_message(vectors().at("controller_status_reply").wire);
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  ASSERT_TRUE(reply->is<MultipartReply>());
  const auto& body = std::get<ControllerStatusReply>(reply->as<MultipartReply>().body);
  ASSERT_EQ(body.controllers.size(), 1u);
  EXPECT_EQ(body.controllers[0], slave_entry(ControllerStatusReason::kRequest, ChannelStatus::kUp));
  EXPECT_EQ(multipart_type(reply->as<MultipartReply>().body), MultipartType::kControllerStatus);

  auto request = decode_message(vectors().at("controller_status_request").wire);
  ASSERT_TRUE(request.ok()) << request.error().to_string();
  ASSERT_TRUE(request->is<MultipartRequest>());
  EXPECT_TRUE(std::holds_alternative<ControllerStatusRequest>(request->as<MultipartRequest>().body));
}

TEST(Of15ControllerStatus, ModelRoundTripsWithSeveralEntriesAndProperties) {
  ControllerStatusReply r;
  r.controllers.push_back(slave_entry(ControllerStatusReason::kRequest, ChannelStatus::kUp));
  ControllerStatusEntry other;
  other.short_id = 7;
  other.role = ControllerRole::kMaster;
  other.other_properties = {0xff, 0xff, 0, 12, 0, 0, 0x23, 0x20,
                            0,    0,    0, 1,  0, 0, 0,    0};  // experimenter, padded
  r.controllers.push_back(other);
  r.controllers.push_back(ControllerStatusEntry{});  // no property at all
  const Message m = make_message(kOf15, 9, MultipartReply{0, r});
  auto wire = encode_message(m);
  ASSERT_TRUE(wire.ok()) << wire.error().to_string();
  EXPECT_EQ(wire->size(), 16u + (16 + 24) + (16 + 16) + 16);
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
  const std::string text = format_message(*back);
  EXPECT_NE(text.find("OFPST_CONTROLLER_STATUS reply"), std::string::npos) << text;
  EXPECT_NE(text.find("short_id=2 role=secondary reason=request channel_status=up uri=tcp:127.0.0.1:6653"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("short_id=7 role=primary"), std::string::npos) << text;
}

TEST(Of15ControllerStatus, OtherVersionsRefuseIt) {
  for (uint8_t v : {kOf10, kOf13, kOf14}) {
    EXPECT_FALSE(encode_message(make_message(v, 1, ControllerStatus{})).ok()) << int(v);
    EXPECT_FALSE(encode_message(make_message(v, 1, MultipartRequest{0, ControllerStatusRequest{}})).ok())
        << int(v);
  }
  // At 1.4 the same bytes are an unknown message type / multipart.
  Bytes status14 = {kOf14, 35, 0, 24, 0, 0, 0, 1, 0, 16, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  auto m = decode_message(status14);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, uint16_t(BadRequestCode::kBadType));
}

TEST(Of15ControllerStatus, BadLengthsAreBadLen) {
  NEED_OSKEN();
  auto expect_bad_len = [](Bytes wire, const char* what) {
    store_be16(&wire[2], uint16_t(wire.size()));
    auto m = decode_message(wire);
    ASSERT_FALSE(m.ok()) << what;
    EXPECT_EQ(m.error().type, ErrorType::kBadRequest) << what;
    EXPECT_EQ(m.error().code, uint16_t(BadRequestCode::kBadLen)) << what << ": " << m.error().to_string();
  };
  expect_bad_len(Bytes{kOf15, 35, 0, 8, 0, 0, 0, 1}, "status without an entry");
  Bytes request = vectors().at("controller_status_request").wire;
  request.insert(request.end(), 8, 0);
  expect_bad_len(request, "request with a body");
  Bytes entry_long = vectors().at("controller_status").wire;
  store_be16(&entry_long[8], 0x60);  // entry length past the message
  expect_bad_len(entry_long, "entry length");
  Bytes prop = vectors().at("controller_status").wire;
  store_be16(&prop[8 + 16 + 2], 2);  // property length under its header
  expect_bad_len(prop, "property length");
  Bytes trailing = vectors().at("controller_status").wire;
  trailing.insert(trailing.end(), 8, 0);
  expect_bad_len(trailing, "bytes after the entry");
}

// Set-async and get-async reply with the controller status properties, hand
// encoded from the 1.5.1 spec's layout (ofp_async_config_prop_reasons: type,
// length 8, mask; OFPACPT_CONT_STATUS_SLAVE 14, _MASTER 15): os-ken 2.x has
// no class for these two properties (ofproto_v1_5_parser registers none for
// types 14/15), so there is no os-ken vector to compare with.
TEST(Of15ControllerStatus, SetAsyncControllerStatusProperties) {
  const Bytes set_async = {
      kOf15, 28, 0, 32, 0, 0, 0, 9,     // header: OFPT_SET_ASYNC, 32 bytes
      0,     1,  0, 8,  0, 0, 0, 0x07,  // OFPACPT_PACKET_IN_MASTER: 0x7
      0,     14, 0, 8,  0, 0, 0, 0x04,  // OFPACPT_CONT_STATUS_SLAVE: OFPCSR_ROLE
      0,     15, 0, 8,  0, 0, 0, 0x7f,  // OFPACPT_CONT_STATUS_MASTER: every reason
  };
  auto m = decode_message(set_async);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_TRUE(m->is<SetAsync>());
  const SetAsync& sa = m->as<SetAsync>();
  EXPECT_EQ(sa.present, uint16_t(1u << 1 | 1u << 14 | 1u << 15));
  EXPECT_EQ(sa.controller_status_mask, (std::array<uint32_t, 2>{0x7f, 0x04}));  // [0] master, [1] slave
  EXPECT_EQ(sa.packet_in_mask[0], 0x7u);
  auto again = encode_message(*m);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, set_async);

  // A get-async reply at 1.5 lists 1.4's twelve properties, then 14 and 15.
  GetAsyncReply g;
  g.packet_in_mask = {0x7, 0};
  g.controller_status_mask = {0x7f, 0x06};
  g.present = 0xcfff;
  auto reply = encode_message(Message{kOf15, 3, g});
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  ASSERT_EQ(reply->size(), 8u + 14 * 8);
  const Bytes tail(reply->end() - 16, reply->end());
  EXPECT_EQ(tail, (Bytes{0, 14, 0, 8, 0, 0, 0, 0x06, 0, 15, 0, 8, 0, 0, 0, 0x7f}));
  auto back = decode_message(*reply);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(static_cast<const AsyncConfig&>(back->as<GetAsyncReply>()), static_cast<const AsyncConfig&>(g));
  // At 1.4 the same reply has only 1.4's twelve properties.
  auto at14 = encode_message(Message{kOf14, 3, g});
  ASSERT_TRUE(at14.ok());
  EXPECT_EQ(at14->size(), 8u + 12 * 8);

  // 1.4 has neither property: OFPET_BAD_PROPERTY / OFPBPC_BAD_TYPE; at 1.5
  // the flow stats masks (12, 13) are not supported either.
  Bytes of14 = set_async;
  of14[0] = kOf14;
  auto e14 = decode_message(of14);
  ASSERT_FALSE(e14.ok());
  EXPECT_EQ(e14.error().type, ErrorType::kBadProperty);
  EXPECT_EQ(e14.error().code, 0);
  Bytes flow_stats = set_async;
  flow_stats[17] = 12;
  auto e12 = decode_message(flow_stats);
  ASSERT_FALSE(e12.ok());
  EXPECT_EQ(e12.error().type, ErrorType::kBadProperty);
  // A controller status property of the wrong length is refused, not skipped.
  Bytes short_prop = set_async;
  short_prop[19] = 12;
  EXPECT_FALSE(decode_message(short_prop).ok());
}

}  // namespace
}  // namespace flowlab::of

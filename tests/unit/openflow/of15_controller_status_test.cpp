// OpenFlow 1.5 controller status on the wire: OFPT_CONTROLLER_STATUS (35) and
// OFPMP_CONTROLLER_STATUS (18). os-ken's bytes (osken_of15_vectors.py: the
// request serialised by os-ken, the status and the reply packed with its
// layouts and parsed back by it) decode into the model with the fields they
// were built with; the model encodes to the same bytes; other versions refuse
// them; bad lengths fail with OFPBRC_BAD_LEN.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace flowlab::of

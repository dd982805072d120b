// OpenFlow 1.4 and 1.5 flow monitoring on the wire: os-ken's requests
// (OFPFlowMonitorRequest) and replies (flow updates packed with os-ken's
// layouts and parsed back by its OFPFlowMonitorReply;
// osken_monitor_vectors.py) decode into the model with the fields os-ken
// reports and re-encode to the same bytes at both versions; malformed updates
// fail with the spec's errors; 1.3 has no flow monitoring; the printer writes
// ovs-ofctl's lines.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "openflow/codec.h"
#include "openflow/print/print.h"
#include "openflow/text/flow_text.h"
#include "osken_vectors.h"

namespace flowlab::of {
namespace {

using osken_vectors::Vector;

const std::map<std::string, Vector>& vectors(uint8_t version) {
  static const auto v14 = osken_vectors::load("osken_monitor_vectors.py", "14");
  static const auto v15 = osken_vectors::load("osken_monitor_vectors.py", "15");
  return version == kOf14 ? v14 : v15;
}

#define NEED_OSKEN()                                                             \
  if (vectors(kOf14).empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

Bytes sized(Bytes wire) {
  store_be16(&wire[2], uint16_t(wire.size()));
  return wire;
}

const FlowMonitorRequest& request_of(const Message& m) {
  return std::get<FlowMonitorRequest>(m.as<MultipartRequest>().body);
}
const FlowMonitorReply& reply_of(const Message& m) {
  return std::get<FlowMonitorReply>(m.as<MultipartReply>().body);
}

class FlowMonitorCodec : public ::testing::TestWithParam<uint8_t> {
 protected:
  const Vector& vec(const std::string& name) { return vectors(GetParam()).at(name); }
  Message decoded(const std::string& name) {
    auto m = decode_message(vec(name).wire);
    EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().to_string());
    return m.ok() ? *m : Message{};
  }
};

TEST_P(FlowMonitorCodec, EveryOskenVectorRoundTrips) {
  NEED_OSKEN();
  EXPECT_EQ(vectors(GetParam()).size(), 6u);
  for (const auto& [name, v] : vectors(GetParam())) {
    auto m = decode_message(v.wire);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->version, GetParam()) << name;
    EXPECT_EQ(m->xid, 0x1234u) << name;
    auto again = encode_message(*m);
    ASSERT_TRUE(again.ok()) << name << ": " << again.error().to_string();
    EXPECT_EQ(*again, v.wire) << name;
  }
}

TEST_P(FlowMonitorCodec, RequestsHaveOskensFields) {
  NEED_OSKEN();
  for (const char* name : {"monitor_request_all", "monitor_request_filtered", "monitor_request_delete"}) {
    const auto& want = vec(name).fields;
    const Message m = decoded(name);
    ASSERT_TRUE(m.is<MultipartRequest>()) << name;
    EXPECT_EQ(uint16_t(multipart_type(m.as<MultipartRequest>().body)), 16) << name;
    const FlowMonitorRequest& r = request_of(m);
    EXPECT_EQ(r.monitor_id, want["monitor_id"].get<uint32_t>()) << name;
    EXPECT_EQ(r.out_port, want["out_port"].get<uint32_t>()) << name;
    EXPECT_EQ(r.out_group, want["out_group"].get<uint32_t>()) << name;
    EXPECT_EQ(r.flags, want["monitor_flags"].get<uint16_t>()) << name;
    EXPECT_EQ(r.table_id, want["table_id"].get<uint8_t>()) << name;
    EXPECT_EQ(uint8_t(r.command), want["command"].get<uint8_t>()) << name;
    EXPECT_EQ(r.match.fields.size(), want["n_match"].get<size_t>()) << name;
  }
  EXPECT_EQ(request_of(decoded("monitor_request_all")).flags, flow_monitor::kAllFlags);
}

TEST_P(FlowMonitorCodec, FullUpdateHasOskensFields) {
  NEED_OSKEN();
  const auto& want = vec("monitor_reply_added").fields;
  const Message m = decoded("monitor_reply_added");
  const FlowMonitorReply& r = reply_of(m);
  ASSERT_EQ(r.updates.size(), 1u);
  const FlowUpdate& u = r.updates[0];
  EXPECT_EQ(u.event, FlowUpdateEvent::kAdded);
  EXPECT_EQ(u.table_id, want["table_id"].get<uint8_t>());
  EXPECT_EQ(u.idle_timeout, want["idle_timeout"].get<uint16_t>());
  EXPECT_EQ(u.hard_timeout, want["hard_timeout"].get<uint16_t>());
  EXPECT_EQ(u.priority, want["priority"].get<uint16_t>());
  EXPECT_EQ(u.cookie, want["cookie"].get<uint64_t>());
  EXPECT_EQ(u.match.fields.size(), want["n_match"].get<size_t>());
  // 1.5's meter action first in apply-actions is the model's meter instruction, as in a flow-mod.
  ASSERT_EQ(u.instructions.size(), want["n_instructions"].get<size_t>());
  EXPECT_EQ(u.instructions[0], Instruction::meter(want["meter"].get<uint32_t>()));
  EXPECT_EQ(u.instructions[1], Instruction::apply({Action::output(2, 0xffe5)}));
  EXPECT_EQ(u.instructions[2], Instruction::goto_table(want["goto"].get<uint8_t>()));
}

TEST_P(FlowMonitorCodec, EveryEventDecodes) {
  NEED_OSKEN();
  const auto& want = vec("monitor_reply_events").fields;
  const Message m = decoded("monitor_reply_events");
  const FlowMonitorReply& r = reply_of(m);
  ASSERT_EQ(r.updates.size(), want["events"].size());
  for (size_t i = 0; i < r.updates.size(); ++i)
    EXPECT_EQ(uint16_t(r.updates[i].event), want["events"][i].get<uint16_t>()) << i;
  EXPECT_EQ(r.updates[1].reason, want["reason"].get<uint8_t>());
  EXPECT_EQ(r.updates[3].xid, want["abbrev_xid"].get<uint32_t>());
  EXPECT_EQ(r.updates[2].cookie, ~uint64_t(0));
  EXPECT_TRUE(reply_of(decoded("monitor_reply_empty")).updates.empty());
}

// Every cut of a vector fails cleanly, or (a reply cut between updates) decodes
// to what re-encodes to the cut bytes.
TEST_P(FlowMonitorCodec, EveryTruncationFailsCleanly) {
  NEED_OSKEN();
  for (const auto& [name, v] : vectors(GetParam())) {
    for (size_t cut = 0; cut < v.wire.size(); ++cut) {
      Bytes w(v.wire.begin(), v.wire.begin() + cut);
      if (w.size() >= 4) w = sized(w);
      auto m = decode_message(w);
      if (!m.ok()) continue;
      auto again = encode_message(*m);
      ASSERT_TRUE(again.ok()) << name << " cut at " << cut;
      EXPECT_EQ(*again, w) << name << " cut at " << cut;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, FlowMonitorCodec, ::testing::Values(kOf14, kOf15),
                         [](const auto& info) { return info.param == kOf14 ? "Of14" : "Of15"; });

// A reply with one update: `update` after the 16-byte multipart header.
Bytes reply_with(uint8_t version, Bytes update) {
  Bytes w = {version, 19, 0, 0, 0, 0, 0, 1, 0, 16, 0, 0, 0, 0, 0, 0};
  w.insert(w.end(), update.begin(), update.end());
  return sized(std::move(w));
}

void expect_error(const Bytes& wire, ErrorType type, uint16_t code, const char* what) {
  auto m = decode_message(wire);
  ASSERT_FALSE(m.ok()) << what;
  EXPECT_EQ(m.error().type, type) << what << ": " << m.error().to_string();
  EXPECT_EQ(m.error().code, code) << what << ": " << m.error().to_string();
}

TEST(FlowMonitorWire, MalformedUpdatesAreRefusedWithTheirErrors) {
  for (uint8_t v : {kOf14, kOf15}) {
    const auto bad_len = uint16_t(BadRequestCode::kBadLen);
    expect_error(reply_with(v, {0, 12, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0}), ErrorType::kBadRequest, bad_len,
                 "length not a multiple of 8");
    expect_error(reply_with(v, {0, 8, 0, 7, 0, 0, 0, 0}), ErrorType::kBadRequest,
                 uint16_t(BadRequestCode::kBadMultipart), "event 7");
    expect_error(reply_with(v, {0, 16, 0, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0}), ErrorType::kBadRequest,
                 bad_len, "abbrev of 16 bytes");
    expect_error(reply_with(v, {0, 8, 0, 1, 0, 0, 0, 0}), ErrorType::kBadRequest, bad_len,
                 "full update of 8 bytes");
    expect_error(reply_with(v, {0, 16, 0, 4, 0, 0, 0, 1}), ErrorType::kBadRequest, bad_len,
                 "length past the message");
    // A full update whose match claims more than the update holds.
    Bytes full(24, 0);
    full[1] = 32;
    full[3] = 1;
    full.insert(full.end(), {0, 1, 0, 40, 0, 0, 0, 0});
    expect_error(reply_with(v, full), ErrorType::kBadMatch, uint16_t(BadMatchCode::kBadLen),
                 "match too long");
  }
  // A request followed by a second one: 1.4 carries one per message.
  Bytes rq = {kOf14, 18,   0,    0,    0,    0,    0,    1,    0, 16,   0,    0, 0, 0, 0, 0, 0, 0, 0, 1,
              0xff,  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0x1f, 0xff, 0, 0, 1, 0, 4, 0, 0, 0, 0};
  ASSERT_TRUE(decode_message(sized(rq)).ok());
  rq.insert(rq.end(), 8, 0);
  expect_error(sized(rq), ErrorType::kBadRequest, uint16_t(BadRequestCode::kBadLen), "bytes after the match");
}

TEST(FlowMonitorWire, OpenFlow13HasNoFlowMonitoring) {
  FlowMonitorRequest rq;
  rq.flags = flow_monitor::kInitial;
  auto e = encode_message(make_message(kOf13, 1, MultipartRequest{0, rq}));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, uint16_t(BadRequestCode::kBadMultipart));
  auto r = encode_message(make_message(kOf13, 1, MultipartReply{0, FlowMonitorReply{}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, uint16_t(BadRequestCode::kBadMultipart));
  auto w14 = encode_message(make_message(kOf14, 1, MultipartRequest{0, rq}));
  ASSERT_TRUE(w14.ok());
  Bytes w13 = *w14;
  w13[0] = kOf13;
  expect_error(w13, ErrorType::kBadRequest, uint16_t(BadRequestCode::kBadMultipart), "1.3 multipart 16");
}

TEST(FlowMonitorPrint, UpdatesPrintAsOvsOfctlMonitorDoes) {
  FlowMonitorReply r;
  FlowUpdate added;
  added.event = FlowUpdateEvent::kAdded;
  added.table_id = 0;
  added.idle_timeout = 30;
  added.hard_timeout = 60;
  added.priority = 7;
  added.cookie = 0x12;
  auto fm = parse_flow_mod("ip,nw_dst=10.0.0.1,actions=output:1");
  ASSERT_TRUE(fm.ok());
  added.match = fm->match;
  added.instructions = fm->instructions;
  FlowUpdate removed = added;
  removed.event = FlowUpdateEvent::kRemoved;
  removed.reason = uint8_t(FlowRemovedReason::kDelete);
  removed.instructions.clear();
  FlowUpdate initial;
  initial.event = FlowUpdateEvent::kInitial;
  auto fm2 = parse_flow_mod("in_port=1,actions=output:2");
  ASSERT_TRUE(fm2.ok());
  initial.match = fm2->match;
  initial.instructions = fm2->instructions;
  FlowUpdate abbrev;
  abbrev.event = FlowUpdateEvent::kAbbrev;
  abbrev.xid = 0x2a;
  r.updates = {initial, added, removed, abbrev};
  // The lines ovs-ofctl 3.1 prints for the same updates (from Open vSwitch's userspace datapath).
  EXPECT_EQ(format_message(make_message(kOf14, 0, MultipartReply{0, r})),
            "OFPST_FLOW_MONITOR reply (OF1.4) (xid=0x0):\n"
            " event=INITIAL table=0 cookie=0 in_port=1 actions=output:2\n"
            " event=ADDED table=0 idle_timeout=30 hard_timeout=60 cookie=0x12 ip,nw_dst=10.0.0.1 "
            "actions=output:1\n"
            " event=DELETED reason=delete table=0 idle_timeout=30 hard_timeout=60 cookie=0x12 "
            "ip,nw_dst=10.0.0.1\n"
            " event=ABBREV xid=0x2a\n");
}

}  // namespace
}  // namespace flowlab::of

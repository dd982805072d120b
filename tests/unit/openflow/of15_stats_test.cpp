// What OpenFlow 1.5 says beyond 1.4's wire, built from the model (no os-ken
// needed; of15_codec_test.cpp checks os-ken's bytes): OXS idle_time in flow
// desc, flow stats and flow-removed, sent only when the model has it;
// OFPMP_FLOW_STATS (17) requests and replies; bucket ids, insert/remove bucket
// and command_bucket_id.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

constexpr uint32_t kOxsIdleTime = 0x80020208;  // class 0x8002, field 1, length 8

bool has_word(const Bytes& b, uint32_t w) {
  for (size_t i = 0; i + 4 <= b.size(); ++i)
    if (load_be32(&b[i]) == w) return true;
  return false;
}

FlowStats flow(bool idle) {
  FlowStats f;
  f.table_id = 2;
  f.priority = 7;
  f.duration_sec = 9;
  f.duration_nsec = 10;
  f.packet_count = 11;
  f.byte_count = 12;
  f.match.add(OxmField::basic(OxmId::kInPort, 1));
  f.has_idle_time = idle;
  f.idle_sec = idle ? 3 : 0;
  f.idle_nsec = idle ? 4 : 0;
  return f;
}

Message round_trip(const Message& m, Bytes* wire_out = nullptr) {
  auto wire = encode_message(m);
  EXPECT_TRUE(wire.ok()) << wire.error().to_string();
  if (!wire.ok()) return {};
  if (wire_out) *wire_out = *wire;
  auto back = decode_message(*wire);
  EXPECT_TRUE(back.ok()) << back.error().to_string();
  return back.ok() ? *back : Message{};
}

TEST(Of15Stats, IdleTimeInFlowDescWhenTheModelHasIt) {
  FlowStatsReply r;
  r.stats = {flow(true), flow(false)};
  Bytes wire;
  const Message back = round_trip(make_message(kOf15, 1, MultipartReply{0, r}), &wire);
  EXPECT_EQ(load_be16(&wire[8]), uint16_t(MultipartType::kFlow));
  EXPECT_TRUE(has_word(wire, kOxsIdleTime));
  EXPECT_EQ(std::get<FlowStatsReply>(back.as<MultipartReply>().body), r);
  // 1.4 has no idle time: the same reply at 1.4 decodes without it
  const Message b14 = round_trip(make_message(kOf14, 1, MultipartReply{0, r}));
  EXPECT_FALSE(std::get<FlowStatsReply>(b14.as<MultipartReply>().body).stats[0].has_idle_time);
}

TEST(Of15Stats, IdleTimeInFlowRemoved) {
  FlowRemoved fr;
  fr.priority = 3;
  fr.match.add(OxmField::basic(OxmId::kInPort, 2));
  fr.has_idle_time = true;
  fr.idle_sec = 60;
  fr.idle_nsec = 5;
  Bytes wire;
  const Message back = round_trip(make_message(kOf15, 1, fr), &wire);
  EXPECT_TRUE(has_word(wire, kOxsIdleTime));
  EXPECT_EQ(back.as<FlowRemoved>(), fr);
}

TEST(Of15Stats, FlowStatsMultipart17) {
  FlowStatsRequest q;
  q.stats_only = true;
  q.match.add(OxmField::basic(OxmId::kInPort, 1));
  Bytes wire;
  const Message qb = round_trip(make_message(kOf15, 1, MultipartRequest{0, q}), &wire);
  EXPECT_EQ(load_be16(&wire[8]), 17);
  EXPECT_EQ(std::get<FlowStatsRequest>(qb.as<MultipartRequest>().body), q);
  FlowStatsReply r;
  r.stats_only = true;
  r.stats = {flow(true), flow(false)};
  const Message rb = round_trip(make_message(kOf15, 1, MultipartReply{0, r}), &wire);
  EXPECT_EQ(load_be16(&wire[8]), 17);
  EXPECT_EQ(std::get<FlowStatsReply>(rb.as<MultipartReply>().body), r);
  // a flow stats entry has no cookie, timeouts, flags or instructions: they are not sent
  FlowStatsReply more = r;
  more.stats[0].cookie = 5;
  more.stats[0].instructions.push_back(Instruction::apply({Action::output(1)}));
  const Message mb = round_trip(make_message(kOf15, 1, MultipartReply{0, more}));
  EXPECT_EQ(std::get<FlowStatsReply>(mb.as<MultipartReply>().body), r);
  // at 1.4 the same request is an ordinary flow stats request
  const Message q14 = round_trip(make_message(kOf14, 1, MultipartRequest{0, q}), &wire);
  EXPECT_EQ(load_be16(&wire[8]), uint16_t(MultipartType::kFlow));
  EXPECT_FALSE(std::get<FlowStatsRequest>(q14.as<MultipartRequest>().body).stats_only);
}

TEST(Of15Groups, InsertRemoveBucketAndBucketIds) {
  GroupMod gm;
  gm.command = GroupModCommand::kInsertBucket;
  gm.group_id = 4;
  gm.command_bucket_id = bucket::kLast;
  Bucket b;
  b.bucket_id = 7;
  b.actions = {Action::output(2)};
  gm.buckets = {b};
  Bytes wire;
  const Message back = round_trip(make_message(kOf15, 1, gm), &wire);
  EXPECT_EQ(load_be16(&wire[8]), 3);             // OFPGC_INSERT_BUCKET
  EXPECT_EQ(load_be32(&wire[20]), 0xfffffffeu);  // OFPG_BUCKET_LAST
  EXPECT_EQ(load_be32(&wire[28]), 7u);           // the bucket's id
  EXPECT_EQ(back.as<GroupMod>(), gm);
  GroupMod rm;
  rm.command = GroupModCommand::kRemoveBucket;
  rm.group_id = 4;
  rm.command_bucket_id = 3;
  const Message rb = round_trip(make_message(kOf15, 1, rm), &wire);
  EXPECT_EQ(load_be16(&wire[8]), 5);  // OFPGC_REMOVE_BUCKET
  EXPECT_EQ(rb.as<GroupMod>(), rm);
  // 1.3 and 1.4 have neither: refused both ways
  auto w14 = encode_message(make_message(kOf14, 1, gm));
  ASSERT_FALSE(w14.ok());
  EXPECT_EQ(w14.error().code, uint16_t(GroupModFailedCode::kBadCommand));
  auto add14 = encode_message(make_message(kOf14, 1, GroupMod{}));
  ASSERT_TRUE(add14.ok());
  store_be16(&(*add14)[8], 3);
  auto d14 = decode_message(*add14);
  ASSERT_FALSE(d14.ok());
  EXPECT_EQ(d14.error().type, ErrorType::kGroupModFailed);
  EXPECT_EQ(d14.error().code, uint16_t(GroupModFailedCode::kBadCommand));
  // group desc reports the ids
  GroupDescReply desc;
  GroupDesc g;
  g.group_id = 4;
  g.buckets = {b, b};
  g.buckets[1].bucket_id = 9;
  desc.groups = {g};
  const Message db = round_trip(make_message(kOf15, 1, MultipartReply{0, desc}));
  EXPECT_EQ(std::get<GroupDescReply>(db.as<MultipartReply>().body), desc);
}

}  // namespace
}  // namespace flowlab::of

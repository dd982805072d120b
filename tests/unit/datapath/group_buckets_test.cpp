// OpenFlow 1.5 bucket ids and insert/remove bucket: ids are kept (or numbered
// by place) and reported in the group description; insert before the first,
// after the last or before a bucket id; remove the first, the last, one id or
// all; the errors the spec names (UNKNOWN_GROUP, UNKNOWN_BUCKET,
// BUCKET_EXISTS); and the packets follow the new bucket list.
#include <gtest/gtest.h>

#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::GroupModCommand;

of::Bucket out(uint32_t port, std::optional<uint32_t> id = std::nullopt) {
  of::Bucket b;
  b.bucket_id = id;
  b.actions = {Action::output(port)};
  return b;
}

of::GroupMod mod(GroupModCommand cmd, uint32_t where, std::vector<of::Bucket> buckets = {}) {
  of::GroupMod gm;
  gm.command = cmd;
  gm.group_id = 1;
  gm.type = of::GroupType::kAll;
  gm.command_bucket_id = where;
  gm.buckets = std::move(buckets);
  return gm;
}

// The group's buckets as (id, output port) pairs.
std::vector<std::pair<uint32_t, uint32_t>> buckets_of(const Rig& r) {
  std::vector<std::pair<uint32_t, uint32_t>> v;
  for (const of::GroupDesc& g : r.dp.group_desc().groups)
    for (const of::Bucket& b : g.buckets) v.emplace_back(b.bucket_id.value_or(0xdead), b.actions[0].port);
  return v;
}

std::vector<std::pair<uint32_t, uint32_t>> ids(std::initializer_list<std::pair<uint32_t, uint32_t>> l) {
  return l;
}

int apply(Rig& r, const of::GroupMod& gm) {
  auto res = r.dp.group_mod(gm, r.now);
  return res.ok() ? -1 : res.error().code;
}

TEST(GroupBuckets, IdsAreKeptOrNumberedByPlace) {
  Rig r;
  ASSERT_EQ(apply(r, mod(GroupModCommand::kAdd, of::bucket::kAll, {out(2), out(3)})), -1);
  EXPECT_EQ(buckets_of(r), ids({{0, 2}, {1, 3}}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kModify, of::bucket::kAll, {out(2, 7), out(3, 4)})), -1);
  EXPECT_EQ(buckets_of(r), ids({{7, 2}, {4, 3}}));
  EXPECT_EQ(apply(r, mod(GroupModCommand::kModify, of::bucket::kAll, {out(2, 7), out(3, 7)})),
            int(of::GroupModFailedCode::kBucketExists));
}

TEST(GroupBuckets, InsertFirstLastAndBeforeAnId) {
  Rig r;
  ASSERT_EQ(apply(r, mod(GroupModCommand::kAdd, of::bucket::kAll, {out(2, 10), out(3, 20)})), -1);
  ASSERT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, of::bucket::kFirst, {out(4, 5)})), -1);
  EXPECT_EQ(buckets_of(r), ids({{5, 4}, {10, 2}, {20, 3}}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, of::bucket::kLast, {out(5, 30)})), -1);
  EXPECT_EQ(buckets_of(r), ids({{5, 4}, {10, 2}, {20, 3}, {30, 5}}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, 20, {out(6, 15), out(7, 16)})), -1);
  EXPECT_EQ(buckets_of(r), ids({{5, 4}, {10, 2}, {15, 6}, {16, 7}, {20, 3}, {30, 5}}));
  // errors
  EXPECT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, 99, {out(6, 40)})),
            int(of::GroupModFailedCode::kUnknownBucket));
  EXPECT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, of::bucket::kLast, {out(6, 10)})),
            int(of::GroupModFailedCode::kBucketExists));
  EXPECT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, of::bucket::kAll, {out(6, 41)})),
            int(of::GroupModFailedCode::kBadCommand));
  of::GroupMod other = mod(GroupModCommand::kInsertBucket, of::bucket::kLast, {out(6, 42)});
  other.group_id = 9;
  EXPECT_EQ(apply(r, other), int(of::GroupModFailedCode::kUnknownGroup));
  EXPECT_EQ(buckets_of(r).size(), 6u);  // no failed edit changed the group
}

TEST(GroupBuckets, RemoveFirstLastAnIdAndAll) {
  Rig r;
  ASSERT_EQ(
      apply(r, mod(GroupModCommand::kAdd, of::bucket::kAll, {out(2, 1), out(3, 2), out(4, 3), out(5, 4)})),
      -1);
  ASSERT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, of::bucket::kFirst)), -1);
  EXPECT_EQ(buckets_of(r), ids({{2, 3}, {3, 4}, {4, 5}}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, of::bucket::kLast)), -1);
  EXPECT_EQ(buckets_of(r), ids({{2, 3}, {3, 4}}));
  EXPECT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, 9)), int(of::GroupModFailedCode::kUnknownBucket));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, 3)), -1);
  EXPECT_EQ(buckets_of(r), ids({{2, 3}}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, of::bucket::kAll)), -1);
  EXPECT_TRUE(buckets_of(r).empty());
  ASSERT_EQ(r.dp.group_desc().groups.size(), 1u);  // the group stays, empty
}

TEST(GroupBuckets, PacketsFollowTheEditedBuckets) {
  Rig r;
  ASSERT_EQ(apply(r, mod(GroupModCommand::kAdd, of::bucket::kAll, {out(2)})), -1);
  r.add(add_flow(0, 10, {}, {Action::group(1)}));
  r.send(tcp_frame(), 1);
  EXPECT_EQ(r.out.ports(), std::vector<uint32_t>({2}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kInsertBucket, of::bucket::kLast, {out(3)})), -1);
  r.out.sent.clear();
  r.send(tcp_frame(), 1);
  EXPECT_EQ(r.out.ports(), std::vector<uint32_t>({2, 3}));
  ASSERT_EQ(apply(r, mod(GroupModCommand::kRemoveBucket, 0)), -1);
  r.out.sent.clear();
  r.send(tcp_frame(), 1);
  EXPECT_EQ(r.out.ports(), std::vector<uint32_t>({3}));
}

}  // namespace
}  // namespace flowlab::dp

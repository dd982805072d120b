// Atomic commit of many flow-mods (a bundle, Datapath::commit_flow_mods): a
// failing flow-mod leaves the tables exactly as they were (flows, order,
// counters, forwarding), a successful commit is one published version, and a
// 100k-flow commit is installed whole. Flow-mods prepared as they arrive
// (prepare_flow_mod) commit to the same tables; what their preparation
// checked fails at its place, and what depends on the tables is checked at
// commit, not before.
#include <gtest/gtest.h>

#include "openflow/text/flow_text.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::FlowModCommand;

of::FlowMod host_flow(uint32_t i, uint32_t port = 2) {
  char ip[32];
  std::snprintf(ip, sizeof ip, "11.%u.%u.%u", (i >> 16) & 255, (i >> 8) & 255, i & 255);
  return add_flow(0, 20, match_ip_dst(ip), {Action::output(port)});
}

Datapath::FlowModSource source(const std::vector<of::FlowMod>& mods) {
  return [&mods](size_t i) -> Result<of::FlowMod, of::OfError> { return mods[i]; };
}

// (priority, match text, instructions) of every flow in dump order.
std::vector<std::string> dump(Rig& r) {
  auto s = r.dp.flow_stats(of::FlowStatsRequest{}, r.now);
  EXPECT_TRUE(s.ok());
  std::vector<std::string> out;
  for (auto f : s->stats) {
    f.duration_sec = f.duration_nsec = 0;
    out.push_back(of::format_flow_stats(f));
  }
  return out;
}

TEST(FlowCommit, FailingFlowModUndoesAddsModifiesAndDeletes) {
  Rig r;
  for (uint32_t i = 0; i < 5; ++i) r.add(host_flow(i));
  r.add(add_flow(0, 10, of::Match{}, {Action::output(3)}));
  r.send(udp_frame("10.0.0.1", "11.0.0.2"));  // counts on flow 2
  const auto before = dump(r);
  const uint64_t v = r.dp.version();

  std::vector<of::FlowMod> mods;
  mods.push_back(host_flow(100));     // add
  of::FlowMod mod = host_flow(2, 4);  // modify-strict flow 2 (keeps counters)
  mod.command = FlowModCommand::kModifyStrict;
  mods.push_back(mod);
  of::FlowMod del = host_flow(1);  // delete-strict flow 1 (in the middle)
  del.command = FlowModCommand::kDeleteStrict;
  mods.push_back(del);
  of::FlowMod del0 = host_flow(0);  // and the first one
  del0.command = FlowModCommand::kDeleteStrict;
  mods.push_back(del0);
  mods.push_back(host_flow(3, 5));  // re-add of flow 3 (a replace)
  mods.push_back(host_flow(101));
  mods.push_back(add_flow(0, 20, match_ip_dst("11.0.0.9"), {Action::group(77)}));  // unknown group: fails

  auto res = r.dp.commit_flow_mods(mods.size(), source(mods), r.now);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().index, 6u);
  EXPECT_EQ(res.error().error.type, of::ErrorType::kBadAction);
  EXPECT_EQ(dump(r), before);  // same flows, same order, same counters
  EXPECT_LE(r.dp.version(), v + 1);

  // Forwarding sees the old table: 11.0.0.2 still goes to 2 and counts there.
  r.out.sent.clear();
  r.send(udp_frame("10.0.0.1", "11.0.0.2"));
  ASSERT_EQ(r.out.sent.size(), 1u);
  EXPECT_EQ(r.out.sent[0].port, 2u);
  r.out.sent.clear();
  r.send(udp_frame("10.0.0.1", "11.0.0.100"));  // the undone add: falls to the priority-10 flow -> 3
  ASSERT_EQ(r.out.sent.size(), 1u);
  EXPECT_EQ(r.out.sent[0].port, 3u);
  auto after = dump(r);
  EXPECT_NE(after[2].find("n_packets=2,"), std::string::npos) << after[2];  // counters kept through the undo
}

TEST(FlowCommit, SuccessIsOneVersionWithAllChanges) {
  Rig r;
  for (uint32_t i = 0; i < 3; ++i) r.add(host_flow(i));
  const uint64_t v = r.dp.version();
  std::vector<of::FlowMod> mods;
  for (uint32_t i = 10; i < 20; ++i) mods.push_back(host_flow(i));
  of::FlowMod del = host_flow(1);
  del.command = FlowModCommand::kDeleteStrict;
  del.flags = 0;
  mods.push_back(del);
  auto res = r.dp.commit_flow_mods(mods.size(), source(mods), r.now);
  ASSERT_TRUE(res.ok()) << res.error().error.to_string();
  EXPECT_EQ(r.dp.version(), v + 1);
  EXPECT_EQ(r.dp.flow_count(), 12u);
  r.send(udp_frame("10.0.0.1", "11.0.0.15"));
  ASSERT_EQ(r.out.sent.size(), 1u);
  EXPECT_EQ(r.out.sent[0].port, 2u);
}

TEST(FlowCommit, SourceErrorAbortsAndNamesTheIndex) {
  Rig r;
  r.add(host_flow(0));
  auto at = [](size_t i) -> Result<of::FlowMod, of::OfError> {
    if (i == 2) return unexpected(of::OfError::make(of::BadRequestCode::kBadLen, "truncated"));
    return host_flow(uint32_t(50 + i));
  };
  auto res = r.dp.commit_flow_mods(4, at, r.now);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().index, 2u);
  EXPECT_EQ(r.dp.flow_count(), 1u);
}

TEST(FlowCommit, HundredThousandFlowsCommitWholeOrNotAtAll) {
  Rig r;
  constexpr uint32_t kN = 100'000;
  std::vector<of::FlowMod> mods;
  mods.reserve(kN + 1);
  for (uint32_t i = 0; i < kN; ++i) mods.push_back(host_flow(i));
  mods.push_back(add_flow(99, 1, {}, {}));  // no table 99: the last one fails
  auto bad = r.dp.commit_flow_mods(mods.size(), source(mods), r.now);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().index, kN);
  EXPECT_EQ(r.dp.flow_count(), 0u);
  mods.pop_back();
  auto good = r.dp.commit_flow_mods(mods.size(), source(mods), r.now);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(r.dp.flow_count(), size_t(kN));
  r.send(udp_frame("10.0.0.1", "11.1.134.159"));  // flow 99999
  ASSERT_EQ(r.out.sent.size(), 1u);
  EXPECT_EQ(r.out.sent[0].port, 2u);
}

std::vector<PreparedFlowMod> prepare_all(Rig& r, const std::vector<of::FlowMod>& mods) {
  std::vector<PreparedFlowMod> out;
  for (const of::FlowMod& fm : mods) out.push_back(r.dp.prepare_flow_mod(fm));
  return out;
}

TEST(FlowCommit, PreparedFlowModsCommitWhatTheSourceCommits) {
  std::vector<of::FlowMod> mods;
  for (uint32_t i = 0; i < 50; ++i) mods.push_back(host_flow(i, 2 + i % 3));
  of::FlowMod del = host_flow(7);
  del.command = FlowModCommand::kDeleteStrict;
  mods.push_back(del);
  mods.push_back(host_flow(3, 9));  // a re-add: replaces flow 3
  of::FlowMod overlap = host_flow(60);
  overlap.flags |= of::flow_mod_flags::kCheckOverlap;
  mods.push_back(overlap);
  Rig a, b;
  ASSERT_TRUE(a.dp.commit_flow_mods(mods.size(), source(mods), a.now).ok());
  auto prepared = prepare_all(b, mods);
  auto res = b.dp.commit_flow_mods(prepared, b.now);
  ASSERT_TRUE(res.ok()) << res.error().error.to_string();
  EXPECT_EQ(dump(a), dump(b));
  EXPECT_EQ(b.dp.flow_count(), 50u);
  b.send(udp_frame("10.0.0.1", "11.0.0.3"));  // the re-added flow 3 outputs to 9
  ASSERT_EQ(b.out.sent.size(), 1u);
  EXPECT_EQ(b.out.sent[0].port, 9u);
}

TEST(FlowCommit, APreparationErrorFailsTheCommitAtItsPlace) {
  Rig r;
  r.add(host_flow(0));
  std::vector<of::FlowMod> mods = {host_flow(1), host_flow(2), add_flow(99, 1, {}, {}), host_flow(3)};
  auto prepared = prepare_all(r, mods);
  EXPECT_TRUE(prepared[0].ok());
  ASSERT_FALSE(prepared[2].ok());  // no table 99: known before the commit
  EXPECT_EQ(prepared[2].error()->type, of::ErrorType::kFlowModFailed);
  auto res = r.dp.commit_flow_mods(prepared, r.now);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().index, 2u);
  EXPECT_EQ(r.dp.flow_count(), 1u);  // flows 1 and 2 were undone
}

TEST(FlowCommit, GroupsAreCheckedAtCommitNotAtPreparation) {
  Rig r;
  auto group = [&](of::GroupModCommand cmd) {
    of::GroupMod gm;
    gm.command = cmd;
    gm.group_id = 5;
    gm.type = of::GroupType::kIndirect;
    of::Bucket b;
    b.actions = {Action::output(4)};
    if (cmd != of::GroupModCommand::kDelete) gm.buckets = {b};
    auto res = r.dp.group_mod(gm, r.now);
    ASSERT_TRUE(res.ok()) << res.error().to_string();
  };
  const of::FlowMod uses_group = add_flow(0, 20, match_ip_dst("11.0.0.5"), {Action::group(5)});
  // Prepared before the group exists, committed after it is made: applied.
  auto early = prepare_all(r, {uses_group});
  ASSERT_TRUE(early[0].ok());
  group(of::GroupModCommand::kAdd);
  ASSERT_TRUE(r.dp.commit_flow_mods(early, r.now).ok());
  EXPECT_EQ(r.dp.flow_count(), 1u);
  // Prepared while it exists, committed after it is gone: refused.
  auto late = prepare_all(r, {add_flow(0, 20, match_ip_dst("11.0.0.6"), {Action::group(5)})});
  group(of::GroupModCommand::kDelete);  // also removes the flow that used it
  auto res = r.dp.commit_flow_mods(late, r.now);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.error().error.type, of::ErrorType::kBadAction);
  EXPECT_EQ(r.dp.flow_count(), 0u);
}

TEST(FlowCommit, APreparedFlowStartsItsTimeoutsAtTheCommit) {
  Rig r;
  of::FlowMod fm = host_flow(1);
  fm.idle_timeout = 10;
  auto prepared = prepare_all(r, {fm});
  r.now += 60'000'000'000;  // a minute between the add and its commit
  ASSERT_TRUE(r.dp.commit_flow_mods(prepared, r.now).ok());
  EXPECT_TRUE(r.dp.expire(r.now + 9'000'000'000).empty());
  EXPECT_EQ(r.dp.flow_count(), 1u);
  r.dp.expire(r.now + 11'000'000'000);
  EXPECT_EQ(r.dp.flow_count(), 0u);
}

}  // namespace
}  // namespace flowlab::dp

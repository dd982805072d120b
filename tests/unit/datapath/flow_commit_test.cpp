// Atomic commit of many flow-mods (a bundle, Datapath::commit_flow_mods): a
// failing flow-mod leaves the tables exactly as they were (flows, order,
// counters, forwarding), a successful commit is one published version, and a
// 100k-flow commit is installed whole.
#include <gtest/gtest.h>

#include "openflow/flow_text.h"
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

}  // namespace
}  // namespace flowlab::dp

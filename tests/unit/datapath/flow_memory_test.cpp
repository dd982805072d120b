// What a flow entry holds in memory: its match packed (PackedMatch) and
// unpacked as given, its instruction list shared with equal ones
// (InstructionPool), and flows added through a datapath holding one shared copy.
#include <gtest/gtest.h>

#include "datapath/instruction_pool.h"
#include "datapath/packed_match.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::Instruction;
using of::OxmField;
using of::OxmId;

TEST(FlowMemory, PackedMatchGivesBackFieldsInOrderWithMasks) {
  of::Match m;
  m.add(OxmField::basic(OxmId::kInPort, 7))
      .add(OxmField::basic(OxmId::kEthType, 0x0800))
      .add(OxmField::basic_masked(OxmId::kIpv4Dst, 0x0a000000, 0xff000000));
  const PackedMatch p = m;
  EXPECT_EQ(p.field_count(), 3u);
  EXPECT_LE(p.packed_size(), PackedMatch::kInline);  // held inline: no heap block
  const of::Match back = p.unpack();
  EXPECT_EQ(back, m);
  ASSERT_EQ(back.fields.size(), 3u);
  EXPECT_TRUE(back.fields[2].has_mask);
  EXPECT_EQ(back.fields[2].mask, (Bytes{0xff, 0, 0, 0}));
  EXPECT_EQ(back.fields[0].value, (Bytes{0, 0, 0, 7}));
}

TEST(FlowMemory, PackedMatchPastInlineAndExperimenterFields) {
  of::Match m;
  m.add(OxmField::basic(OxmId::kEthType, 0x86dd));
  m.add(OxmField::basic_bytes_masked(OxmId::kIpv6Src, Bytes(16, 0x20), Bytes(16, 0xff)));
  OxmField exp;
  exp.oxm_class = of::kOxmClassExperimenter;
  exp.field = 0;
  exp.value = {0x4f, 0x4e, 0x46, 0x00, 0x0a, 0x00, 0x01};
  m.add(exp);
  m.of10_wildcards = 0x3820ff;
  PackedMatch p = m;
  EXPECT_GT(p.packed_size(), PackedMatch::kInline);
  EXPECT_EQ(p.unpack(), m);
  EXPECT_EQ(p.unpack().of10_wildcards, 0x3820ffu);
  EXPECT_EQ(p.unpack().fields[2].oxm_class, of::kOxmClassExperimenter);

  // Copies and moves keep their own block; the source of a move is empty.
  PackedMatch copy = p;
  PackedMatch moved = std::move(p);
  EXPECT_EQ(copy.unpack(), m);
  EXPECT_EQ(moved.unpack(), m);
  EXPECT_TRUE(p.empty());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  copy = of::Match{};
  EXPECT_TRUE(copy.empty());
  EXPECT_EQ(moved.unpack(), m);
}

TEST(FlowMemory, PackedMatchCutsWhatItsSizesCannotHold) {
  // Never from a validated flow-mod (each field at most once); built by hand.
  of::Match m;
  for (uint64_t i = 0; i < 300; ++i) m.add(OxmField::basic(OxmId::kInPort, i));
  const PackedMatch p = m;
  EXPECT_EQ(p.field_count(), PackedMatch::kMaxFields);
  const of::Match back = p.unpack();
  ASSERT_EQ(back.fields.size(), PackedMatch::kMaxFields);
  EXPECT_EQ(back.fields.front(), m.fields.front());
  EXPECT_EQ(back.fields.back(), m.fields[PackedMatch::kMaxFields - 1]);
}

TEST(FlowMemory, PoolSharesEqualListsOnly) {
  InstructionPool pool;
  const of::InstructionList out2 = {Instruction::apply({Action::output(2)})};
  const of::InstructionList out3 = {Instruction::apply({Action::output(3)})};
  SharedInstructions a = pool.intern(out2);
  SharedInstructions b = pool.intern(of::InstructionList(out2));
  SharedInstructions c = pool.intern(out3);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), c.get());
  EXPECT_EQ(*a, out2);
  EXPECT_EQ(*c, out3);
  EXPECT_EQ(pool.intern(out2).get(), a.get());  // not only the last one handed out
  EXPECT_EQ(pool.size(), 2u);
}

TEST(FlowMemory, PoolDropsListsNoFlowHolds) {
  InstructionPool pool;
  SharedInstructions kept = pool.intern({Instruction::apply({Action::output(1)})});
  for (uint32_t p = 2; p < 200; ++p) pool.intern({Instruction::apply({Action::output(p)})});
  // Swept whenever it doubles: what is left is what is held, and the lists
  // interned since the last sweep.
  EXPECT_LT(pool.size(), 130u);
  EXPECT_EQ(pool.intern({Instruction::apply({Action::output(1)})}).get(), kept.get());
}

TEST(FlowMemory, FlowStatsGiveBackMatchAndInstructionsAsAdded) {
  Datapath dp;
  const char* hosts[] = {"10.0.0.1", "10.0.0.2", "10.0.0.3"};
  for (const char* h : hosts) {
    auto r = dp.flow_mod(add_flow(0, 20, match_ip_dst(h), {Action::output(2)}), 0);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
  }
  // A strict modify of one flow: a list of its own, the others keep theirs.
  of::FlowMod mod = add_flow(0, 20, match_ip_dst("10.0.0.2"), {Action::output(3)});
  mod.command = of::FlowModCommand::kModifyStrict;
  ASSERT_TRUE(dp.flow_mod(mod, 0).ok());

  auto stats = dp.flow_stats(of::FlowStatsRequest{}, 0);
  ASSERT_TRUE(stats.ok()) << stats.error().to_string();
  ASSERT_EQ(stats->stats.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(stats->stats[i].match, match_ip_dst(hosts[i]));
    const uint32_t port = i == 1 ? 3 : 2;
    EXPECT_EQ(stats->stats[i].instructions,
              (of::InstructionList{Instruction::apply({Action::output(port)})}));
  }
}

}  // namespace
}  // namespace flowlab::dp

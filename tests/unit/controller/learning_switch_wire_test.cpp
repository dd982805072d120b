// The learning switch's pre-encoded answers: built for every version it
// speaks (build() itself checks them against the codec with sample values and
// gives null on any difference), and a patched template decodes to the
// message the slow path would send.
#include "controller/apps/learning_switch_wire.h"

#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::controller {
namespace {

constexpr uint8_t kSrc[6] = {0x02, 0, 0, 0, 0, 0x0b}, kDst[6] = {0x02, 0, 0, 0, 0, 0x0a};

class WireTest : public ::testing::TestWithParam<uint8_t> {};

TEST_P(WireTest, BuiltAndPatchedTemplatesDecodeToTheSlowPathsMessages) {
  const uint8_t version = GetParam();
  auto w = LearningSwitch::Wire::build(version, 0, 60);
  ASSERT_NE(w, nullptr) << "no templates for version " << int(version);
  EXPECT_EQ(w->version, version);

  Bytes buf;
  ASSERT_TRUE(w->flow_mod(buf, 7, 2, kSrc, kDst, 1));
  auto fm = of::decode_message(buf);
  ASSERT_TRUE(fm.ok()) << fm.error().message;
  EXPECT_EQ(fm->version, version);
  EXPECT_EQ(fm->xid, 7u);
  auto want = of::encode_message(of::Message{version, 7, learned_flow(0, 2, kSrc, kDst, 1, 60)});
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(buf, *want);

  buf.clear();
  const Bytes frame(60, 0x5a);
  ASSERT_TRUE(w->packet_out(buf, 8, of::kNoBuffer, 2, of::port::kFlood, frame));
  auto po = of::decode_message(buf);
  ASSERT_TRUE(po.ok()) << po.error().message;
  ASSERT_TRUE(po->is<of::PacketOut>());
  const auto& out = po->as<of::PacketOut>();
  EXPECT_EQ(out.in_port, 2u);
  EXPECT_EQ(out.buffer_id, of::kNoBuffer);
  ASSERT_EQ(out.actions.size(), 1u);
  EXPECT_EQ(out.actions[0].port, of::port::kFlood);
  EXPECT_EQ(out.data, frame);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, WireTest,
                         ::testing::Values(of::kOf10, of::kOf13, of::kOf14, of::kOf15), [](const auto& info) {
                           switch (info.param) {
                             case of::kOf10:
                               return "Of10";
                             case of::kOf13:
                               return "Of13";
                             case of::kOf14:
                               return "Of14";
                             default:
                               return "Of15";
                           }
                         });

}  // namespace
}  // namespace flowlab::controller

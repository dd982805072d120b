#include <gtest/gtest.h>

#include "openflow/message.h"

namespace flowlab::of {
namespace {

TEST(Model, TypeFollowsVariantOrder) {
  EXPECT_EQ(make_message(kOf13, 1, Hello{}).type(), MsgType::kHello);
  EXPECT_EQ(make_message(kOf13, 1, FlowMod{}).type(), MsgType::kFlowMod);
  EXPECT_EQ(make_message(kOf13, 1, MeterMod{}).type(), MsgType::kMeterMod);
  EXPECT_EQ(make_message(kOf13, 1, BarrierReply{}).type(), MsgType::kBarrierReply);
}

}  // namespace
}  // namespace flowlab::of

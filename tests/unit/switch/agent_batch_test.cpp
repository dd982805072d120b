// The agent under a burst of flow-mods: the changes of one socket read are
// published as one datapath version, an echo in the middle of the burst and
// the barrier after it are answered, and every flow is installed. And under a
// burst of packet-outs: their frames sent in batches, before the barrier.
#include <fmt/format.h>

#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

of::FlowMod host_flow(uint32_t i) {
  of::FlowMod fm;
  fm.priority = 20;
  fm.match.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
  fm.match.add(of::OxmField::basic(of::OxmId::kIpv4Dst, 0x0b000000u | i));
  fm.instructions.push_back(of::Instruction::apply({of::Action::output(2)}));
  return fm;
}

TEST(AgentBatch, BurstIsBatchedAndEchoAndBarrierAreAnswered) {
  TestController ctl;
  SwitchFixture fx(options_with_controller(ctl.port()), 2);
  ASSERT_TRUE(ctl.wait_ready());
  const uint64_t v0 = fx.sw->datapath().version();
  constexpr uint32_t kFlows = 20000;
  std::vector<of::MessageBody> burst;
  for (uint32_t i = 0; i < kFlows / 2; ++i) burst.emplace_back(host_flow(i));
  burst.emplace_back(of::EchoRequest{});
  for (uint32_t i = kFlows / 2; i < kFlows; ++i) burst.emplace_back(host_flow(i));
  burst.emplace_back(of::BarrierRequest{});
  std::vector<uint32_t> xids = ctl.send_all(std::move(burst));
  auto echo = ctl.wait_xid(xids[kFlows / 2], std::chrono::seconds(30));
  ASSERT_TRUE(echo && echo->is<of::EchoReply>()) << "no echo reply during the burst";
  auto barrier = ctl.wait_xid(xids.back(), std::chrono::seconds(30));
  ASSERT_TRUE(barrier && barrier->is<of::BarrierReply>()) << "no barrier reply after the burst";
  EXPECT_EQ(ctl.count(of::MsgType::kError), 0u);
  EXPECT_EQ(fx.sw->datapath().flow_count(), kFlows);
  // Published in far fewer versions than flows (one per read of at most 64 KB,
  // about 800 flow-mods), and the barrier saw all of them.
  const uint64_t versions = fx.sw->datapath().version() - v0;
  EXPECT_GE(versions, 1u);
  EXPECT_LT(versions, kFlows / 10);
  Bytes f = FrameBuilder()
                .eth(mac(2), mac(1))
                .ipv4(Ipv4Addr{0x0a000001u}, Ipv4Addr{0x0b000000u | (kFlows - 1)})
                .udp(1000, 2000)
                .payload(20)
                .build();
  fx.mem[0]->inject(f);
  EXPECT_EQ(fx.wait_tx(1, 1).size(), 1u);
  fx.sw->stop();
}

// Packet-outs of one read: their frames leave in order, batched (far fewer
// tx_batch calls than frames), every one of them before the barrier after
// them is answered; a lone packet-out with nothing after it is sent too.
TEST(AgentBatch, PacketOutFramesOfOneReadAreSentTogetherBeforeTheBarrierReply) {
  TestController ctl;
  SwitchFixture fx(options_with_controller(ctl.port()), 2);
  ASSERT_TRUE(ctl.wait_ready());
  constexpr uint32_t kOuts = 200;
  std::vector<Bytes> frames;
  std::vector<of::MessageBody> burst;
  for (uint32_t i = 0; i < kOuts; ++i) {
    frames.push_back(udp_frame(1, 2, 60 + i));  // payload length tells them apart
    of::PacketOut po;
    po.in_port = 1;
    po.actions = {of::Action::output(2)};
    po.data = frames.back();
    burst.emplace_back(std::move(po));
  }
  burst.emplace_back(of::BarrierRequest{});
  const size_t calls0 = fx.mem[1]->tx_calls();
  std::vector<uint32_t> xids = ctl.send_all(std::move(burst));
  auto barrier = ctl.wait_xid(xids.back(), std::chrono::seconds(10));
  ASSERT_TRUE(barrier && barrier->is<of::BarrierReply>());
  std::vector<MemoryPort::Frame> out = fx.mem[1]->take_tx();  // no wait: sent before the reply
  ASSERT_EQ(out.size(), kOuts);
  for (uint32_t i = 0; i < kOuts; ++i) EXPECT_EQ(out[i].data, frames[i]) << "frame " << i;
  const size_t calls = fx.mem[1]->tx_calls() - calls0;
  EXPECT_GE(calls, kOuts / PacketBatch::kMax);
  EXPECT_LT(calls, kOuts / 4) << "packet-out frames were not batched";
  EXPECT_TRUE(fx.mem[0]->take_tx().empty());
  EXPECT_EQ(ctl.count(of::MsgType::kError), 0u);

  of::PacketOut lone;
  lone.in_port = 1;
  lone.actions = {of::Action::output(2)};
  lone.data = frames[0];
  ctl.send(lone);
  auto got = fx.wait_tx(1, 1);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].data, frames[0]);
  fx.sw->stop();
}

}  // namespace
}  // namespace flowlab::sw::testing

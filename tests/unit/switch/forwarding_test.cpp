// Forwarding without a controller: fail-secure keeps only flows, fail-standalone
// learns MACs, the to-controller queue is bounded and counts overflow, and
// offload metadata is completed in software for outputs that cannot take it.
#include "switch/forwarding.h"

#include "datapath/datapath.h"
#include "packet/checksum.h"
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

TEST(SwitchForwarding, SecureWithoutControllerDropsUnmatched) {
  SwitchOptions o;
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(fx.sw);
  EXPECT_FALSE(fx.sw->standalone_active());
  fx.mem[0]->inject(udp_frame(1, 2));
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(fx.mem[1]->take_tx().empty());
  EXPECT_EQ(fx.sw->ports().at(0).port->stats().rx_packets, 1u);
}

TEST(SwitchForwarding, StandaloneLearnsMacs) {
  SwitchOptions o;
  o.fail_mode = FailMode::kStandalone;
  SwitchFixture fx(o, 3);
  ASSERT_TRUE(fx.sw);
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (!fx.sw->standalone_active() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  ASSERT_TRUE(fx.sw->standalone_active());
  // Unknown destination: flooded to every other port.
  fx.mem[0]->inject(udp_frame(1, 2));
  EXPECT_EQ(fx.wait_tx(1, 1).size(), 1u);
  EXPECT_EQ(fx.wait_tx(2, 1).size(), 1u);
  // Reply from host 2 on port 2: host 1 is known on port 1, nothing else.
  fx.mem[1]->inject(udp_frame(2, 1));
  EXPECT_EQ(fx.wait_tx(0, 1).size(), 1u);
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(fx.mem[2]->take_tx().empty());
  // Now host 2 is known too.
  fx.mem[0]->inject(udp_frame(1, 2));
  EXPECT_EQ(fx.wait_tx(1, 1).size(), 1u);
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(fx.mem[2]->take_tx().empty());
}

TEST(SwitchForwarding, StandaloneEndsWhenControllerConnects) {
  TestController ctl;
  SwitchOptions o = options_with_controller(ctl.port());
  o.fail_mode = FailMode::kStandalone;
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl.wait_ready());
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (fx.sw->standalone_active() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  EXPECT_FALSE(fx.sw->standalone_active());
}

// One memory port (`in`, port 1) and a datapath whose table-miss flow, once
// installed, sends every frame to the controller.
struct OnePortToController {
  MemoryPort* in = nullptr;
  SwitchPorts ports{one_port(in)};
  dp::Datapath dp{dp::DatapathConfig{}, &ports};
  bool miss_to_controller() {
    auto miss = flow(0, {of::Action::output(of::port::kController, of::kControllerMaxLenNoBuffer)}, 0);
    return dp.flow_mod(miss, 0).ok();
  }

 private:
  static std::vector<std::unique_ptr<Port>> one_port(MemoryPort*& in) {
    std::vector<std::unique_ptr<Port>> v;
    auto p1 = std::make_unique<MemoryPort>("m1");
    p1->set_port_no(1);
    in = p1.get();
    v.push_back(std::move(p1));
    return v;
  }
};

TEST(SwitchForwarding, ToControllerQueueIsBoundedAndCountsDrops) {
  OnePortToController net;
  ASSERT_TRUE(net.miss_to_controller());
  ForwardingShared shared;
  int wakes = 0;
  shared.wake_agent = [&] { ++wakes; };
  ForwardingThread t(0, net.dp, net.ports, {0}, shared, 4);
  for (int i = 0; i < 10; ++i) net.in->inject(udp_frame(1, uint8_t(2 + i)));
  size_t n = 0;
  for (int i = 0; i < 10 && n < 10; ++i) n += t.poll_once(100);
  EXPECT_EQ(n, 10u);
  EXPECT_EQ(t.counters().to_controller_queued.load(), 4u);
  EXPECT_EQ(t.counters().to_controller_dropped.load(), 6u);
  EXPECT_EQ(wakes, 1);  // one wake for the whole burst
  size_t popped = 0;
  while (t.pop_to_controller()) ++popped;
  EXPECT_EQ(popped, 4u);
}

// The queue is bounded in bytes too: 64 KB frames (GSO super-frames) stop at
// 64 MB, not at 16,384 frames; what the agent takes makes room again.
TEST(SwitchForwarding, ToControllerQueueIsBoundedInBytes) {
  OnePortToController net;
  ASSERT_TRUE(net.miss_to_controller());
  ForwardingShared shared;
  ForwardingThread t(0, net.dp, net.ports, {0}, shared, 16384);
  const Bytes big = udp_frame(1, 2, 60000);
  const uint64_t fit = ForwardingThread::kToControllerBytes / big.size();
  const uint64_t sent = fit + 20;
  for (uint64_t i = 0; i < sent; ++i) {
    net.in->inject(big);
    if (net.in->rx_pending() >= 64)
      while (net.in->rx_pending() > 0) t.poll_once(0);
  }
  while (net.in->rx_pending() > 0) t.poll_once(0);
  EXPECT_EQ(t.counters().to_controller_queued.load(), fit);
  EXPECT_EQ(t.counters().to_controller_dropped.load(), 20u);
  ASSERT_TRUE(t.pop_to_controller().has_value());
  net.in->inject(big);
  while (net.in->rx_pending() > 0) t.poll_once(0);
  EXPECT_EQ(t.counters().to_controller_queued.load(), fit + 1);
  size_t popped = 1;
  while (t.pop_to_controller()) ++popped;
  EXPECT_EQ(popped, fit + 1);
}

// Packet-in coalescing: a round that queued packet-ins faster than one per
// 50 us is followed by a wait; a first round, a slow one, a full batch, a
// round without packet-ins, or coalescing off, is not.
TEST(SwitchForwarding, PacketInFloodRoundsAreCoalescedOthersNot) {
  OnePortToController net;
  ASSERT_TRUE(net.miss_to_controller());
  ForwardingShared shared;
  shared.packet_in_coalesce_ns = 100'000;
  ForwardingThread t(0, net.dp, net.ports, {0}, shared, 4096);
  auto round = [&](int frames) {
    for (int i = 0; i < frames; ++i) net.in->inject(udp_frame(1, uint8_t(2 + i % 200)));
    size_t n = 0;
    for (int i = 0; i < 10 && n < size_t(frames); ++i) n += t.poll_once(100);
    return n;
  };
  const uint64_t t0 = 1'000'000'000;
  size_t n = round(1);
  EXPECT_FALSE(t.coalesce_wait(n, t0));  // the first packet-in: nothing to go by
  n = round(3);
  EXPECT_TRUE(t.coalesce_wait(n, t0 + 100'000));  // 3 in 100 us: 33 us apart
  n = round(2);
  EXPECT_TRUE(t.coalesce_wait(n, t0 + 190'000));  // 2 in 90 us
  n = round(1);
  EXPECT_FALSE(t.coalesce_wait(n, t0 + 250'000));  // 1 in 60 us: slower than the flood rate
  n = round(0);
  EXPECT_FALSE(t.coalesce_wait(n, t0 + 260'000));  // no packet-in
  n = round(32);
  EXPECT_EQ(n, 32u);
  EXPECT_FALSE(t.coalesce_wait(n, t0 + 300'000));  // a full batch: more is waiting, no wait
  n = round(4);
  EXPECT_TRUE(t.coalesce_wait(n, t0 + 400'000));
  EXPECT_EQ(t.counters().coalesce_waits.load(), 3u);
  EXPECT_EQ(t.counters().to_controller_queued.load(), 43u);  // every frame queued, none held back
  shared.packet_in_coalesce_ns = 0;                          // off
  n = round(4);
  EXPECT_FALSE(t.coalesce_wait(n, t0 + 410'000));
  EXPECT_EQ(t.counters().coalesce_waits.load(), 3u);
}

TEST(SwitchForwarding, PartialChecksumCompletedForPortWithoutOffloads) {
  TestController ctl;
  SwitchFixture fx(options_with_controller(ctl.port()), 2, PortCapabilities::none());
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl.wait_ready());
  ctl.send(flow(1, {of::Action::output(2)}));
  ASSERT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})).has_value());
  Packet pkt;
  FrameBuilder()
      .eth(mac(2), mac(1))
      .ipv4(Ipv4Addr{0x0a000001}, Ipv4Addr{0x0a000002})
      .tcp(1234, 80, 0x18, 1000)
      .payload(300)
      .partial_csum()
      .build_into(pkt);
  ASSERT_TRUE(pkt.offload.needs_csum());
  Bytes raw(pkt.data(), pkt.data() + pkt.size());
  EXPECT_FALSE(csum::checksums_ok(raw.data(), raw.size()));
  fx.mem[0]->inject(raw, pkt.offload);
  auto out = fx.wait_tx(1, 1);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(csum::checksums_ok(out[0].data.data(), out[0].data.size()));
  EXPECT_FALSE(out[0].offload.needs_csum());
}

TEST(SwitchForwarding, GsoFrameSegmentedForPortWithoutOffloads) {
  TestController ctl;
  SwitchFixture fx(options_with_controller(ctl.port()), 2, PortCapabilities::none());
  ASSERT_TRUE(fx.sw);
  ASSERT_TRUE(ctl.wait_ready());
  ctl.send(flow(1, {of::Action::output(2)}));
  ASSERT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{})).has_value());
  Packet pkt;
  FrameBuilder()
      .eth(mac(2), mac(1))
      .ipv4(Ipv4Addr{0x0a000001}, Ipv4Addr{0x0a000002})
      .tcp(1234, 80, 0x18, 1000)
      .payload(1448 * 5)
      .partial_csum()
      .build_into(pkt);
  pkt.offload.gso_type = OffloadInfo::kGsoTcpv4;
  pkt.offload.gso_size = 1448;
  pkt.offload.hdr_len = 14 + 20 + 20;
  fx.mem[0]->inject(Bytes(pkt.data(), pkt.data() + pkt.size()), pkt.offload);
  auto out = fx.wait_tx(1, 5);
  ASSERT_EQ(out.size(), 5u);
  for (auto& f : out) {
    EXPECT_EQ(f.data.size(), 14u + 20 + 20 + 1448);
    EXPECT_TRUE(csum::checksums_ok(f.data.data(), f.data.size()));
  }
}

}  // namespace
}  // namespace flowlab::sw::testing

// The agent under a packet-in flood toward a slow controller: every echo
// request, flow-mod and barrier sent during the flood is answered (in order,
// no error), the flows are installed, and the packet-ins the controller could
// not take were shed by the switch (counted "congested" in --stats-file), not
// queued in front of the replies; and the switch never takes its controller
// for dead (no reconnect during the flood). The round-trip times are printed
// (p50/p99/max) as a measurement; nothing is asserted on time.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

of::FlowMod host_flow(uint32_t i) {
  of::FlowMod fm;
  fm.priority = 30;
  fm.match.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
  fm.match.add(of::OxmField::basic(of::OxmId::kIpv4Dst, 0x0b000000u | i));
  fm.instructions.push_back(of::Instruction::apply({of::Action::output(2)}));
  return fm;
}

std::string percentiles(std::vector<double> ms) {
  if (ms.empty()) return "none";
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * double(ms.size() - 1) + 0.5))]; };
  return fmt::format("p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms ({} samples)", at(0.5), at(0.99), ms.back(),
                     ms.size());
}

nlohmann::json read_stats(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str(), nullptr, false);
}

// Injects `frame` on port 1 until `stop`, keeping at most ~2,048 frames
// waiting in the port; counts them in `injected`.
std::thread flood(SwitchFixture& fx, Bytes frame, std::atomic<bool>& stop, std::atomic<uint64_t>& injected) {
  return std::thread([&fx, frame = std::move(frame), &stop, &injected] {
    while (!stop.load()) {
      if (fx.mem[0]->rx_pending() > 2048) {
        std::this_thread::sleep_for(200us);
        continue;
      }
      fx.mem[0]->inject(frame);
      injected.fetch_add(1);
    }
  });
}

TEST(AgentFlood, EchoFlowModAndBarrierAnsweredDuringPacketInFlood) {
  TestController ctl;
  SwitchOptions o = options_with_controller(ctl.port());
  o.stats_file = fmt::format("/tmp/flowlab-agent-flood-{}.json", getpid());
  SwitchFixture fx(o, 3);
  ASSERT_TRUE(ctl.wait_ready());
  // Table miss -> controller, whole frames (no buffer ids: nothing to evict).
  uint32_t miss =
      ctl.send(flow(0, {of::Action::output(of::port::kController, of::kControllerMaxLenNoBuffer)}, 0));
  auto b0 = ctl.wait_xid(ctl.send(of::BarrierRequest{}));
  ASSERT_TRUE(b0 && b0->is<of::BarrierReply>());
  ASSERT_FALSE(ctl.wait_xid(miss, 0ms).has_value());
  // A controller that needs 100 us per packet-in (10k/s) against a flood the
  // switch forwards several times faster.
  ctl.sink_packet_ins(std::chrono::microseconds(100));

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> injected{0};
  std::thread flooder = flood(fx, udp_frame(1, 2, 200), stop, injected);
  // Let the flood fill the controller's socket before measuring.
  auto warm = std::chrono::steady_clock::now() + 1s;
  while (std::chrono::steady_clock::now() < warm && ctl.packet_ins_sunk() == 0)
    std::this_thread::sleep_for(10ms);
  std::this_thread::sleep_for(300ms);

  constexpr uint32_t kRounds = 40;
  std::vector<double> echo_ms, barrier_ms;
  uint32_t echoes = 0, barriers = 0;
  for (uint32_t i = 0; i < kRounds; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<uint32_t> x = ctl.send_all({of::EchoRequest{}, host_flow(i), of::BarrierRequest{}});
    auto echo = ctl.wait_xid(x[0], 10s);
    auto t1 = std::chrono::steady_clock::now();
    auto barrier = ctl.wait_xid(x[2], 10s);
    auto t2 = std::chrono::steady_clock::now();
    if (echo && echo->is<of::EchoReply>()) {
      ++echoes;
      echo_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    if (barrier && barrier->is<of::BarrierReply>()) {
      ++barriers;
      barrier_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
    }
    EXPECT_FALSE(ctl.wait_xid(x[1], 0ms).has_value()) << "the flow-mod of round " << i << " was refused";
    std::this_thread::sleep_for(20ms);
  }
  const uint64_t sunk_during = ctl.packet_ins_sunk();
  stop = true;
  flooder.join();

  EXPECT_EQ(fx.sw->connected_peers(), 1u);
  EXPECT_FALSE(ctl.closed()) << "the switch dropped its controller during the flood";
  EXPECT_EQ(echoes, kRounds) << "echo replies lost during the flood";
  EXPECT_EQ(barriers, kRounds) << "barrier replies lost during the flood";
  EXPECT_EQ(fx.sw->datapath().flow_count(), kRounds + 1);
  EXPECT_EQ(ctl.count(of::MsgType::kError), 0u);
  EXPECT_GT(sunk_during, 0u) << "no packet-in reached the controller";
  // The switch shed what the controller could not take (the stats file is
  // written every 500 ms).
  std::this_thread::sleep_for(1200ms);
  nlohmann::json st = read_stats(o.stats_file);
  ASSERT_TRUE(st.is_object()) << "no stats in " << o.stats_file;
  EXPECT_GT(st["packet_ins"]["sent"].get<uint64_t>(), 0u);
  EXPECT_GT(st["packet_ins"]["congested"].get<uint64_t>(), 0u) << st.dump();
  std::printf("packet-in flood: %llu frames injected, %llu packet-ins taken by the controller, %llu shed\n",
              static_cast<unsigned long long>(injected.load()), static_cast<unsigned long long>(sunk_during),
              static_cast<unsigned long long>(st["packet_ins"]["congested"].get<uint64_t>()));
  std::printf("echo round trip during the flood: %s\n", percentiles(echo_ms).c_str());
  std::printf("flow-mod + barrier round trip during the flood: %s\n", percentiles(barrier_ms).c_str());
  fx.sw->stop();
  std::remove(o.stats_file.c_str());
  std::remove((o.stats_file + ".tmp").c_str());
}

// A hub answering every buffered packet-in by its buffer id, slower than the
// flood, with few buffer ids: the switch sheds packet-ins rather than evict the
// buffers of packet-ins the controller has not read yet, so every packet-out
// finds its packet (no OFPBRC_BUFFER_UNKNOWN, no eviction). With a window of
// bytes alone 64 KB of 128-byte packet-ins is ~400 unread against 64 ids.
TEST(AgentFlood, HubSlowerThanTheFloodFindsEveryBufferedPacket) {
  TestController ctl;
  SwitchOptions o = options_with_controller(ctl.port());
  o.n_buffers = 64;
  o.stats_file = fmt::format("/tmp/flowlab-agent-flood-hub-{}.json", getpid());
  SwitchFixture fx(o, 3);
  ASSERT_TRUE(ctl.wait_ready());
  uint32_t miss = ctl.send(flow(0, {of::Action::output(of::port::kController, 128)}, 0));
  auto b0 = ctl.wait_xid(ctl.send(of::BarrierRequest{}));
  ASSERT_TRUE(b0 && b0->is<of::BarrierReply>());
  ASSERT_FALSE(ctl.wait_xid(miss, 0ms).has_value());
  ctl.hub_packet_ins(std::chrono::microseconds(100), 1, 2);

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> injected{0};
  std::thread flooder = flood(fx, udp_frame(1, 2, 1000), stop, injected);
  std::this_thread::sleep_for(2s);
  stop = true;
  flooder.join();
  std::this_thread::sleep_for(1200ms);  // the packet-outs of what was read, the stats file

  nlohmann::json st = read_stats(o.stats_file);
  ASSERT_TRUE(st.is_object()) << "no stats in " << o.stats_file;
  const uint64_t sent = st["packet_ins"]["sent"].get<uint64_t>();
  EXPECT_GT(sent, 1000u) << st.dump();
  EXPECT_GT(st["packet_ins"]["congested"].get<uint64_t>(), 0u) << st.dump();
  EXPECT_EQ(st["buffers"]["evicted"].get<uint64_t>(), 0u) << st.dump();
  EXPECT_EQ(ctl.count(of::MsgType::kError), 0u) << "a packet-out named a buffer the switch no longer had";
  EXPECT_EQ(st["packet_outs"].get<uint64_t>(), sent) << st.dump();
  // Every packet-out sent its frame on port 2.
  EXPECT_EQ(fx.mem[1]->take_tx().size(), sent);
  fx.sw->stop();
  std::remove(o.stats_file.c_str());
  std::remove((o.stats_file + ".tmp").c_str());
}

}  // namespace
}  // namespace flowlab::sw::testing

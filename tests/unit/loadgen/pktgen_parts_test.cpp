// The small parts of `flowlab pktgen --mode xdp` that need no kernel: the
// Pacer's chunks and schedule, the neighbour table's parse, the kernel
// version's.
#include <gtest/gtest.h>

#include <chrono>

#include "loadgen/pktgen/frame_addresses.h"
#include "loadgen/pktgen/pacer.h"
#include "loadgen/pktgen/xdp_device.h"

namespace flowlab::loadgen {
namespace {

using namespace std::chrono_literals;

TEST(Pacer, ChunksAreTwoMillisecondsOfTheRate) {
  auto t0 = Pacer::Clock::now();
  EXPECT_EQ(Pacer(1'000'000, t0).chunk(), 2000u);
  EXPECT_EQ(Pacer(100, t0).chunk(), 1u);
  EXPECT_EQ(Pacer(10'000, t0).chunk(), 20u);
  EXPECT_EQ(Pacer(1e9, t0).chunk(), Pacer::kMaxChunk);
  EXPECT_EQ(Pacer(0, t0).chunk(), Pacer::kMaxChunk) << "rate 0: as fast as possible";
}

TEST(Pacer, ScheduleIsAbsolute) {
  auto t0 = Pacer::Clock::now();
  Pacer p(1000, t0);
  EXPECT_EQ(p.next_due(), t0);
  for (int i = 0; i < 10; ++i) p.sent(100);
  EXPECT_EQ(p.next_due(), t0 + 1s) << "1000 frames at 1000/s: one second, whatever the chunks";
}

TEST(Pacer, WaitSleepsUntilDue) {
  auto t0 = Pacer::Clock::now();
  Pacer p(1000, t0);
  p.sent(20);  // due at t0 + 20 ms
  p.wait();
  EXPECT_GE(Pacer::Clock::now(), t0 + 20ms);
}

TEST(Pacer, FarBehindCatchesUpAtMostTheBacklog) {
  auto t0 = Pacer::Clock::now() - 1s;
  Pacer p(1000, t0, 0.05);
  p.wait();  // a second behind: returns at once, the schedule moved to now - 50 ms
  auto behind = Pacer::Clock::now() - p.next_due();
  EXPECT_GE(behind, 49ms);
  EXPECT_LE(behind, 200ms);
}

TEST(FrameAddresses, NeighbourTableParse) {
  const char* table =
      "IP address       HW type     Flags       HW address            Mask     Device\n"
      "10.0.0.2         0x1         0x6         02:00:00:00:00:02     *        eth0\n"
      "10.0.0.3         0x1         0x0         00:00:00:00:00:00     *        eth0\n"
      "10.0.0.4         0x1         0x2         02:00:00:00:00:04     *        eth1\n";
  auto ip = [](const char* s) { return *Ipv4Addr::parse(s); };
  EXPECT_EQ(find_neighbour(table, ip("10.0.0.2"), "eth0"), MacAddr::parse("02:00:00:00:00:02"));
  EXPECT_EQ(find_neighbour(table, ip("10.0.0.3"), "eth0"), std::nullopt) << "incomplete";
  EXPECT_EQ(find_neighbour(table, ip("10.0.0.4"), "eth0"), std::nullopt) << "another interface";
  EXPECT_EQ(find_neighbour(table, ip("10.0.0.4"), "eth1"), MacAddr::parse("02:00:00:00:00:04"));
  EXPECT_EQ(find_neighbour("", ip("10.0.0.2"), "eth0"), std::nullopt);
}

TEST(FrameAddresses, BadOptionsNameTheOption) {
  auto r = resolve_frame_addresses({"10.0.0", "", "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--dst 10.0.0: not an IPv4 address");
  r = resolve_frame_addresses({"10.0.0.2", "flnoexist0", "", ""});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "--dev flnoexist0: no such network interface");
}

TEST(XdpDevice, KernelVersionCode) {
  EXPECT_EQ(kernel_version_code("6.18.44-fc-v857"), 6018);
  EXPECT_EQ(kernel_version_code("5.17.0"), 5017);
  EXPECT_EQ(kernel_version_code("5.18"), 5018);
  EXPECT_EQ(kernel_version_code("garbage"), 0);
}

}  // namespace
}  // namespace flowlab::loadgen

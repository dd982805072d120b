// KernelPort against a real veth (needs root): what it transmits is counted
// once, however many threads transmit at the same time. (The agent's
// packet-outs and a forwarding thread's slow-path outputs reach one port's
// transmit at once; the port's counters are what dump-ports reports.)
#include "kernel/kernel_port.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>
#include <vector>

#include "../port/netns_util.h"

namespace flowlab::kernel {
namespace {

using testutil::Netns;
using testutil::VethLink;

TEST(KernelPort, ConcurrentTransmitsAreEachCountedOnce) {
  if (!testutil::is_root()) GTEST_SKIP() << "needs root (a namespace, a veth, AF_PACKET)";
  const std::string id = std::to_string(::getpid());
  Netns ns("flkp" + id);
  ASSERT_TRUE(ns.ok());
  VethLink link("flkp" + id + "p", "flkp" + id + "h", ns, "");
  ASSERT_TRUE(link.ok());
  auto port = KernelPort::open(link.port());
  ASSERT_TRUE(port.ok()) << port.error().message;

  // 60-byte frames to nobody (the peer drops them: a foreign unicast MAC).
  std::vector<uint8_t> frame(60, 0);
  const uint8_t dst[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
  std::memcpy(frame.data(), dst, 6);
  frame[6] = 0x02;
  frame[12] = 0x88, frame[13] = 0xb5;
  constexpr int kThreads = 2, kEach = 3000;
  auto send = [&] {
    Packet p;
    PacketBatch batch;
    for (int i = 0; i < kEach; ++i) {
      ASSERT_TRUE(p.assign(frame.data(), frame.size()));
      batch.clear();
      batch.pkts.push_back(&p);
      (*port)->tx_batch(batch);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(send);
  for (auto& t : threads) t.join();

  PortStats s = (*port)->stats();
  EXPECT_EQ(s.tx_packets + s.tx_dropped + s.tx_errors, uint64_t(kThreads * kEach))
      << "tx " << s.tx_packets << " dropped " << s.tx_dropped << " errors " << s.tx_errors;
  EXPECT_EQ(s.tx_bytes, s.tx_packets * frame.size());
}

}  // namespace
}  // namespace flowlab::kernel

// MemoryPort: injected frames come out of rx_batch, transmitted frames are captured,
// and without offload capabilities tx_batch completes checksums / segments GSO.
#include "port/memory_port.h"

#include <gtest/gtest.h>
#include <poll.h>

#include "packet/builder.h"
#include "packet/checksum.h"

namespace flowlab {
namespace {

const MacAddr kMacA = *MacAddr::parse("02:00:00:00:00:01");
const MacAddr kMacB = *MacAddr::parse("02:00:00:00:00:02");
const Ipv4Addr kIpA = *Ipv4Addr::parse("10.0.0.1");
const Ipv4Addr kIpB = *Ipv4Addr::parse("10.0.0.2");

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1;
}

TEST(MemoryPort, InjectedFramesAreReceivedInOrder) {
  MemoryPort port("m1");
  port.set_port_no(4);
  EXPECT_FALSE(readable(port.poll_fd()));
  for (uint8_t i = 0; i < 5; ++i) {
    std::vector<uint8_t> f(60 + i, i);
    OffloadInfo o;
    o.flags = i == 2 ? OffloadInfo::kNeedsCsum : 0;
    port.inject(f, o);
  }
  EXPECT_TRUE(readable(port.poll_fd()));
  std::vector<std::unique_ptr<Packet>> pool;
  for (int i = 0; i < 3; ++i) pool.push_back(std::make_unique<Packet>());
  PacketBatch b;
  for (auto& p : pool) b.pkts.push_back(p.get());
  ASSERT_EQ(port.rx_batch(b, 3), 3u);
  ASSERT_EQ(b.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(b.pkts[i]->size(), 60 + i);
    EXPECT_EQ(b.pkts[i]->data()[0], i);
    EXPECT_EQ(b.pkts[i]->in_port, 4u);
  }
  EXPECT_TRUE(b.pkts[2]->offload.needs_csum());
  EXPECT_TRUE(readable(port.poll_fd()));
  b.clear();
  for (auto& p : pool) b.pkts.push_back(p.get());
  EXPECT_EQ(port.rx_batch(b, 32), 2u);  // limited by the packets supplied and the queue
  EXPECT_FALSE(readable(port.poll_fd()));
  b.clear();
  for (auto& p : pool) b.pkts.push_back(p.get());
  EXPECT_EQ(port.rx_batch(b, 32), 0u);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(port.stats().rx_packets, 5u);
  EXPECT_EQ(port.stats().rx_bytes, 60u + 61 + 62 + 63 + 64);
}

TEST(MemoryPort, RxLimitDropsAndCounts) {
  MemoryPort port("m1");
  port.set_rx_limit(2);
  std::vector<uint8_t> f(60, 1);
  for (int i = 0; i < 5; ++i) port.inject(f);
  EXPECT_EQ(port.rx_pending(), 2u);
  EXPECT_EQ(port.stats().rx_dropped, 3u);
}

TEST(MemoryPort, TransmitCapturesFramesAndMetadata) {
  MemoryPort port("m2");
  Packet p;
  FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).tcp(1, 2).payload(100).partial_csum().build_into(p);
  EXPECT_EQ(port.tx_one(p), 1u);
  auto tx = port.take_tx();
  ASSERT_EQ(tx.size(), 1u);
  EXPECT_TRUE(tx[0].offload.needs_csum());  // passed through: capabilities all()
  EXPECT_EQ(tx[0].data, std::vector<uint8_t>(p.data(), p.data() + p.size()));
  EXPECT_TRUE(port.take_tx().empty());
  port.set_link(false);
  EXPECT_EQ(port.tx_one(p), 0u);
  EXPECT_EQ(port.stats().tx_dropped, 1u);
  EXPECT_FALSE(port.link_up());
}

TEST(MemoryPort, WithoutOffloadsChecksumsAreCompletedAndGsoSegmented) {
  MemoryPort port("m3", PortCapabilities::none());
  Packet csum_only;
  FrameBuilder()
      .eth(kMacB, kMacA)
      .ipv4(kIpA, kIpB)
      .udp(1, 2)
      .payload(300)
      .partial_csum()
      .build_into(csum_only);
  Packet gso;
  FrameBuilder()
      .eth(kMacB, kMacA)
      .ipv4(kIpA, kIpB)
      .tcp(1, 2, 0x18, 5)
      .payload(4000)
      .partial_csum()
      .build_into(gso);
  gso.offload.gso_type = OffloadInfo::kGsoTcpv4;
  gso.offload.gso_size = 1000;
  PacketBatch b;
  b.pkts = {&csum_only, &gso};
  EXPECT_EQ(port.tx_batch(b), 5u);
  auto tx = port.take_tx();
  ASSERT_EQ(tx.size(), 5u);
  size_t payload = 0;
  for (auto& f : tx) {
    EXPECT_FALSE(f.offload.needs_csum());
    EXPECT_FALSE(f.offload.is_gso());
    EXPECT_TRUE(csum::checksums_ok(f.data.data(), f.data.size()));
    EXPECT_LE(f.data.size(), 14u + 20 + 20 + 1000);
    auto l = csum::locate_l4(f.data.data(), f.data.size());
    ASSERT_TRUE(l);
    payload += l->l4_len - l->l4_hdr_len;
  }
  EXPECT_EQ(payload, 300u + 4000);
  EXPECT_EQ(port.stats().tx_packets, 5u);
}

TEST(MemoryPort, CsumCapableOutputGetsPartialSegments) {
  PortCapabilities caps;
  caps.vnet_hdr = caps.csum = true;  // partial checksums but no TSO
  MemoryPort port("m4", caps);
  Packet gso;
  FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).tcp(1, 2).payload(3000).partial_csum().build_into(gso);
  gso.offload.gso_type = OffloadInfo::kGsoTcpv4;
  gso.offload.gso_size = 1448;
  EXPECT_EQ(port.tx_one(gso), 3u);
  for (auto& f : port.take_tx()) {
    EXPECT_TRUE(f.offload.needs_csum());
    EXPECT_FALSE(f.offload.is_gso());
    Packet p;
    ASSERT_TRUE(p.assign(f.data.data(), f.data.size()));
    p.offload = f.offload;
    ASSERT_TRUE(csum::complete_partial(p));
    EXPECT_TRUE(csum::checksums_ok(p.data(), p.size()));
  }
}

TEST(MemoryPort, MalformedGsoIsCountedAsTxError) {
  MemoryPort port("m5", PortCapabilities::none());
  Packet bad;
  std::vector<uint8_t> junk(200, 0);
  ASSERT_TRUE(bad.assign(junk.data(), junk.size()));
  bad.offload.gso_type = OffloadInfo::kGsoTcpv4;
  bad.offload.gso_size = 100;
  EXPECT_EQ(port.tx_one(bad), 0u);
  EXPECT_EQ(port.stats().tx_errors, 1u);
  EXPECT_TRUE(port.take_tx().empty());
}

TEST(PortCapabilities, AcceptsOnlyWhatItHas) {
  OffloadInfo plain;
  OffloadInfo partial;
  partial.flags = OffloadInfo::kNeedsCsum;
  OffloadInfo tso6 = partial;
  tso6.gso_type = OffloadInfo::kGsoTcpv6;
  tso6.gso_size = 1400;
  EXPECT_TRUE(PortCapabilities::none().accepts(plain));
  EXPECT_FALSE(PortCapabilities::none().accepts(partial));
  EXPECT_TRUE(PortCapabilities::all().accepts(tso6));
  PortCapabilities c;
  c.vnet_hdr = c.csum = c.tso4 = true;
  EXPECT_TRUE(c.accepts(partial));
  EXPECT_FALSE(c.accepts(tso6));
}

}  // namespace
}  // namespace flowlab

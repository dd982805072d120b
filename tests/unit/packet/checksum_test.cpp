// Tests for packet/checksum: sums, pseudo headers, partial-checksum completion.
#include "packet/checksum.h"

#include <gtest/gtest.h>

#include <random>

#include "packet/builder.h"
#include "packet/headers.h"

namespace flowlab {
namespace {

const MacAddr kMacA = *MacAddr::parse("02:00:00:00:00:01");
const MacAddr kMacB = *MacAddr::parse("02:00:00:00:00:02");
const Ipv4Addr kIpA = *Ipv4Addr::parse("10.0.0.1");
const Ipv4Addr kIpB = *Ipv4Addr::parse("10.0.0.2");
const Ipv6Addr kIp6A = *Ipv6Addr::parse("2001:db8::1");
const Ipv6Addr kIp6B = *Ipv6Addr::parse("2001:db8::2");

uint32_t naive_sum(const uint8_t* p, size_t n) {
  uint64_t s = 0;
  for (size_t i = 0; i + 1 < n; i += 2) s += uint32_t(p[i] << 8 | p[i + 1]);
  if (n & 1) s += uint32_t(p[n - 1]) << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return uint32_t(s);
}

TEST(Checksum, Rfc1071Example) {
  const uint8_t b[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(csum::fold(csum::sum_bytes(b, sizeof b)), 0xddf2);
  EXPECT_EQ(csum::internet_checksum(b, sizeof b), uint16_t(~0xddf2));
}

TEST(Checksum, OddTailIsHighByte) {
  const uint8_t b[] = {0x12};
  EXPECT_EQ(csum::fold(csum::sum_bytes(b, 1)), 0x1200);
  const uint8_t c[] = {0x00, 0x01, 0x02};
  EXPECT_EQ(csum::fold(csum::sum_bytes(c, 3)), 0x0201);
}

TEST(Checksum, MatchesNaiveSumForAllLengthsAndAlignments) {
  std::mt19937 rng(7);
  std::vector<uint8_t> buf(2100);
  for (auto& x : buf) x = uint8_t(rng());
  for (size_t off = 0; off < 4; ++off)
    for (size_t n = 0; n < 2048; n += (n < 80 ? 1 : 37))
      ASSERT_EQ(csum::fold(csum::sum_bytes(buf.data() + off, n)), naive_sum(buf.data() + off, n))
          << "off " << off << " n " << n;
  std::vector<uint8_t> ff(65536, 0xff);
  EXPECT_EQ(csum::fold(csum::sum_bytes(ff.data(), ff.size())), 0xffff);
}

TEST(Checksum, InitialSumIsAdded) {
  const uint8_t b[] = {0x80, 0x00};
  EXPECT_EQ(csum::fold(csum::sum_bytes(b, 2, 0x8001)), 0x0002);  // end-around carry
}

TEST(Checksum, BuilderFramesVerify) {
  std::vector<Bytes> frames = {
      FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).tcp(1000, 80).payload(101).build(),
      FrameBuilder().eth(kMacB, kMacA).vlan(10).ipv4(kIpA, kIpB).udp(53, 5353).payload(33).build(),
      FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).icmp(8, 0).payload(56).build(),
      FrameBuilder().eth(kMacB, kMacA).ipv6(kIp6A, kIp6B).tcp(1000, 80).payload(1400).build(),
      FrameBuilder().eth(kMacB, kMacA).vlan(5).vlan(6).ipv6(kIp6A, kIp6B).udp(1, 2).payload(7).build(),
      FrameBuilder().eth(kMacB, kMacA).ipv6(kIp6A, kIp6B).icmp(128, 0).payload(8).build(),
  };
  for (size_t i = 0; i < frames.size(); ++i) {
    Bytes& f = frames[i];
    EXPECT_TRUE(csum::checksums_ok(f.data(), f.size())) << "frame " << i;
    auto l = csum::locate_l4(f.data(), f.size());
    ASSERT_TRUE(l) << i;
    // Corrupt one payload byte: must no longer verify; set_l4_checksum repairs it.
    f.back() ^= 0x5a;
    EXPECT_FALSE(csum::checksums_ok(f.data(), f.size())) << "frame " << i;
    EXPECT_TRUE(csum::set_l4_checksum(f.data(), f.size())) << i;
    EXPECT_TRUE(csum::checksums_ok(f.data(), f.size())) << "frame " << i;
  }
}

TEST(Checksum, LocateL4Offsets) {
  Bytes f = FrameBuilder().eth(kMacB, kMacA).vlan(10).ipv4(kIpA, kIpB).tcp(1, 2).payload(10).build();
  auto l = csum::locate_l4(f.data(), f.size());
  ASSERT_TRUE(l);
  EXPECT_EQ(l->l3_off, 18u);
  EXPECT_EQ(l->l4_off, 38u);
  EXPECT_EQ(l->l4_hdr_len, 20u);
  EXPECT_EQ(l->l4_len, 30u);
  EXPECT_EQ(l->proto, hdr::kProtoTcp);
  EXPECT_FALSE(l->ipv6);
  Bytes arp = FrameBuilder().eth(kMacB, kMacA).arp(1, kMacA, kIpA, MacAddr{}, kIpB).build();
  EXPECT_FALSE(csum::locate_l4(arp.data(), arp.size()));
  EXPECT_FALSE(csum::locate_l4(f.data(), 20));  // truncated inside IPv4
}

TEST(Checksum, Ipv4HeaderChecksum) {
  Bytes f = FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).udp(1, 2).payload(4).build();
  EXPECT_TRUE(csum::ipv4_header_checksum_ok(f.data() + 14, f.size() - 14));
  f[14 + 8] = 3;  // TTL
  EXPECT_FALSE(csum::ipv4_header_checksum_ok(f.data() + 14, f.size() - 14));
  csum::set_ipv4_header_checksum(f.data() + 14);
  EXPECT_TRUE(csum::ipv4_header_checksum_ok(f.data() + 14, f.size() - 14));
}

TEST(Checksum, CompletePartialGivesTheFullChecksum) {
  for (bool v6 : {false, true}) {
    for (bool udp : {false, true}) {
      FrameBuilder b;
      b.eth(kMacB, kMacA);
      if (v6)
        b.ipv6(kIp6A, kIp6B);
      else
        b.ipv4(kIpA, kIpB);
      if (udp)
        b.udp(4000, 4001);
      else
        b.tcp(4000, 4001, hdr::kTcpAck, 77);
      b.payload(999, 0x3c);
      Bytes full = b.build();
      Packet pkt;
      b.partial_csum().build_into(pkt);
      ASSERT_TRUE(pkt.offload.needs_csum());
      EXPECT_FALSE(csum::checksums_ok(pkt.data(), pkt.size()));
      // The field holds the folded pseudo-header sum.
      auto l = *csum::locate_l4(pkt.data(), pkt.size());
      size_t field = l.l4_off + (udp ? 6 : 16);
      EXPECT_EQ(load_be16(pkt.data() + field),
                csum::fold(csum::pseudo_header(pkt.data(), l, uint32_t(l.l4_len))));
      ASSERT_TRUE(csum::complete_partial(pkt));
      EXPECT_FALSE(pkt.offload.needs_csum());
      EXPECT_TRUE(csum::checksums_ok(pkt.data(), pkt.size()));
      EXPECT_EQ(Bytes(pkt.data(), pkt.data() + pkt.size()), full) << "v6 " << v6 << " udp " << udp;
    }
  }
}

TEST(Checksum, CompletePartialRejectsBadOffsets) {
  uint8_t f[40] = {};
  EXPECT_FALSE(csum::complete_partial(f, sizeof f, 34, 16));
  EXPECT_FALSE(csum::complete_partial(f, sizeof f, 60, 0));
  EXPECT_TRUE(csum::complete_partial(f, sizeof f, 20, 6));
  EXPECT_EQ(load_be16(f + 26), 0xffff);  // a zero result is sent as 0xffff
}

TEST(Checksum, PseudoHeaderMatchesManualSum) {
  uint8_t src[4] = {10, 0, 0, 1}, dst[4] = {10, 0, 0, 2};
  uint32_t s = csum::pseudo_header_v4(src, dst, 6, 40);
  EXPECT_EQ(csum::fold(s), uint16_t(0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 6 + 40));
  uint8_t a6[16] = {0x20, 0x01}, b6[16] = {0x20, 0x01};
  a6[15] = 1;
  b6[15] = 2;
  EXPECT_EQ(csum::fold(csum::pseudo_header_v6(a6, b6, 17, 0x10008)),
            csum::fold(0x2001 * 2 + 1 + 2 + 17 + 0x1 + 0x0008));
}

}  // namespace
}  // namespace flowlab

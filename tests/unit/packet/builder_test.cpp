// FrameBuilder output checked byte by byte and against the checksum module.
#include "packet/builder.h"

#include <gtest/gtest.h>

#include "packet/checksum.h"
#include "packet/csum_incremental.h"

namespace flowlab {
namespace {

MacAddr mac(uint64_t v) { return MacAddr::from_u64(v); }
Ipv4Addr ip4(const char* s) { return *Ipv4Addr::parse(s); }
Ipv6Addr ip6(const char* s) { return *Ipv6Addr::parse(s); }

TEST(Builder, Ipv4UdpLayoutAndChecksums) {
  Bytes b = FrameBuilder()
                .eth(mac(0x0a0b0c0d0e0f), mac(0x010203040506))
                .ipv4(ip4("192.168.0.1"), ip4("192.168.0.2"), 17)
                .udp(1000, 2000)
                .payload(4, 0x11)
                .build();
  ASSERT_EQ(b.size(), 14u + 20 + 8 + 4);
  EXPECT_EQ(to_hex(ByteSpan(b.data(), 14)), "0a0b0c0d0e0f0102030405060800");
  EXPECT_EQ(b[14], 0x45);
  EXPECT_EQ(load_be16(&b[16]), 32);  // total length
  EXPECT_EQ(b[22], 17);              // TTL
  EXPECT_EQ(b[23], 17);              // UDP
  EXPECT_EQ(load_be16(&b[38]), 12);  // UDP length
  EXPECT_TRUE(csum::checksums_ok(b.data(), b.size()));
  EXPECT_EQ(ipv4_header_checksum(b.data(), 14), load_be16(&b[24]));
}

TEST(Builder, TcpIcmpIpv6AndVlanChecksums) {
  std::vector<Bytes> frames = {
      FrameBuilder()
          .eth(mac(2), mac(1))
          .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
          .tcp(1, 2, hdr::kTcpSyn)
          .payload(33)
          .build(),
      FrameBuilder()
          .eth(mac(2), mac(1))
          .vlan(7, 1)
          .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
          .icmp(8, 0, 9, 10)
          .payload(56)
          .build(),
      FrameBuilder()
          .eth(mac(2), mac(1))
          .ipv6(ip6("2001:db8::1"), ip6("2001:db8::2"))
          .udp(3, 4)
          .payload(7)
          .build(),
      FrameBuilder()
          .eth(mac(2), mac(1))
          .ipv6(ip6("2001:db8::1"), ip6("2001:db8::2"))
          .icmp(128, 0)
          .payload(8)
          .build(),
      FrameBuilder()
          .eth(mac(2), mac(1))
          .ipv6(ip6("fe80::1"), ip6("ff02::1"))
          .nd(135, ip6("fe80::9"), mac(5))
          .build(),
  };
  for (const Bytes& f : frames) EXPECT_TRUE(csum::checksums_ok(f.data(), f.size())) << to_hex(f);
  EXPECT_EQ(load_be16(&frames[1][12]), 0x8100);
  EXPECT_EQ(load_be16(&frames[1][14]), 1 << 13 | 7);
  EXPECT_EQ(load_be16(&frames[1][16]), 0x0800);
}

TEST(Builder, PartialChecksumCompletesToTheFullOne) {
  FrameBuilder fb;
  fb.eth(mac(2), mac(1)).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).tcp(1, 2).payload(99);
  Bytes full = fb.build();
  Packet p(2048);
  fb.partial_csum().build_into(p);
  EXPECT_TRUE(p.offload.needs_csum());
  EXPECT_EQ(p.offload.csum_start, 34);
  EXPECT_EQ(p.offload.csum_offset, 16);
  EXPECT_FALSE(csum::checksums_ok(p.data(), p.size()));
  ASSERT_TRUE(csum::complete_partial(p));
  EXPECT_EQ(Bytes(p.data(), p.data() + p.size()), full);
}

TEST(Builder, SctpCrc32c) {
  // RFC 3720 B.4 test vector: 32 bytes of zeros -> 0x8a9136aa.
  Bytes zeros(32, 0);
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8a9136aau);
  Bytes b =
      FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("1.1.1.1"), ip4("2.2.2.2")).sctp(5, 6).payload(16).build();
  size_t l4 = 34;
  uint32_t stored = uint32_t(b[l4 + 8]) | uint32_t(b[l4 + 9]) << 8 | uint32_t(b[l4 + 10]) << 16 |
                    uint32_t(b[l4 + 11]) << 24;
  std::memset(&b[l4 + 8], 0, 4);
  EXPECT_EQ(crc32c(&b[l4], b.size() - l4), stored);
}

TEST(IncrementalChecksum, MatchesRecomputation) {
  Bytes b =
      FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).udp(1, 2).payload(10).build();
  uint8_t* ip = &b[14];
  uint32_t old_src = load_be32(ip + 12);
  uint32_t new_src = 0xc0a80101;
  store_be32(ip + 12, new_src);
  incsum::patch32(ip + 10, old_src, new_src, false);
  EXPECT_EQ(load_be16(ip + 10), ipv4_header_checksum(b.data(), 14));
  // 0xffff/0x0000 edge: RFC 1624 never produces -0 from +0 arithmetic.
  EXPECT_EQ(incsum::update_csum16(0x0000, 0x0000, 0x0000), 0x0000);
  EXPECT_EQ(incsum::update_sum16(incsum::update_sum16(0x1234, 0x1111, 0x2222), 0x2222, 0x1111), 0x1234);
}

}  // namespace
}  // namespace flowlab

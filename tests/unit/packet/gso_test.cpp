// Tests for packet/gso: software segmentation of GSO super-frames.
#include "packet/gso.h"

#include <gtest/gtest.h>

#include "packet/builder.h"
#include "packet/checksum.h"
#include "packet/headers.h"

namespace flowlab {
namespace {

const MacAddr kMacA = *MacAddr::parse("02:00:00:00:00:01");
const MacAddr kMacB = *MacAddr::parse("02:00:00:00:00:02");
const Ipv4Addr kIpA = *Ipv4Addr::parse("10.0.0.1");
const Ipv4Addr kIpB = *Ipv4Addr::parse("10.0.0.2");
const Ipv6Addr kIp6A = *Ipv6Addr::parse("2001:db8::1");
const Ipv6Addr kIp6B = *Ipv6Addr::parse("2001:db8::2");

Bytes pattern(size_t n) {
  Bytes b(n);
  for (size_t i = 0; i < n; ++i) b[i] = uint8_t(i * 7 + i / 251);
  return b;
}

struct Case {
  bool v6;
  bool vlan;
  size_t payload;
  uint16_t mss;
};

// Builds a TSO super-frame the way a veth hands it over: partial checksum, GSO metadata.
void make_tso(Packet& pkt, const Case& c, uint8_t flags, uint32_t seq, const Bytes& data) {
  FrameBuilder b;
  b.eth(kMacB, kMacA);
  if (c.vlan) b.vlan(42);
  if (c.v6)
    b.ipv6(kIp6A, kIp6B);
  else
    b.ipv4(kIpA, kIpB);
  b.tcp(40000, 5201, flags, seq).payload(ByteSpan(data)).partial_csum().build_into(pkt);
  auto l = *csum::locate_l4(pkt.data(), pkt.size());
  if (!c.v6) {  // a nonzero IP id to watch it increment
    store_be16(pkt.data() + l.l3_off + 4, 0xfffe);
    csum::set_ipv4_header_checksum(pkt.data() + l.l3_off);
  }
  pkt.offload.gso_type = c.v6 ? OffloadInfo::kGsoTcpv6 : OffloadInfo::kGsoTcpv4;
  pkt.offload.gso_size = c.mss;
  pkt.offload.hdr_len = uint16_t(l.l4_off + l.l4_hdr_len);
}

class GsoTcp : public ::testing::TestWithParam<Case> {};

TEST_P(GsoTcp, SegmentsReassembleAndVerify) {
  const Case c = GetParam();
  Bytes data = pattern(c.payload);
  const uint32_t seq0 = 0xfffff000;  // wraps
  const uint8_t flags = hdr::kTcpAck | hdr::kTcpPsh | hdr::kTcpFin | 0x80 /*CWR*/;
  Packet in;
  make_tso(in, c, flags, seq0, data);
  in.in_port = 7;
  size_t n = gso::segment_count(in);
  ASSERT_EQ(n, (c.payload + c.mss - 1) / c.mss);
  Bytes joined;
  for (size_t i = 0; i < n; ++i) {
    Packet seg;
    ASSERT_TRUE(gso::build_segment(in, i, seg, gso::CsumMode::kFull)) << i;
    const uint8_t* f = seg.data();
    auto l = csum::locate_l4(f, seg.size());
    ASSERT_TRUE(l);
    EXPECT_TRUE(csum::checksums_ok(f, seg.size())) << "segment " << i;
    EXPECT_FALSE(seg.offload.is_gso());
    EXPECT_FALSE(seg.offload.needs_csum());
    EXPECT_EQ(seg.in_port, 7u);
    size_t seglen = seg.size() - l->l4_off - l->l4_hdr_len;
    EXPECT_EQ(seglen, i + 1 < n ? c.mss : c.payload - (n - 1) * c.mss);
    if (c.v6) {
      EXPECT_EQ(load_be16(f + l->l3_off + 4), seg.size() - l->l3_off - 40);
    } else {
      EXPECT_EQ(load_be16(f + l->l3_off + 2), seg.size() - l->l3_off);
      EXPECT_EQ(load_be16(f + l->l3_off + 4), uint16_t(0xfffe + i));
    }
    const uint8_t* th = f + l->l4_off;
    EXPECT_EQ(load_be32(th + 4), uint32_t(seq0 + i * c.mss));
    uint8_t fl = th[13];
    bool last = i + 1 == n;
    EXPECT_EQ(bool(fl & hdr::kTcpFin), last) << i;
    EXPECT_EQ(bool(fl & hdr::kTcpPsh), last) << i;
    EXPECT_EQ(bool(fl & 0x80), i == 0) << i;
    EXPECT_TRUE(fl & hdr::kTcpAck);
    joined.insert(joined.end(), th + l->l4_hdr_len, f + seg.size());
  }
  EXPECT_EQ(joined, data);
}

TEST_P(GsoTcp, PartialModeLeavesValidPartialChecksums) {
  const Case c = GetParam();
  Bytes data = pattern(c.payload);
  Packet in;
  make_tso(in, c, hdr::kTcpAck, 1, data);
  size_t n = gso::segment_count(in);
  ASSERT_GT(n, 0u);
  for (size_t i = 0; i < n; ++i) {
    Packet seg;
    ASSERT_TRUE(gso::build_segment(in, i, seg, gso::CsumMode::kPartial));
    ASSERT_TRUE(seg.offload.needs_csum());
    EXPECT_FALSE(seg.offload.is_gso());
    ASSERT_TRUE(csum::complete_partial(seg));
    EXPECT_TRUE(csum::checksums_ok(seg.data(), seg.size())) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GsoTcp,
                         ::testing::Values(Case{false, false, 10000, 1448}, Case{false, true, 65000, 1448},
                                           Case{true, false, 20000, 1428}, Case{true, true, 4096, 1024},
                                           Case{false, false, 1448 * 3, 1448},
                                           Case{false, false, 100, 1448}));

TEST(Gso, UdpL4SegmentsAreDatagrams) {
  for (bool v6 : {false, true}) {
    Bytes data = pattern(5000);
    FrameBuilder b;
    b.eth(kMacB, kMacA);
    if (v6)
      b.ipv6(kIp6A, kIp6B);
    else
      b.ipv4(kIpA, kIpB);
    Packet in;
    b.udp(1234, 4321).payload(ByteSpan(data)).partial_csum().build_into(in);
    in.offload.gso_type = OffloadInfo::kGsoUdpL4;
    in.offload.gso_size = 1200;
    ASSERT_EQ(gso::segment_count(in), 5u);
    Bytes joined;
    for (size_t i = 0; i < 5; ++i) {
      Packet seg;
      ASSERT_TRUE(gso::build_segment(in, i, seg));
      auto l = *csum::locate_l4(seg.data(), seg.size());
      EXPECT_TRUE(csum::checksums_ok(seg.data(), seg.size())) << v6 << " " << i;
      EXPECT_EQ(load_be16(seg.data() + l.l4_off + 4), l.l4_len);
      EXPECT_EQ(l.l4_len, 8 + (i < 4 ? 1200u : 200u));
      joined.insert(joined.end(), seg.data() + l.l4_off + 8, seg.data() + seg.size());
    }
    EXPECT_EQ(joined, data);
  }
}

TEST(Gso, UfoFragmentsReassembleToAValidDatagram) {
  Bytes data = pattern(4000);
  Packet in;
  FrameBuilder()
      .eth(kMacB, kMacA)
      .ipv4(kIpA, kIpB)
      .udp(7, 9)
      .payload(ByteSpan(data))
      .partial_csum()
      .build_into(in);
  in.offload.gso_type = OffloadInfo::kGsoUdp;
  in.offload.gso_size = 1480;
  size_t n = gso::segment_count(in);
  ASSERT_EQ(n, 3u);  // 4008 bytes of UDP in 1480-byte fragments
  Bytes ip_payload;
  uint16_t id = 0;
  for (size_t i = 0; i < n; ++i) {
    Packet seg;
    ASSERT_TRUE(gso::build_segment(in, i, seg));
    const uint8_t* ip = seg.data() + 14;
    EXPECT_TRUE(csum::ipv4_header_checksum_ok(ip, seg.size() - 14));
    uint16_t frag = load_be16(ip + 6);
    EXPECT_EQ(size_t(frag & 0x1fff) * 8, ip_payload.size());
    EXPECT_EQ(bool(frag & 0x2000), i + 1 < n);
    EXPECT_EQ(load_be16(ip + 2), seg.size() - 14);
    if (i == 0) id = load_be16(ip + 4);
    EXPECT_EQ(load_be16(ip + 4), id);  // one datagram: same id
    ip_payload.insert(ip_payload.end(), seg.data() + 34, seg.data() + seg.size());
  }
  // Reassemble into one frame: the UDP checksum must verify over the whole datagram.
  Bytes whole(in.data(), in.data() + 34);
  whole.insert(whole.end(), ip_payload.begin(), ip_payload.end());
  store_be16(whole.data() + 14 + 6, 0);
  store_be16(whole.data() + 14 + 2, uint16_t(whole.size() - 14));
  csum::set_ipv4_header_checksum(whole.data() + 14);
  EXPECT_TRUE(csum::checksums_ok(whole.data(), whole.size()));
  EXPECT_EQ(Bytes(whole.begin() + 42, whole.end()), data);
}

TEST(Gso, RejectsWhatItCannotSegment) {
  Packet plain;
  FrameBuilder().eth(kMacB, kMacA).ipv4(kIpA, kIpB).tcp(1, 2).payload(3000).build_into(plain);
  EXPECT_EQ(gso::segment_count(plain), 0u);  // not GSO
  plain.offload.gso_type = OffloadInfo::kGsoTcpv4;
  plain.offload.gso_size = 0;
  EXPECT_EQ(gso::segment_count(plain), 0u);  // no size
  plain.offload.gso_size = 1000;
  EXPECT_EQ(gso::segment_count(plain), 3u);
  plain.offload.gso_type = OffloadInfo::kGsoUdpL4;  // type does not match the frame
  EXPECT_EQ(gso::segment_count(plain), 0u);
  Packet arp;
  FrameBuilder().eth(kMacB, kMacA).arp(1, kMacA, kIpA, MacAddr{}, kIpB).build_into(arp);
  arp.offload.gso_type = OffloadInfo::kGsoTcpv4;
  arp.offload.gso_size = 100;
  EXPECT_EQ(gso::segment_count(arp), 0u);
  // Output packet too small for a segment.
  plain.offload.gso_type = OffloadInfo::kGsoTcpv4;
  Packet tiny(64);
  EXPECT_FALSE(gso::build_segment(plain, 0, tiny));
  Packet ok;
  EXPECT_FALSE(gso::build_segment(plain, 3, ok));  // index out of range
}

}  // namespace
}  // namespace flowlab

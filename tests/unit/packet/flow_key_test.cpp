// Flow-key extraction over frames built by FrameBuilder: every header family,
// VLAN/MPLS stacks, IPv6 extension headers and ND, fragments, truncation.
#include "packet/flow_key.h"

#include <gtest/gtest.h>

#include "packet/builder.h"

namespace flowlab {
namespace {

MacAddr mac(uint64_t v) { return MacAddr::from_u64(v); }
Ipv4Addr ip4(const char* s) { return *Ipv4Addr::parse(s); }
Ipv6Addr ip6(const char* s) { return *Ipv6Addr::parse(s); }

struct Parsed {
  FlowKey k;
  PacketLayers l;
};
Parsed parse(const Bytes& b, uint32_t in_port = 7) {
  Parsed p;
  extract_flow_key(b.data(), b.size(), in_port, 0x55, 0x66, p.k, p.l);
  return p;
}

TEST(FlowKey, Ipv4Tcp) {
  Bytes b = FrameBuilder()
                .eth(mac(0x020000000002), mac(0x020000000001))
                .ipv4(ip4("10.1.2.3"), ip4("10.4.5.6"), 33, 0xb9)
                .tcp(1111, 22)
                .payload(5)
                .build();
  auto [k, l] = parse(b);
  EXPECT_EQ(k.in_port, 7u);
  EXPECT_EQ(k.metadata, 0x55u);
  EXPECT_EQ(k.tunnel_id, 0x66u);
  EXPECT_EQ(k.eth_dst[5], 2);
  EXPECT_EQ(k.eth_src[5], 1);
  EXPECT_EQ(k.eth_type, 0x0800);
  EXPECT_EQ(k.vlan_vid, 0);
  EXPECT_EQ(k.ip_proto, 6);
  EXPECT_EQ(k.ip_dscp, 0xb9 >> 2);
  EXPECT_EQ(k.ip_ecn, 1);
  EXPECT_EQ(k.ipv4_src, ip4("10.1.2.3").v);
  EXPECT_EQ(k.ipv4_dst, ip4("10.4.5.6").v);
  EXPECT_EQ(k.tp_src, 1111);
  EXPECT_EQ(k.tp_dst, 22);
  EXPECT_EQ(l.l3, 14);
  EXPECT_EQ(l.l4, 34);
  EXPECT_EQ(l.nw_ttl, 33);
  EXPECT_TRUE(l.ipv4);
}

TEST(FlowKey, DoubleVlanUdpAndIcmp) {
  Bytes b = FrameBuilder()
                .eth(mac(2), mac(1))
                .vlan(100, 3, 0x88a8)
                .vlan(200)
                .ipv4(ip4("1.1.1.1"), ip4("2.2.2.2"))
                .udp(53, 5353)
                .build();
  auto [k, l] = parse(b);
  EXPECT_EQ(k.vlan_vid, 0x1000 | 100);  // outermost tag
  EXPECT_EQ(k.vlan_pcp, 3);
  EXPECT_EQ(l.n_vlans, 2);
  EXPECT_EQ(l.eth_type_off, 20);
  EXPECT_EQ(k.eth_type, 0x0800);
  EXPECT_EQ(k.tp_src, 53);
  EXPECT_EQ(k.tp_dst, 5353);
  Bytes i = FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("1.1.1.1"), ip4("2.2.2.2")).icmp(8, 0).build();
  auto p = parse(i);
  EXPECT_EQ(p.k.ip_proto, 1);
  EXPECT_EQ(p.k.icmp_type, 8);
  EXPECT_EQ(p.k.tp_src, 0);
}

TEST(FlowKey, Arp) {
  Bytes b = FrameBuilder()
                .eth(mac(0xffffffffffff), mac(0x0a))
                .arp(1, mac(0x0a), ip4("10.0.0.1"), mac(0), ip4("10.0.0.2"))
                .build();
  auto [k, l] = parse(b);
  EXPECT_EQ(k.eth_type, 0x0806);
  EXPECT_EQ(k.arp_op, 1);
  EXPECT_EQ(k.arp_spa, ip4("10.0.0.1").v);
  EXPECT_EQ(k.arp_tpa, ip4("10.0.0.2").v);
  EXPECT_EQ(k.arp_sha[5], 0x0a);
  EXPECT_EQ(k.ipv4_src, 0u);
}

TEST(FlowKey, Ipv6TcpAndNeighborDiscovery) {
  Bytes b = FrameBuilder()
                .eth(mac(2), mac(1))
                .ipv6(ip6("2001:db8::1"), ip6("2001:db8::2"), 60, 0x28, 0xabcde)
                .tcp(80, 9000)
                .build();
  auto [k, l] = parse(b);
  EXPECT_EQ(k.eth_type, 0x86dd);
  EXPECT_EQ(k.ip_proto, 6);
  EXPECT_EQ(k.ip_dscp, 0x28 >> 2);
  EXPECT_EQ(k.ipv6_flabel, 0xabcdeu);
  EXPECT_EQ(k.ipv6_src[15], 1);
  EXPECT_EQ(k.ipv6_dst[15], 2);
  EXPECT_EQ(k.tp_dst, 9000);
  EXPECT_EQ(l.nw_ttl, 60);
  Bytes ns = FrameBuilder()
                 .eth(mac(2), mac(1))
                 .ipv6(ip6("fe80::1"), ip6("ff02::1:ff00:2"), 255)
                 .nd(135, ip6("fe80::2"), mac(0x0a0b0c0d0e0f))
                 .build();
  auto p = parse(ns);
  EXPECT_EQ(p.k.ip_proto, 58);
  EXPECT_EQ(p.k.icmp_type, 135);
  EXPECT_EQ(p.k.nd_target[15], 2);
  EXPECT_EQ(p.k.nd_sll[5], 0x0f);
  EXPECT_EQ(p.k.nd_tll[5], 0);
  Bytes na = FrameBuilder()
                 .eth(mac(2), mac(1))
                 .ipv6(ip6("fe80::2"), ip6("fe80::1"), 255)
                 .nd(136, ip6("fe80::2"), mac(0x0a0b0c0d0e0f))
                 .build();
  EXPECT_EQ(parse(na).k.nd_tll[5], 0x0f);
}

TEST(FlowKey, Ipv6ExtensionHeadersAndFragments) {
  // Hop-by-hop (8 bytes) then TCP.
  Bytes b = FrameBuilder().eth(mac(2), mac(1)).ipv6(ip6("::1"), ip6("::2")).build();
  b[14 + 6] = 0;  // next header: hop-by-hop
  Bytes hbh = {6, 0, 1, 4, 0, 0, 0, 0};
  b.insert(b.end(), hbh.begin(), hbh.end());
  Bytes tcp(20, 0);
  tcp[1] = 99;
  tcp[3] = 100;
  b.insert(b.end(), tcp.begin(), tcp.end());
  auto [k, l] = parse(b);
  EXPECT_EQ(k.ipv6_exthdr, 1 << 6);  // OFPIEH_HOP
  EXPECT_EQ(k.ip_proto, 6);
  EXPECT_EQ(k.tp_src, 99);
  EXPECT_EQ(k.tp_dst, 100);
  // IPv4 later fragment: no L4 fields.
  Bytes f = FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("1.1.1.1"), ip4("2.2.2.2")).udp(1, 2).build();
  store_be16(&f[14 + 6], 0x0010);
  auto p = parse(f);
  EXPECT_TRUE(p.l.frag);
  EXPECT_TRUE(p.l.later_frag);
  EXPECT_EQ(p.k.tp_src, 0);
  EXPECT_EQ(p.k.ip_proto, 17);
}

// IPv6 with a chain of extension headers (protocol numbers), then UDP 7 -> 9.
Bytes ipv6_chain(std::initializer_list<uint8_t> chain) {
  Bytes b = FrameBuilder().eth(mac(2), mac(1)).ipv6(ip6("::1"), ip6("::2")).build();
  const size_t next_at = 14 + 6;
  std::vector<uint8_t> types(chain);
  b[next_at] = types.empty() ? 17 : types[0];
  for (size_t i = 0; i < types.size(); ++i) {
    const uint8_t nh = i + 1 < types.size() ? types[i + 1] : 17;
    if (types[i] == 51) {  // AH: (len + 2) * 4 bytes
      Bytes ah = {nh, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1};
      b.insert(b.end(), ah.begin(), ah.end());
    } else if (types[i] == 50 || types[i] == 59) {
      Bytes rest(16, 0xee);  // ESP payload / nothing parsed after no-next-header
      b.insert(b.end(), rest.begin(), rest.end());
      return b;
    } else {  // hop-by-hop, routing, destination options, fragment (offset 0): 8 bytes
      Bytes e = {nh, 0, 0, 0, 0, 0, 0, 0};
      b.insert(b.end(), e.begin(), e.end());
    }
  }
  Bytes udp = {0, 7, 0, 9, 0, 8, 0, 0};
  b.insert(b.end(), udp.begin(), udp.end());
  return b;
}

TEST(FlowKey, Ipv6ExthdrEveryFlagOfTheSpec) {
  constexpr uint16_t kNoNext = 1, kEsp = 2, kAuth = 4, kDest = 8, kFrag = 16, kRouter = 32, kHop = 64;
  constexpr uint16_t kUnrep = 128, kUnseq = 256;
  struct C {
    std::initializer_list<uint8_t> chain;
    uint16_t want;
    bool udp;
  };
  const C cases[] = {
      {{}, 0, true},
      {{0}, kHop, true},
      {{0, 60, 43, 44, 51, 60},
       kHop | kDest | kRouter | kFrag | kAuth,
       true},  // the preferred order, dest twice
      {{60}, kDest, true},
      {{51}, kAuth, true},
      {{44}, kFrag, true},
      {{43}, kRouter, true},
      {{50}, kEsp, false},
      {{59}, kNoNext, false},
      {{0, 59}, kHop | kNoNext, false},
      {{60, 0}, kDest | kHop | kUnseq, true},  // hop-by-hop must come first
      {{44, 43}, kFrag | kRouter | kUnseq, true},
      {{51, 44}, kAuth | kFrag | kUnseq, true},
      {{43, 43}, kRouter | kUnrep, true},
      {{0, 0}, kHop | kUnrep | kUnseq, true},  // a second hop-by-hop is also not first
      {{60, 60}, kDest | kUnrep, true},        // twice, nothing between
      {{60, 43, 60, 60}, kDest | kRouter | kUnrep, true},
      {{44, 60, 43}, kFrag | kDest | kRouter | kUnseq, true},
  };
  for (const C& c : cases) {
    const Bytes b = ipv6_chain(c.chain);
    auto [k, l] = parse(b);
    std::string chain;
    for (uint8_t t : c.chain) chain += std::to_string(t) + " ";
    EXPECT_EQ(k.ipv6_exthdr, c.want) << "chain " << chain;
    if (c.udp) {
      EXPECT_EQ(k.ip_proto, 17) << "chain " << chain;
      EXPECT_EQ(k.tp_src, 7) << "chain " << chain;
      EXPECT_EQ(k.tp_dst, 9) << "chain " << chain;
    }
  }
}

TEST(FlowKey, MplsStack) {
  Bytes b = FrameBuilder()
                .eth(mac(2), mac(1))
                .mpls(100, 2, 9)
                .mpls(200, 0, 8)
                .ipv4(ip4("1.1.1.1"), ip4("2.2.2.2"), 7)
                .udp(1, 2)
                .build();
  auto [k, l] = parse(b);
  EXPECT_EQ(k.eth_type, 0x8847);
  EXPECT_EQ(k.mpls_label, 100u);
  EXPECT_EQ(k.mpls_tc, 2);
  EXPECT_EQ(k.mpls_bos, 0);
  EXPECT_EQ(l.n_mpls, 2);
  EXPECT_EQ(l.l2_5, 14);
  EXPECT_EQ(l.l3, 22);
  EXPECT_EQ(l.nw_ttl, 7);
  EXPECT_EQ(k.ipv4_src, 0u);  // not matched under MPLS
}

TEST(FlowKey, TruncatedFramesNeverReadPastTheEnd) {
  Bytes full = FrameBuilder().eth(mac(2), mac(1)).vlan(5).ipv6(ip6("::1"), ip6("::2")).tcp(1, 2).build();
  for (size_t n = 0; n <= full.size(); ++n) {
    Bytes cut(full.begin(), full.begin() + long(n));
    auto p = parse(cut);  // ASan catches any over-read
    if (n < 58 + 4) {
      EXPECT_EQ(p.k.tp_dst, 0) << n;  // L4 ports need 4 bytes of TCP
    }
  }
  EXPECT_EQ(parse(full).k.tp_dst, 2);
}

}  // namespace
}  // namespace flowlab

// Set-field on every field OF1.3 allows: for each one, a flow in table 0 sets
// it and goes to table 1, where a flow matches the new value (so later tables
// see it) and outputs; the frame that leaves is compared byte for byte with
// one built from scratch with the new value (so every dependent checksum is
// checked). in_port, in_phy_port, metadata and ipv6_exthdr are refused.
#include <gtest/gtest.h>

#include <string>

#include "packet/checksum.h"
#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

const MacAddr kA = mac(0x0a0000000001), kB = mac(0x0a0000000002);

struct Case {
  of::OxmField set;
  of::Match pre;  // what the frame matches in table 0 (the field's prerequisites)
  Bytes in, out;
};

of::Match m(std::initializer_list<of::OxmField> fs) {
  of::Match r;
  for (const auto& x : fs) r.add(x);
  return r;
}
of::OxmField bytes_field(OxmId id, ByteSpan v) { return of::OxmField::basic_bytes(id, v); }

FrameBuilder eth() {
  FrameBuilder b;
  b.eth(kB, kA);
  return b;
}
Bytes tcp4(uint16_t sp = 1000, uint16_t dp = 80, const char* s = "10.0.0.1", const char* d = "10.0.0.2",
           uint8_t tos = 0) {
  return eth().ipv4(ip4(s), ip4(d), 64, tos).tcp(sp, dp).payload(20).build();
}
Bytes udp4(uint16_t sp = 1000, uint16_t dp = 53) {
  return eth().ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).udp(sp, dp).payload(20).build();
}
Bytes sctp4(uint16_t sp = 1000, uint16_t dp = 2000) {
  return eth().ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).sctp(sp, dp).payload(20).build();
}
Bytes udp6(const char* s = "2001:db8::1", const char* d = "2001:db8::2", uint32_t fl = 0, uint8_t tc = 0) {
  return eth().ipv6(ip6(s), ip6(d), 64, tc, fl).udp(5, 6).payload(20).build();
}
Bytes icmp4(uint8_t t = 8, uint8_t c = 0) {
  return eth().ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).icmp(t, c).payload(20).build();
}
Bytes icmp6(uint8_t t = 128, uint8_t c = 0) {
  return eth().ipv6(ip6("2001:db8::1"), ip6("2001:db8::2")).icmp(t, c).payload(20).build();
}
Bytes nd(uint8_t type, const char* target, uint64_t ll) {
  return eth().ipv6(ip6("fe80::1"), ip6("ff02::1:ff00:2"), 255).nd(type, ip6(target), mac(ll)).build();
}
Bytes arp(uint16_t op = 1, MacAddr sha = kA, const char* spa = "10.0.0.1", MacAddr tha = mac(0),
          const char* tpa = "10.0.0.2") {
  return eth().arp(op, sha, ip4(spa), tha, ip4(tpa)).payload(18, 0).build();
}
Bytes vlan(uint16_t vid, uint8_t pcp) {
  return eth().vlan(vid, pcp).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).udp(1, 2).payload(20).build();
}
Bytes mpls(uint32_t label, uint8_t tc, uint8_t ttl = 64, bool bos = true) {
  Bytes b = eth().mpls(label, tc, ttl).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).udp(1, 2).payload(20).build();
  if (!bos) b[16] &= 0xfe;
  return b;
}

// The transport checksum at l4 + coff of frame b as it must read once the
// pseudo-header names `proto` (what set-field ip_proto leaves behind).
void restamp_l4(Bytes& b, size_t l3, size_t l4, bool v6, uint8_t proto, size_t coff) {
  store_be16(b.data() + l4 + coff, 0);
  const uint8_t* ip = b.data() + l3;
  using namespace csum;
  uint32_t s = v6 ? pseudo_header_v6(ip + 8, ip + 24, proto, uint32_t(b.size() - l4))
                  : pseudo_header_v4(ip + 12, ip + 16, proto, uint32_t(b.size() - l4));
  store_be16(b.data() + l4 + coff, finish(sum_bytes(b.data() + l4, b.size() - l4, s)));
}

constexpr uint64_t kIp = 0x0800, kIp6 = 0x86dd, kArp = 0x0806;

std::vector<Case> cases() {
  const Ipv6Addr v6 = ip6("2001:db8::99");
  const Ipv6Addr tgt = ip6("fe80::77");
  const MacAddr ll = mac(0x020000000055);
  const MacAddr m9 = mac(0x020000000099);
  std::vector<Case> v;
  v.push_back(
      {bytes_field(OxmId::kEthDst, m9.b),
       {},
       tcp4(),
       FrameBuilder().eth(m9, kA).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).tcp(1000, 80).payload(20).build()});
  v.push_back(
      {bytes_field(OxmId::kEthSrc, m9.b),
       {},
       tcp4(),
       FrameBuilder().eth(kB, m9).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).tcp(1000, 80).payload(20).build()});
  {
    // eth_type: IPv4 relabelled as an experimental type; table 1 matches the new type.
    Bytes out = tcp4();
    store_be16(out.data() + 12, 0x88b5);
    v.push_back({f(OxmId::kEthType, 0x88b5), m({f(OxmId::kEthType, kIp)}), tcp4(), out});
  }
  v.push_back(
      {f(OxmId::kVlanVid, 0x1000 | 99), m({fm_(OxmId::kVlanVid, 0x1000, 0x1000)}), vlan(10, 3), vlan(99, 3)});
  v.push_back({f(OxmId::kVlanPcp, 6), m({fm_(OxmId::kVlanVid, 0x1000, 0x1000)}), vlan(10, 3), vlan(10, 6)});
  v.push_back({f(OxmId::kIpDscp, 46), m({f(OxmId::kEthType, kIp)}), tcp4(),
               tcp4(1000, 80, "10.0.0.1", "10.0.0.2", 46 << 2)});
  v.push_back(
      {f(OxmId::kIpEcn, 3), m({f(OxmId::kEthType, kIp)}), tcp4(), tcp4(1000, 80, "10.0.0.1", "10.0.0.2", 3)});
  {
    // ip_proto: TCP relabelled UDP-lite (136); IPv4 header checksum and the
    // pseudo-header sum in the (old) TCP checksum both follow.
    Bytes out = tcp4();
    out[14 + 9] = 136;
    store_be16(out.data() + 14 + 10, 0);
    store_be16(out.data() + 14 + 10, ipv4_header_checksum(out.data(), 14));
    restamp_l4(out, 14, 34, false, 136, hdr::kTcpCsumOff);
    v.push_back({f(OxmId::kIpProto, 136), m({f(OxmId::kEthType, kIp)}), tcp4(), out});
  }
  {
    Bytes out = udp6();
    out[14 + 6] = 136;  // next header
    restamp_l4(out, 14, 54, true, 136, hdr::kUdpCsumOff);
    v.push_back({f(OxmId::kIpProto, 136), m({f(OxmId::kEthType, kIp6)}), udp6(), out});
  }
  v.push_back({f(OxmId::kIpv4Src, ip4("192.168.1.1").v), m({f(OxmId::kEthType, kIp)}), tcp4(),
               tcp4(1000, 80, "192.168.1.1")});
  v.push_back({f(OxmId::kIpv4Dst, ip4("192.168.1.2").v), m({f(OxmId::kEthType, kIp)}), tcp4(),
               tcp4(1000, 80, "10.0.0.1", "192.168.1.2")});
  const of::Match tcp = m({f(OxmId::kEthType, kIp), f(OxmId::kIpProto, 6)});
  const of::Match udp = m({f(OxmId::kEthType, kIp), f(OxmId::kIpProto, 17)});
  const of::Match sctp = m({f(OxmId::kEthType, kIp), f(OxmId::kIpProto, 132)});
  v.push_back({f(OxmId::kTcpSrc, 7), tcp, tcp4(), tcp4(7, 80)});
  v.push_back({f(OxmId::kTcpDst, 8), tcp, tcp4(), tcp4(1000, 8)});
  v.push_back({f(OxmId::kUdpSrc, 9), udp, udp4(), udp4(9, 53)});
  v.push_back({f(OxmId::kUdpDst, 10), udp, udp4(), udp4(1000, 10)});
  v.push_back({f(OxmId::kSctpSrc, 11), sctp, sctp4(), sctp4(11, 2000)});
  v.push_back({f(OxmId::kSctpDst, 12), sctp, sctp4(), sctp4(1000, 12)});
  const of::Match icmpm = m({f(OxmId::kEthType, kIp), f(OxmId::kIpProto, 1)});
  v.push_back({f(OxmId::kIcmpv4Type, 0), icmpm, icmp4(), icmp4(0, 0)});
  v.push_back({f(OxmId::kIcmpv4Code, 5), icmpm, icmp4(), icmp4(8, 5)});
  const of::Match arpm = m({f(OxmId::kEthType, kArp)});
  v.push_back({f(OxmId::kArpOp, 2), arpm, arp(), arp(2)});
  v.push_back({f(OxmId::kArpSpa, ip4("10.9.9.9").v), arpm, arp(), arp(1, kA, "10.9.9.9")});
  v.push_back(
      {f(OxmId::kArpTpa, ip4("10.8.8.8").v), arpm, arp(), arp(1, kA, "10.0.0.1", mac(0), "10.8.8.8")});
  v.push_back({bytes_field(OxmId::kArpSha, m9.b), arpm, arp(), arp(1, m9)});
  v.push_back({bytes_field(OxmId::kArpTha, m9.b), arpm, arp(), arp(1, kA, "10.0.0.1", m9)});
  const of::Match ip6m = m({f(OxmId::kEthType, kIp6)});
  v.push_back({bytes_field(OxmId::kIpv6Src, v6.b), ip6m, udp6(), udp6("2001:db8::99")});
  v.push_back({bytes_field(OxmId::kIpv6Dst, v6.b), ip6m, udp6(), udp6("2001:db8::1", "2001:db8::99")});
  v.push_back({f(OxmId::kIpv6Flabel, 0xabcde), ip6m, udp6(), udp6("2001:db8::1", "2001:db8::2", 0xabcde)});
  const of::Match icmp6m = m({f(OxmId::kEthType, kIp6), f(OxmId::kIpProto, 58)});
  v.push_back({f(OxmId::kIcmpv6Type, 129), icmp6m, icmp6(), icmp6(129, 0)});
  v.push_back({f(OxmId::kIcmpv6Code, 3), icmp6m, icmp6(), icmp6(128, 3)});
  const of::Match ns = m({f(OxmId::kEthType, kIp6), f(OxmId::kIpProto, 58), f(OxmId::kIcmpv6Type, 135)});
  const of::Match na = m({f(OxmId::kEthType, kIp6), f(OxmId::kIpProto, 58), f(OxmId::kIcmpv6Type, 136)});
  v.push_back({bytes_field(OxmId::kIpv6NdTarget, tgt.b), ns, nd(135, "fe80::2", 0x0a0000000001),
               nd(135, "fe80::77", 0x0a0000000001)});
  v.push_back({bytes_field(OxmId::kIpv6NdSll, ll.b), ns, nd(135, "fe80::2", 0x0a0000000001),
               nd(135, "fe80::2", 0x020000000055)});
  v.push_back({bytes_field(OxmId::kIpv6NdTll, ll.b), na, nd(136, "fe80::2", 0x0a0000000001),
               nd(136, "fe80::2", 0x020000000055)});
  const of::Match mplsm = m({f(OxmId::kEthType, 0x8847)});
  v.push_back({f(OxmId::kMplsLabel, 0xabcde), mplsm, mpls(100, 1), mpls(0xabcde, 1)});
  v.push_back({f(OxmId::kMplsTc, 6), mplsm, mpls(100, 1), mpls(100, 6)});
  v.push_back({f(OxmId::kMplsBos, 0), mplsm, mpls(100, 1), mpls(100, 1, 64, false)});
  const of::Match pbbm = m({f(OxmId::kEthType, 0x88e7)});
  v.push_back({f(OxmId::kPbbIsid, 0x654321), pbbm, pbb_frame(tcp4(), 0x123456), pbb_frame(tcp4(), 0x654321)});
  v.push_back(
      {f(OxmId::kPbbUca, 1), pbbm, pbb_frame(tcp4(), 0x123456), pbb_frame(tcp4(), 0x123456, 0, true)});
  v.push_back({f(OxmId::kTunnelId, 0x1122334455), {}, tcp4(), tcp4()});
  return v;
}

TEST(SetField, EveryFieldTheSpecAllowsChangesTheBytesAndLaterTablesSeeIt) {
  std::set<int> covered;
  for (const Case& c : cases()) {
    const std::string name(of::oxm_info(c.set.id())->name);
    SCOPED_TRACE(name);
    covered.insert(c.set.field);
    Rig rig;
    of::FlowMod t0 = add_flow(0, 10, c.pre, {Action::set_field(c.set)});
    t0.instructions.push_back(of::Instruction::goto_table(1));
    rig.add(t0);
    of::Match post;  // the prerequisites (minus the field itself) and the new value
    for (const of::OxmField& x : c.pre.fields)
      if (!x.is(c.set.id())) post.add(x);
    if (c.set.is(OxmId::kEthType)) post.fields.clear();
    post.add(c.set);
    rig.add(add_flow(1, 10, post, {Action::output(2)}));
    rig.send(c.in, 1);
    ASSERT_EQ(rig.out.sent.size(), 1u) << "table 1 did not see " << name << " set";
    Bytes want = c.out;
    if (want.size() < 60) want.resize(60, 0);
    const Bytes& got = rig.out.sent[0].data;
    size_t diff = 0;
    while (diff < got.size() && diff < want.size() && got[diff] == want[diff]) ++diff;
    EXPECT_TRUE(got == want) << "sizes " << got.size() << "/" << want.size() << ", first difference at "
                             << diff;
  }
  // Every basic field is covered here except the four the spec does not let one
  // set and OpenFlow 1.5's three (tcp_flags, actset_output, packet_type).
  for (int i = 0; i < of::kNumBasicOxm; ++i) {
    const auto id = OxmId(i);
    if (!of::oxm_info(id)) continue;
    const bool refused = id == OxmId::kInPort || id == OxmId::kInPhyPort || id == OxmId::kMetadata ||
                         id == OxmId::kIpv6Exthdr || id == OxmId::kTcpFlags || id == OxmId::kActsetOutput ||
                         id == OxmId::kPacketType;
    EXPECT_EQ(covered.count(i) == 0, refused) << of::oxm_info(id)->name;
  }
}

TEST(SetField, PipelineFieldsAndExthdrAreRefused) {
  Rig rig;
  for (OxmId id : {OxmId::kInPort, OxmId::kInPhyPort, OxmId::kMetadata, OxmId::kIpv6Exthdr, OxmId::kTcpFlags,
                   OxmId::kActsetOutput, OxmId::kPacketType}) {
    of::Match pre;
    if (id == OxmId::kIpv6Exthdr) pre.add(f(OxmId::kEthType, kIp6));
    if (id == OxmId::kTcpFlags) pre.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 6));
    auto r = rig.dp.flow_mod(add_flow(0, 1, pre, {Action::set_field(f(id, 1))}), rig.now);
    ASSERT_FALSE(r.ok()) << of::oxm_info(id)->name;
    EXPECT_EQ(r.error().code, uint16_t(of::BadActionCode::kBadSetType));
  }
}

}  // namespace
}  // namespace flowlab::dp

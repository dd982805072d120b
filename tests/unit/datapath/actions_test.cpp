// Every action: set-field on each field family with checksum fix-ups (full and
// partial/offload), push/pop VLAN and MPLS, TTL actions, set_queue, outputs.
#include <gtest/gtest.h>

#include "packet/checksum.h"
#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

of::Match tcp_match() {
  of::Match m;
  m.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 6));
  return m;
}

FlowKey key_of(const Bytes& b) {
  FlowKey k;
  PacketLayers l;
  extract_flow_key(b.data(), b.size(), 0, 0, 0, k, l);
  return k;
}

TEST(Actions, SetFieldIpv4AndPortsKeepChecksumsValid) {
  Rig r;
  r.add(add_flow(
      0, 1, tcp_match(),
      {Action::set_field(f(OxmId::kIpv4Src, ip4("192.168.7.7").v)),
       Action::set_field(f(OxmId::kIpv4Dst, ip4("172.16.0.9").v)), Action::set_field(f(OxmId::kTcpSrc, 4321)),
       Action::set_field(f(OxmId::kTcpDst, 8080)), Action::set_field(f(OxmId::kIpDscp, 46)),
       Action::set_field(f(OxmId::kIpEcn, 1)), Action::output(2)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.sent.size(), 1u);
  const Bytes& o = r.out.sent[0].data;
  FlowKey k = key_of(o);
  EXPECT_EQ(k.ipv4_src, ip4("192.168.7.7").v);
  EXPECT_EQ(k.ipv4_dst, ip4("172.16.0.9").v);
  EXPECT_EQ(k.tp_src, 4321);
  EXPECT_EQ(k.tp_dst, 8080);
  EXPECT_EQ(k.ip_dscp, 46);
  EXPECT_EQ(k.ip_ecn, 1);
  EXPECT_TRUE(csum::checksums_ok(o.data(), o.size()));
  EXPECT_EQ(o, FrameBuilder()
                   .eth(mac(0x0a0000000002), mac(0x0a0000000001))
                   .ipv4(ip4("192.168.7.7"), ip4("172.16.0.9"), 64, 46 << 2 | 1)
                   .tcp(4321, 8080)
                   .payload(20)
                   .build());
}

TEST(Actions, SetFieldUdpIpv6Icmp) {
  Rig r;
  of::Match udp;
  udp.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 17));
  r.add(add_flow(0, 1, udp,
                 {Action::set_field(f(OxmId::kUdpDst, 5353)),
                  Action::set_field(f(OxmId::kIpv4Src, 0x01020304)), Action::output(2)}));
  of::Match v6;
  v6.add(f(OxmId::kEthType, 0x86dd)).add(f(OxmId::kIpProto, 6));
  auto dst6 = ip6("2001:db8::99");
  r.add(add_flow(0, 1, v6,
                 {Action::set_field(of::OxmField::basic_bytes(OxmId::kIpv6Dst, dst6.b)),
                  Action::set_field(f(OxmId::kIpv6Flabel, 0x12345)), Action::output(3)}));
  of::Match icmp;
  icmp.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 1));
  r.add(add_flow(0, 1, icmp, {Action::set_field(f(OxmId::kIcmpv4Type, 0)), Action::output(4)}));
  r.send(udp_frame());
  r.send(FrameBuilder()
             .eth(mac(2), mac(1))
             .ipv6(ip6("2001:db8::1"), ip6("2001:db8::2"))
             .tcp(1, 2)
             .payload(10)
             .build());
  r.send(
      FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("1.1.1.1"), ip4("2.2.2.2")).icmp(8, 0).payload(8).build());
  ASSERT_EQ(r.out.sent.size(), 3u);
  for (const auto& s : r.out.sent) EXPECT_TRUE(csum::checksums_ok(s.data.data(), s.data.size())) << s.port;
  EXPECT_EQ(key_of(r.out.sent[0].data).tp_dst, 5353);
  FlowKey k6 = key_of(r.out.sent[1].data);
  EXPECT_EQ(0, std::memcmp(k6.ipv6_dst, dst6.b.data(), 16));
  EXPECT_EQ(k6.ipv6_flabel, 0x12345u);
  EXPECT_EQ(key_of(r.out.sent[2].data).icmp_type, 0);
}

TEST(Actions, PartialChecksumGetsPseudoHeaderUpdate) {
  // A veth with offloads hands over a TCP segment whose checksum field holds only
  // the pseudo-header sum. After NAT-style rewrites the field must hold the new
  // pseudo-header sum, so completing it yields a valid checksum.
  Rig r;
  r.add(add_flow(
      0, 1, tcp_match(),
      {Action::set_field(f(OxmId::kIpv4Dst, ip4("10.9.9.9").v)), Action::set_field(f(OxmId::kTcpDst, 443)),
       Action::push_vlan(0x8100), Action::set_field(f(OxmId::kVlanVid, 0x1000 | 7)), Action::output(2)}));
  Packet p(4096);
  FrameBuilder()
      .eth(mac(2), mac(1))
      .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
      .tcp(1000, 80)
      .payload(100)
      .partial_csum()
      .build_into(p);
  ASSERT_TRUE(p.offload.needs_csum());
  const uint16_t start = p.offload.csum_start;
  r.send(Bytes(p.data(), p.data() + p.size()), 1, p.offload);
  ASSERT_EQ(r.out.sent.size(), 1u);
  Sent s = r.out.sent[0];
  EXPECT_EQ(s.offload.csum_start, start + 4);  // shifted by the pushed VLAN tag
  EXPECT_EQ(s.offload.csum_offset, hdr::kTcpCsumOff);
  ASSERT_TRUE(
      csum::complete_partial(s.data.data(), s.data.size(), s.offload.csum_start, s.offload.csum_offset));
  EXPECT_TRUE(csum::checksums_ok(s.data.data(), s.data.size()));
  FlowKey k = key_of(s.data);
  EXPECT_EQ(k.vlan_vid, 0x1000 | 7);
  EXPECT_EQ(k.ipv4_dst, ip4("10.9.9.9").v);
  EXPECT_EQ(k.tp_dst, 443);
}

TEST(Actions, SetFieldL2ArpAndVlanPcp) {
  Rig r;
  of::Match arp;
  arp.add(f(OxmId::kEthType, 0x0806));
  r.add(add_flow(
      0, 1, arp,
      {Action::set_field(f(OxmId::kEthDst, 0x112233445566)),
       Action::set_field(f(OxmId::kEthSrc, 0x0a0b0c0d0e0f)), Action::set_field(f(OxmId::kArpOp, 2)),
       Action::set_field(f(OxmId::kArpSpa, 0x0a000063)), Action::set_field(f(OxmId::kArpTpa, 0x0a000001)),
       Action::set_field(f(OxmId::kArpSha, 0x020000000063)),
       Action::set_field(f(OxmId::kArpTha, 0x020000000001)), Action::output(2)}));
  r.send(FrameBuilder()
             .eth(mac(0xffffffffffff), mac(1))
             .arp(1, mac(1), ip4("10.0.0.1"), mac(0), ip4("10.0.0.99"))
             .build());
  ASSERT_EQ(r.out.sent.size(), 1u);
  FlowKey k = key_of(r.out.sent[0].data);
  EXPECT_EQ(MacAddr::from_u64(0x112233445566).b,
            (std::array<uint8_t, 6>{k.eth_dst[0], k.eth_dst[1], k.eth_dst[2], k.eth_dst[3], k.eth_dst[4],
                                    k.eth_dst[5]}));
  EXPECT_EQ(k.arp_op, 2);
  EXPECT_EQ(k.arp_spa, 0x0a000063u);
  EXPECT_EQ(k.arp_tpa, 0x0a000001u);
  EXPECT_EQ(k.arp_sha[5], 0x63);
  EXPECT_EQ(k.arp_tha[5], 0x01);
}

TEST(Actions, PushPopVlanAndPcp) {
  Rig r;
  of::Match tagged;
  tagged.add(f(OxmId::kVlanVid, 0x1000 | 10));
  r.add(add_flow(0, 5, tagged, {Action::pop_vlan(), Action::output(2)}));
  r.add(add_flow(0, 1, {},
                 {Action::push_vlan(0x88a8), Action::set_field(f(OxmId::kVlanVid, 0x1000 | 20)),
                  Action::set_field(f(OxmId::kVlanPcp, 5)), Action::output(3)}));
  Bytes plain = tcp_frame();
  Bytes tagged_frame = FrameBuilder()
                           .eth(mac(0x0a0000000002), mac(0x0a0000000001))
                           .vlan(10)
                           .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
                           .tcp(1234, 80)
                           .payload(20)
                           .build();
  r.send(tagged_frame);
  r.send(plain);
  ASSERT_EQ(r.out.sent.size(), 2u);
  EXPECT_EQ(r.out.sent[0].data, plain);  // popped: identical to the untagged frame
  const Bytes& o = r.out.sent[1].data;
  ASSERT_EQ(o.size(), plain.size() + 4);
  EXPECT_EQ(load_be16(&o[12]), 0x88a8);
  EXPECT_EQ(load_be16(&o[14]), 5 << 13 | 20);
  EXPECT_EQ(load_be16(&o[16]), 0x0800);
}

TEST(Actions, MplsPushSetTtlPop) {
  Rig r;
  of::Match ip = match_ip_dst("10.0.0.2");
  r.add(add_flow(0, 5, ip,
                 {Action::push_mpls(0x8847), Action::set_field(f(OxmId::kMplsLabel, 1000)),
                  Action::set_field(f(OxmId::kMplsTc, 3)), Action::simple(of::ActionType::kDecMplsTtl),
                  Action::output(2)}));
  of::Match mpls;
  mpls.add(f(OxmId::kEthType, 0x8847)).add(f(OxmId::kMplsLabel, 1000));
  r.add(add_flow(0, 5, mpls,
                 {Action::simple(of::ActionType::kCopyTtlIn), Action::pop_mpls(0x0800), Action::output(3)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.sent.size(), 1u);
  Bytes labelled = r.out.sent[0].data;
  FlowKey k = key_of(labelled);
  EXPECT_EQ(k.eth_type, 0x8847);
  EXPECT_EQ(k.mpls_label, 1000u);
  EXPECT_EQ(k.mpls_tc, 3);
  EXPECT_EQ(k.mpls_bos, 1);
  EXPECT_EQ(labelled[14 + 3], 63);  // TTL copied from IP (64) then decremented
  r.send(labelled, 2);
  ASSERT_EQ(r.out.sent.size(), 2u);
  const Bytes& back = r.out.sent[1].data;
  EXPECT_EQ(back.size(), tcp_frame().size());
  EXPECT_EQ(back[14 + 8], 63);  // copy_ttl_in wrote the MPLS TTL into IP
  EXPECT_TRUE(csum::checksums_ok(back.data(), back.size()));
}

TEST(Actions, NwTtlAndInvalidTtl) {
  Rig r;
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"),
                 {Action::simple(of::ActionType::kDecNwTtl), Action::output(2)}));
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.3"), {Action::set_nw_ttl(9), Action::output(2)}));
  r.send(tcp_frame());
  r.send(tcp_frame("10.0.0.1", "10.0.0.3"));
  ASSERT_EQ(r.out.sent.size(), 2u);
  EXPECT_EQ(r.out.sent[0].data[14 + 8], 63);
  EXPECT_EQ(r.out.sent[1].data[14 + 8], 9);
  for (const auto& s : r.out.sent) EXPECT_TRUE(csum::checksums_ok(s.data.data(), s.data.size()));
  Bytes ttl1 = FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"), 1).udp(1, 2).build();
  r.send(ttl1);  // dropped, not reported
  EXPECT_EQ(r.out.sent.size(), 2u);
  EXPECT_TRUE(r.ctl.ins.empty());
  r.dp.set_switch_config({4, 128});  // OFPC_INVALID_TTL_TO_CONTROLLER
  r.send(ttl1);
  EXPECT_EQ(r.out.sent.size(), 2u);
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.reason, of::PacketInReason::kInvalidTtl);
  EXPECT_EQ(r.dp.counters().invalid_ttl, 2u);
}

TEST(Actions, OutputsReservedPortsAndQueue) {
  Rig r;
  r.ports.ports = {1, 2, 3, 5};
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::output(of::port::kFlood)}));
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.3"),
                 {Action::output(of::port::kInPort), Action::output(1), Action::set_queue(7),
                  Action::output(of::port::kLocal)}));
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.4"), {Action::output(of::port::kController, 32)}));
  r.send(tcp_frame(), 2);
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{1, 3, 5}));
  r.out.sent.clear();
  r.send(tcp_frame("10.0.0.1", "10.0.0.3"), 1);  // output:1 to the in_port itself is dropped
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{1, of::port::kLocal}));
  EXPECT_EQ(r.out.sent[0].queue, 0u);
  EXPECT_EQ(r.out.sent[1].queue, 7u);
  r.send(tcp_frame("10.0.0.1", "10.0.0.4"), 2);
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.reason, of::PacketInReason::kAction);
  EXPECT_EQ(r.ctl.ins[0].info.max_len, 32);
}

TEST(Actions, PacketOutToTableAndPorts) {
  Rig r;
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::output(4)}));
  ASSERT_TRUE(r.dp.validate_packet_out({Action::output(of::port::kTable)}).ok());
  auto bad = r.dp.validate_packet_out({Action::group(3)});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, uint16_t(of::BadActionCode::kBadOutGroup));
  Packet p(4096);
  Bytes fr = tcp_frame();
  p.assign(fr.data(), fr.size());
  p.in_port = of::port::kController;
  r.dp.packet_out(r.ctx, p, {Action::output(of::port::kTable)}, r.now);
  ASSERT_EQ(r.out.ports(), std::vector<uint32_t>{4});
  p.assign(fr.data(), fr.size());
  p.in_port = of::port::kController;
  r.dp.packet_out(r.ctx, p, {Action::output(of::port::kAll)}, r.now);
  EXPECT_EQ(r.out.sent.size(), 5u);  // 4 + ports 1..4
}

TEST(Actions, SetFieldSctpNdAndTunnel) {
  Rig r;
  of::Match sctp;
  sctp.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 132));
  r.add(add_flow(0, 1, sctp, {Action::set_field(f(OxmId::kSctpDst, 9999)), Action::output(2)}));
  of::Match ns;
  ns.add(f(OxmId::kEthType, 0x86dd)).add(f(OxmId::kIpProto, 58)).add(f(OxmId::kIcmpv6Type, 135));
  auto target = ip6("fe80::77");
  r.add(add_flow(0, 1, ns,
                 {Action::set_field(of::OxmField::basic_bytes(OxmId::kIpv6NdTarget, target.b)),
                  Action::set_field(f(OxmId::kIpv6NdSll, 0x0200000000ee)), Action::output(3)}));
  // tunnel_id and metadata are pipeline fields: a later table matches them and the
  // controller sees them in the packet-in match.
  of::FlowMod t0 = add_flow(0, 1, match_ip_dst("10.0.0.2"), {Action::set_field(f(OxmId::kTunnelId, 0x42))});
  t0.instructions.push_back(of::Instruction::write_metadata(0x9, 0xff));
  t0.instructions.push_back(of::Instruction::goto_table(1));
  r.add(t0);
  of::Match tun;
  tun.add(f(OxmId::kTunnelId, 0x42)).add(f(OxmId::kMetadata, 0x9));
  r.add(add_flow(1, 1, tun, {Action::output(of::port::kController, 0xffff)}));

  r.send(
      FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("1.1.1.1"), ip4("2.2.2.2")).sctp(5, 6).payload(16).build());
  r.send(FrameBuilder()
             .eth(mac(2), mac(1))
             .ipv6(ip6("fe80::1"), ip6("ff02::1:ff00:2"), 255)
             .nd(135, ip6("fe80::2"), mac(0x0a0b0c0d0e0f))
             .build());
  r.send(tcp_frame());
  ASSERT_EQ(r.out.sent.size(), 2u);
  Bytes sc = r.out.sent[0].data;
  EXPECT_EQ(key_of(sc).tp_dst, 9999);
  size_t l4 = 34;
  uint32_t stored = uint32_t(sc[l4 + 8]) | uint32_t(sc[l4 + 9]) << 8 | uint32_t(sc[l4 + 10]) << 16 |
                    uint32_t(sc[l4 + 11]) << 24;
  std::memset(&sc[l4 + 8], 0, 4);
  EXPECT_EQ(crc32c(&sc[l4], sc.size() - l4), stored);
  const Bytes& nd = r.out.sent[1].data;
  FlowKey k = key_of(nd);
  EXPECT_EQ(0, std::memcmp(k.nd_target, target.b.data(), 16));
  EXPECT_EQ(k.nd_sll[5], 0xee);
  EXPECT_TRUE(csum::checksums_ok(nd.data(), nd.size()));
  ASSERT_EQ(r.ctl.ins.size(), 1u);
  EXPECT_EQ(r.ctl.ins[0].info.table_id, 1);
  EXPECT_EQ(r.ctl.ins[0].info.tunnel_id, 0x42u);
  of::Match m = r.ctl.ins[0].info.match();
  ASSERT_NE(m.find(OxmId::kMetadata), nullptr);
  EXPECT_EQ(m.find(OxmId::kMetadata)->value_u64(), 0x9u);
  ASSERT_NE(m.find(OxmId::kTunnelId), nullptr);
}

TEST(Actions, MplsStackCopyTtlOutAndSetMplsTtl) {
  Rig r;
  r.add(add_flow(0, 1, match_ip_dst("10.0.0.2"),
                 {Action::set_nw_ttl(20), Action::push_mpls(0x8847),
                  Action::set_field(f(OxmId::kMplsLabel, 5)), Action::push_mpls(0x8847),
                  Action::set_mpls_ttl(3), Action::simple(of::ActionType::kCopyTtlOut), Action::output(2)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.sent.size(), 1u);
  const Bytes& o = r.out.sent[0].data;
  ASSERT_EQ(o.size(), tcp_frame().size() + 8);
  uint32_t outer = load_be32(&o[14]), inner = load_be32(&o[18]);
  EXPECT_EQ(hdr::mpls_label(outer), 5u);  // copied from the inner label on push
  EXPECT_FALSE(hdr::mpls_bos(outer));
  EXPECT_TRUE(hdr::mpls_bos(inner));
  EXPECT_EQ(hdr::mpls_ttl(inner), 20);  // from the IP TTL at the first push
  EXPECT_EQ(hdr::mpls_ttl(outer), 20);  // set to 3, then copy_ttl_out from the inner label
}

}  // namespace
}  // namespace flowlab::dp

// Frames on the wire: short frames leave padded to the Ethernet minimum while
// packet-ins carry the frame as the switch holds it; push_mpls on frames with
// no IP TTL to copy (ARP, after push_vlan) gives the label TTL 0.
#include <gtest/gtest.h>

#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

Bytes icmp_in_mpls() {
  return FrameBuilder()
      .eth(mac(0x0a0000000002), mac(0x0a0000000001))
      .mpls(100, 0, 64)
      .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
      .icmp(hdr::kIcmpEchoRequest, 0)
      .build();  // 14 + 4 + 20 + 8 = 46 bytes
}

Bytes arp_frame(size_t pad = 0) {
  return FrameBuilder()
      .eth(mac(0xffffffffffff), mac(0x0a0000000001))
      .arp(hdr::kArpRequest, mac(0x0a0000000001), ip4("10.0.0.1"), mac(0), ip4("10.0.0.2"))
      .payload(pad, 0)
      .build();
}

TEST(Frames, ShortFrameAfterPopMplsLeavesPaddedPacketInDoesNot) {
  Rig rig;
  of::Match m;
  m.add(f(OxmId::kEthType, hdr::kEthTypeMpls));
  rig.add(add_flow(
      0, 10, m,
      {Action::pop_mpls(hdr::kEthTypeIpv4), Action::output(2), Action::output(of::port::kController)}));
  const Bytes in = icmp_in_mpls();
  ASSERT_EQ(in.size(), 46u);
  rig.send(in, 1);
  Bytes want(in.begin(), in.end());
  want.erase(want.begin() + 14, want.begin() + 18);  // the label
  store_be16(want.data() + 12, hdr::kEthTypeIpv4);
  ASSERT_EQ(want.size(), 42u);
  ASSERT_EQ(rig.ctl.ins.size(), 1u);
  EXPECT_EQ(rig.ctl.ins[0].data, want);  // as held: 42 bytes
  want.resize(60, 0);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  EXPECT_EQ(rig.out.sent[0].data, want);  // on the wire: padded with zeros to 60
}

TEST(Frames, FloodPadsEveryCopyAndLongFramesStayAsTheyAre) {
  Rig rig;
  rig.add(add_flow(0, 1, {}, {Action::output(of::port::kFlood)}));
  const Bytes arp = arp_frame();  // 42 bytes
  rig.send(arp, 1);
  ASSERT_EQ(rig.out.sent.size(), 3u);
  Bytes want = arp;
  want.resize(60, 0);
  for (const Sent& s : rig.out.sent) EXPECT_EQ(s.data, want);
  rig.out.sent.clear();
  const Bytes tcp = tcp_frame();
  rig.send(tcp, 1);
  ASSERT_EQ(rig.out.sent.size(), 3u);
  EXPECT_EQ(rig.out.sent[0].data, tcp);
}

TEST(Frames, PushMplsOnArpAndAfterPushVlanTakesTtlZero) {
  Rig rig;
  of::Match m;
  m.add(f(OxmId::kInPort, 1));
  rig.add(add_flow(0, 10, m, {Action::push_mpls(hdr::kEthTypeMpls), Action::output(2)}));
  of::Match m3;
  m3.add(f(OxmId::kInPort, 3));
  rig.add(add_flow(0, 10, m3,
                   {Action::push_vlan(hdr::kEthTypeVlan), Action::set_field(f(OxmId::kVlanVid, 0x1000 | 5)),
                    Action::push_mpls(hdr::kEthTypeMpls), Action::simple(of::ActionType::kCopyTtlOut),
                    Action::output(2)}));
  const Bytes arp = arp_frame(18);  // padded ARP as it arrives from a NIC: 60 bytes
  rig.send(arp, 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  Bytes want(arp.begin(), arp.begin() + 12);
  want.insert(want.end(), {0x88, 0x47, 0x00, 0x00, 0x01, 0x00});  // label 0, tc 0, bos, ttl 0
  want.insert(want.end(), arp.begin() + 14, arp.end());
  EXPECT_EQ(rig.out.sent[0].data, want);

  rig.send(arp, 3);  // push_vlan, then push_mpls after the tag; copy_ttl_out has no TTL to copy
  ASSERT_EQ(rig.out.sent.size(), 2u);
  Bytes want3(arp.begin(), arp.begin() + 12);
  want3.insert(want3.end(), {0x81, 0x00, 0x00, 0x05, 0x88, 0x47, 0x00, 0x00, 0x01, 0x00});
  want3.insert(want3.end(), arp.begin() + 14, arp.end());
  EXPECT_EQ(rig.out.sent[1].data, want3);
}

TEST(Frames, PushMplsAfterPushVlanOnIpCopiesTheIpTtl) {
  Rig rig;
  rig.add(add_flow(
      0, 10, {},
      {Action::push_vlan(hdr::kEthTypeVlan), Action::push_mpls(hdr::kEthTypeMpls), Action::output(2)}));
  const Bytes in = FrameBuilder()
                       .eth(mac(2), mac(1))
                       .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"), 33)
                       .udp(1, 2)
                       .payload(30)
                       .build();
  rig.send(in, 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  const Bytes& out = rig.out.sent[0].data;
  ASSERT_EQ(out.size(), in.size() + 8);
  EXPECT_EQ(load_be16(out.data() + 12), hdr::kEthTypeVlan);
  EXPECT_EQ(load_be16(out.data() + 16), hdr::kEthTypeMpls);
  EXPECT_EQ(load_be32(out.data() + 18), hdr::make_mpls(0, 0, true, 33));
  EXPECT_TRUE(std::equal(in.begin() + 14, in.end(), out.begin() + 22));
}

}  // namespace
}  // namespace flowlab::dp

// OpenFlow 1.5's match fields in the pipeline: tcp_flags (masked) picks
// packets by their flags within one connection, packet_type (0, 0) matches
// every Ethernet frame and any other type is refused (actset_output: egress_test.cpp).
#include <gtest/gtest.h>

#include "packet/builder.h"
#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using hdr::kTcpAck;
using hdr::kTcpSyn;
using of::Action;
using of::OxmId;

Bytes tcp_with(uint8_t flags) {
  return FrameBuilder()
      .eth(mac(0x0a0000000002), mac(0x0a0000000001))
      .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
      .tcp(1234, 80, flags)
      .payload(10)
      .build();
}

of::Match tcp_match() {
  of::Match m;
  m.add(f(OxmId::kEthType, hdr::kEthTypeIpv4)).add(f(OxmId::kIpProto, 6));
  return m;
}

TEST(Of15Match, TcpFlagsSelectSynsOfOneConnection) {
  Rig rig;
  of::Match syn = tcp_match();
  syn.add(fm_(OxmId::kTcpFlags, kTcpSyn, kTcpSyn | kTcpAck));  // SYN set, ACK clear
  rig.add(add_flow(0, 20, syn, {Action::output(3)}));
  rig.add(add_flow(0, 10, tcp_match(), {Action::output(2)}));
  rig.send(tcp_with(kTcpSyn), 1);
  rig.send(tcp_with(kTcpSyn | kTcpAck), 1);
  rig.send(tcp_with(kTcpAck), 1);
  rig.send(tcp_with(kTcpSyn), 1);
  ASSERT_EQ(rig.out.sent.size(), 4u);
  EXPECT_EQ(rig.out.sent[0].port, 3u);
  EXPECT_EQ(rig.out.sent[1].port, 2u);
  EXPECT_EQ(rig.out.sent[2].port, 2u);
  EXPECT_EQ(rig.out.sent[3].port, 3u);
}

TEST(Of15Match, TcpFlagsNeedTcp) {
  Rig rig;
  of::Match m;
  m.add(f(OxmId::kEthType, hdr::kEthTypeIpv4)).add(f(OxmId::kTcpFlags, kTcpSyn));
  auto r = rig.dp.flow_mod(add_flow(0, 1, m, {Action::output(2)}), rig.now);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, uint16_t(of::BadMatchCode::kBadPrereq));
}

TEST(Of15Match, PacketTypeEthernetMatchesAndOthersAreRefused) {
  Rig rig;
  of::Match eth;
  eth.add(f(OxmId::kPacketType, 0)).add(f(OxmId::kInPort, 1));
  rig.add(add_flow(0, 5, eth, {Action::output(2)}));
  rig.send(tcp_with(kTcpAck), 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  EXPECT_EQ(rig.out.sent[0].port, 2u);
  of::Match ipv4;
  ipv4.add(f(OxmId::kPacketType, 0x00010800));  // (1, 0x800): a bare IPv4 packet
  auto r = rig.dp.flow_mod(add_flow(0, 6, ipv4, {Action::output(2)}), rig.now);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().type, of::ErrorType::kBadMatch);
  EXPECT_EQ(r.error().code, uint16_t(of::BadMatchCode::kBadValue));
}

}  // namespace
}  // namespace flowlab::dp

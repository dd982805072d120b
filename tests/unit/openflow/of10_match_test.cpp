// OF1.0 ofp_match <-> OXM translation: wildcard bits, nw prefix counts, VLAN
// none/present, ARP and ICMP reinterpretation of nw_*/tp_*, and the matches
// OF1.0 cannot express.
#include <gtest/gtest.h>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Bytes hex(std::string_view s) {
  Bytes b;
  EXPECT_TRUE(from_hex(s, b)) << s;
  return b;
}

// A flow stats request carries exactly one ofp_match at offset 12.
Message stats_with(const Match& m) {
  FlowStatsRequest q;
  q.match = m;
  return Message{kOf10, 1, MultipartRequest{0, q}};
}

// The 40 ofp_match bytes our encoder writes for `m`.
std::string encode_match_hex(const Match& m) {
  auto wire = encode_of10(stats_with(m));
  EXPECT_TRUE(wire.ok()) << wire.error().to_string();
  if (!wire.ok()) return {};
  return to_hex(ByteSpan(*wire).subspan(12, 40));
}

// Decodes a 40-byte ofp_match (hex) into a Match.
Result<Match, OfError> decode_match_hex(std::string_view match_hex) {
  Bytes wire = hex("01 10 0038 00000001 0001 0000");
  Bytes m = hex(match_hex);
  EXPECT_EQ(m.size(), 40u);
  wire.insert(wire.end(), m.begin(), m.end());
  Bytes tail = hex("ff 00 ffff");
  wire.insert(wire.end(), tail.begin(), tail.end());
  auto msg = decode_of10(wire);
  if (!msg.ok()) return unexpected(msg.error());
  return std::get<FlowStatsRequest>(msg->as<MultipartRequest>().body).match;
}

OfError encode_error(const Match& m) {
  auto wire = encode_of10(stats_with(m));
  EXPECT_FALSE(wire.ok());
  return wire.ok() ? OfError{} : wire.error();
}

TEST(Of10Match, AllFieldsExactTcp) {
  Match m;
  m.add(OxmField::basic(OxmId::kInPort, 7))
      .add(OxmField::basic(OxmId::kEthDst, 0x0a0b0c0d0e0f))
      .add(OxmField::basic(OxmId::kEthSrc, 0x010203040506))
      .add(OxmField::basic(OxmId::kEthType, 0x0800))
      .add(OxmField::basic(OxmId::kVlanVid, 0x1000 | 10))
      .add(OxmField::basic(OxmId::kVlanPcp, 3))
      .add(OxmField::basic(OxmId::kIpDscp, 10))
      .add(OxmField::basic(OxmId::kIpProto, 6))
      .add(OxmField::basic_masked(OxmId::kIpv4Src, 0xc0a80100, 0xffffff00))
      .add(OxmField::basic(OxmId::kIpv4Dst, 0x0a000001))
      .add(OxmField::basic(OxmId::kTcpSrc, 1234))
      .add(OxmField::basic(OxmId::kTcpDst, 80));
  const std::string want =
      "00000800 0007 010203040506 0a0b0c0d0e0f 000a 03 00 0800 28 06 0000"
      " c0a80100 0a000001 04d2 0050";
  EXPECT_EQ(encode_match_hex(m), to_hex(hex(want)));
  auto back = decode_match_hex(want);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, m);
}

TEST(Of10Match, EmptyMatchIsAllWildcards) {
  EXPECT_EQ(encode_match_hex(Match{}), to_hex(hex("003820ff" + std::string(72, '0'))));
}

TEST(Of10Match, VlanNoneAndPresent) {
  Match none;
  none.add(OxmField::basic(OxmId::kVlanVid, kVlanNone));
  const std::string h = encode_match_hex(none);
  EXPECT_EQ(h.substr(0, 8), "003820fd");
  EXPECT_EQ(h.substr(36, 4), "ffff");
  auto back = decode_match_hex(h);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, none);

  Match any_vlan;  // "some VLAN": OF1.0 has no spelling for it
  any_vlan.add(OxmField::basic_masked(OxmId::kVlanVid, 0x1000, 0x1000));
  EXPECT_EQ(encode_error(any_vlan).code, static_cast<uint16_t>(BadMatchCode::kBadMask));
}

TEST(Of10Match, ArpUsesNwFieldsForOpcodeAndAddresses) {
  // dl_type=0x0806, nw_proto=2 (reply), nw_src=10.0.0.1/32, nw_dst=10.0.0.0/8.
  const std::string wire =
      "00 36 00 cf 0000 000000000000 000000000000 0000 00 00 0806 00 02 0000"
      " 0a000001 0a000000 0000 0000";
  auto m = decode_match_hex(wire);
  ASSERT_TRUE(m.ok()) << m.error().to_string();
  ASSERT_NE(m->find(OxmId::kArpOp), nullptr);
  EXPECT_EQ(m->find(OxmId::kArpOp)->value_u64(), 2u);
  ASSERT_NE(m->find(OxmId::kArpSpa), nullptr);
  EXPECT_FALSE(m->find(OxmId::kArpSpa)->has_mask);
  ASSERT_NE(m->find(OxmId::kArpTpa), nullptr);
  EXPECT_EQ(m->find(OxmId::kArpTpa)->mask_u64(), 0xff000000u);
  EXPECT_EQ(m->find(OxmId::kIpProto), nullptr);
  EXPECT_EQ(encode_match_hex(*m), to_hex(hex(wire)));

  Match bad;  // arp_spa without eth_type=0x0806 cannot be told apart from ipv4_src
  bad.add(OxmField::basic(OxmId::kArpSpa, 1));
  EXPECT_EQ(encode_error(bad).code, static_cast<uint16_t>(BadMatchCode::kBadPrereq));
}

TEST(Of10Match, TransportFieldsFollowNwProto) {
  auto decode_tp = [](uint8_t proto) {
    std::string wire = fmt::format(
        "00 38 20 0f 0000 000000000000 000000000000 0000 00 00 0800 00 {:02x} 0000"
        " 00000000 00000000 0003 0004",
        proto);
    return decode_match_hex(wire);
  };
  auto icmp = decode_tp(1);
  ASSERT_TRUE(icmp.ok());
  EXPECT_EQ(icmp->find(OxmId::kIcmpv4Type)->value_u64(), 3u);
  EXPECT_EQ(icmp->find(OxmId::kIcmpv4Code)->value_u64(), 4u);
  auto udp = decode_tp(17);
  ASSERT_TRUE(udp.ok());
  EXPECT_NE(udp->find(OxmId::kUdpSrc), nullptr);
  EXPECT_NE(udp->find(OxmId::kUdpDst), nullptr);
  auto sctp = decode_tp(132);
  ASSERT_TRUE(sctp.ok());
  EXPECT_NE(sctp->find(OxmId::kSctpSrc), nullptr);
  for (auto* m : {&*icmp, &*udp, &*sctp}) {
    Match copy = *m;
    copy.of10_wildcards = 0;
    auto again = decode_match_hex(encode_match_hex(copy));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, *m);
  }

  Match bad;  // udp_src needs ip_proto=17 to survive the trip
  bad.add(OxmField::basic(OxmId::kEthType, 0x0800)).add(OxmField::basic(OxmId::kUdpSrc, 53));
  EXPECT_EQ(encode_error(bad).code, static_cast<uint16_t>(BadMatchCode::kBadPrereq));
}

TEST(Of10Match, NwWildcardCountsAndTheirSpellings) {
  // nw_src count 63 (Ryu's OFPFW_ALL spelling) and nw_dst count 40 both mean "any".
  const std::string wire = "003fffff" + std::string(72, '0');
  auto m = decode_match_hex(wire);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->empty());
  EXPECT_EQ(encode_match_hex(*m), to_hex(hex(wire)));  // the spelling is kept
  Match fresh;
  EXPECT_EQ(encode_match_hex(fresh).substr(0, 8), "003820ff");  // canonical spelling: 32

  // A stale hint that disagrees with the fields is ignored.
  Match changed = *m;
  changed.add(OxmField::basic(OxmId::kInPort, 1));
  EXPECT_EQ(encode_match_hex(changed).substr(0, 8), "003820fe");

  // Prefix /20 on nw_dst -> count 12.
  Match p;
  p.add(OxmField::basic(OxmId::kEthType, 0x0800))
      .add(OxmField::basic_masked(OxmId::kIpv4Dst, 0x0a000000, 0xfffff000));
  EXPECT_EQ(encode_match_hex(p).substr(0, 8), "003320ef");
}

TEST(Of10Match, WhatOf10CannotMatch) {
  Match v6;
  v6.add(OxmField::basic(OxmId::kEthType, 0x86dd)).add(OxmField::basic(OxmId::kIpProto, 58));
  v6.add(OxmField::basic_bytes(OxmId::kIpv6Src, Bytes(16, 1)));
  OfError e = encode_error(v6);
  EXPECT_EQ(e.type, ErrorType::kBadMatch);
  EXPECT_EQ(e.code, static_cast<uint16_t>(BadMatchCode::kBadField));
  EXPECT_NE(e.message.find("ipv6_src"), std::string::npos) << e.message;

  Match mac_mask;
  mac_mask.add(OxmField::basic_masked(OxmId::kEthDst, 0x010000000000, 0x010000000000));
  EXPECT_EQ(encode_error(mac_mask).code, static_cast<uint16_t>(BadMatchCode::kBadDlAddrMask));

  Match holes;
  holes.add(OxmField::basic(OxmId::kEthType, 0x0800))
      .add(OxmField::basic_masked(OxmId::kIpv4Src, 0x0a000001, 0xff0000ff));
  EXPECT_EQ(encode_error(holes).code, static_cast<uint16_t>(BadMatchCode::kBadNwAddrMask));

  Match dup;
  dup.add(OxmField::basic(OxmId::kInPort, 1)).add(OxmField::basic(OxmId::kInPort, 2));
  EXPECT_EQ(encode_error(dup).code, static_cast<uint16_t>(BadMatchCode::kDupField));

  Match wide_port;
  wide_port.add(OxmField::basic(OxmId::kInPort, 0x10000));
  EXPECT_EQ(encode_error(wide_port).code, static_cast<uint16_t>(BadMatchCode::kBadValue));

  Match meta;
  meta.add(OxmField::basic(OxmId::kMetadata, 1));
  EXPECT_EQ(encode_error(meta).code, static_cast<uint16_t>(BadMatchCode::kBadField));
}

TEST(Of10Match, DecodeRejectsImpossibleValues) {
  // dl_vlan 0x2000 is neither a VLAN id nor OFP_VLAN_NONE (offset 12 + 18).
  auto m = decode_match_hex(
      "003820fd 0000 000000000000 000000000000 2000 00 00 0000 00 00 0000"
      " 00000000 00000000 0000 0000");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().type, ErrorType::kBadMatch);
  EXPECT_EQ(m.error().code, static_cast<uint16_t>(BadMatchCode::kBadValue));
  EXPECT_EQ(m.error().offset, 30u);

  auto pcp = decode_match_hex(
      "002820ff 0000 000000000000 000000000000 0000 09 00 0000 00 00 0000"
      " 00000000 00000000 0000 0000");
  ASSERT_FALSE(pcp.ok());
  EXPECT_EQ(pcp.error().code, static_cast<uint16_t>(BadMatchCode::kBadValue));
}

TEST(Of10Match, NwTosBecomesDscp) {
  auto m = decode_match_hex(
      "001820ef 0000 000000000000 000000000000 0000 00 00 0800 b8 00 0000"
      " 00000000 00000000 0000 0000");
  ASSERT_TRUE(m.ok());
  ASSERT_NE(m->find(OxmId::kIpDscp), nullptr);
  EXPECT_EQ(m->find(OxmId::kIpDscp)->value_u64(), 46u);
}

}  // namespace
}  // namespace flowlab::of

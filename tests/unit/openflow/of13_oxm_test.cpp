// OXM field table, OxmField builders and validate_match (OF1.3 match rules).
#include <gtest/gtest.h>

#include "openflow/codec.h"
#include "openflow/oxm.h"

namespace flowlab::of {
namespace {

TEST(Of13Oxm, TableHasAllFieldsWithNamesAndLengths) {
  for (int i = 0; i < kNumBasicOxm; ++i) {
    if (i == 40) continue;  // unassigned (between ipv6_exthdr and OF1.4's pbb_uca)
    const OxmFieldInfo* info = oxm_info(static_cast<OxmId>(i));
    ASSERT_NE(info, nullptr) << i;
    EXPECT_EQ(static_cast<int>(info->id), i);
    EXPECT_EQ(oxm_info_by_name(info->name), info);
  }
  EXPECT_EQ(oxm_info(static_cast<OxmId>(40)), nullptr);
  EXPECT_EQ(oxm_info(static_cast<OxmId>(45)), nullptr);
  EXPECT_EQ(oxm_info(OxmId::kTcpFlags)->name, "tcp_flags");  // OpenFlow 1.5's
  EXPECT_TRUE(oxm_info(OxmId::kTcpFlags)->maskable);
  EXPECT_EQ(oxm_info(OxmId::kPbbUca)->name, "pbb_uca");
  EXPECT_EQ(oxm_info(OxmId::kPbbUca)->length, 1);
  EXPECT_EQ(oxm_info_by_name(""), nullptr);
  EXPECT_EQ(oxm_info(OxmId::kEthDst)->name, "eth_dst");
  EXPECT_EQ(oxm_info(OxmId::kIpv6Src)->length, 16);
  EXPECT_EQ(oxm_info(OxmId::kPbbIsid)->length, 3);
  EXPECT_TRUE(oxm_info(OxmId::kIpv4Src)->maskable);
  EXPECT_FALSE(oxm_info(OxmId::kTcpDst)->maskable);
  EXPECT_EQ(oxm_info_by_name("no_such_field"), nullptr);
}

TEST(Of13Oxm, BuildersProduceWireHeaderAndValue) {
  OxmField f = OxmField::basic(OxmId::kTcpDst, 80);
  EXPECT_EQ(f.header(), 0x80001c02u);
  EXPECT_EQ(f.value, (Bytes{0x00, 0x50}));
  EXPECT_EQ(f.value_u64(), 80u);
  OxmField m = OxmField::basic_masked(OxmId::kIpv4Dst, 0x0a000000, 0xff000000);
  EXPECT_EQ(m.header(), 0x80001908u);
  EXPECT_EQ(m.mask_u64(), 0xff000000u);
  ByteWriter w;
  encode_oxm_match(Match{}.add(f).add(m), w);
  EXPECT_EQ(w.buf(), (Bytes{0x80, 0x00, 0x1c, 0x02, 0x00, 0x50, 0x80, 0x00, 0x19, 0x08, 0x0a, 0, 0, 0, 0xff,
                            0, 0, 0}));
  auto back = decode_oxm_match(w.buf());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->fields.size(), 2u);
  EXPECT_EQ(back->fields[1], m);
}

Match tcp_match() {
  Match m;
  m.add(OxmField::basic(OxmId::kEthType, 0x0800));
  m.add(OxmField::basic(OxmId::kIpProto, 6));
  m.add(OxmField::basic(OxmId::kTcpDst, 80));
  return m;
}

uint16_t code_of(const std::optional<OfError>& e) { return e ? e->code : 0xffff; }

TEST(Of13Oxm, ValidMatchesPass) {
  EXPECT_FALSE(validate_match(Match{}));
  EXPECT_FALSE(validate_match(tcp_match()));
  Match v6;
  v6.add(OxmField::basic(OxmId::kEthType, 0x86dd));
  v6.add(OxmField::basic(OxmId::kIpProto, 58));
  v6.add(OxmField::basic(OxmId::kIcmpv6Type, 135));
  v6.add(OxmField::basic_bytes(OxmId::kIpv6NdTarget, Bytes(16, 1)));
  v6.add(OxmField::basic_bytes(OxmId::kIpv6NdSll, Bytes(6, 2)));
  EXPECT_FALSE(validate_match(v6)) << validate_match(v6)->to_string();
  Match vlan;
  vlan.add(OxmField::basic(OxmId::kVlanVid, kVlanPresent | 10));
  vlan.add(OxmField::basic(OxmId::kVlanPcp, 3));
  EXPECT_FALSE(validate_match(vlan));
}

TEST(Of13Oxm, MissingPrerequisiteIsBadPrereq) {
  Match m;
  m.add(OxmField::basic(OxmId::kTcpDst, 80));
  auto e = validate_match(m);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->type, ErrorType::kBadMatch);
  EXPECT_EQ(e->code, static_cast<uint16_t>(BadMatchCode::kBadPrereq));
  EXPECT_NE(e->message.find("tcp_dst"), std::string::npos);

  Match udp_on_tcp = tcp_match();
  udp_on_tcp.add(OxmField::basic(OxmId::kUdpSrc, 53));
  EXPECT_EQ(code_of(validate_match(udp_on_tcp)), static_cast<uint16_t>(BadMatchCode::kBadPrereq));

  Match arp_on_ip;
  arp_on_ip.add(OxmField::basic(OxmId::kEthType, 0x0800));
  arp_on_ip.add(OxmField::basic(OxmId::kArpOp, 1));
  EXPECT_EQ(code_of(validate_match(arp_on_ip)), static_cast<uint16_t>(BadMatchCode::kBadPrereq));

  Match pcp_no_vlan;
  pcp_no_vlan.add(OxmField::basic(OxmId::kVlanVid, kVlanNone));
  pcp_no_vlan.add(OxmField::basic(OxmId::kVlanPcp, 1));
  EXPECT_EQ(code_of(validate_match(pcp_no_vlan)), static_cast<uint16_t>(BadMatchCode::kBadPrereq));

  Match masked_ethtype;  // ipv4_src (even fully wildcarded) needs eth_type=0x0800
  masked_ethtype.add(OxmField::basic_masked(OxmId::kIpv4Src, 0, 0));
  EXPECT_EQ(code_of(validate_match(masked_ethtype)), static_cast<uint16_t>(BadMatchCode::kBadPrereq));
}

TEST(Of13Oxm, StructuralErrorsHaveTheirCodes) {
  Match dup = tcp_match();
  dup.add(OxmField::basic(OxmId::kIpProto, 6));
  EXPECT_EQ(code_of(validate_match(dup)), static_cast<uint16_t>(BadMatchCode::kDupField));

  Match bad_mask = tcp_match();
  bad_mask.fields[2] = OxmField::basic_masked(OxmId::kTcpDst, 80, 0xff00);
  EXPECT_EQ(code_of(validate_match(bad_mask)), static_cast<uint16_t>(BadMatchCode::kBadMask));

  Match bits_outside;
  bits_outside.add(OxmField::basic(OxmId::kEthType, 0x0800));
  bits_outside.add(OxmField::basic_masked(OxmId::kIpv4Dst, 0x0a000001, 0xff000000));
  EXPECT_EQ(code_of(validate_match(bits_outside)), static_cast<uint16_t>(BadMatchCode::kBadWildcards));

  Match bad_len;
  bad_len.add(OxmField::basic_bytes(OxmId::kEthType, Bytes{8}));
  EXPECT_EQ(code_of(validate_match(bad_len)), static_cast<uint16_t>(BadMatchCode::kBadLen));

  Match unknown;
  OxmField f;
  f.field = 77;
  f.value = {1};
  unknown.add(f);
  EXPECT_EQ(code_of(validate_match(unknown)), static_cast<uint16_t>(BadMatchCode::kBadField));

  Match bad_value;
  bad_value.add(OxmField::basic(OxmId::kVlanVid, kVlanPresent | 10));
  bad_value.add(OxmField::basic(OxmId::kVlanPcp, 9));
  EXPECT_EQ(code_of(validate_match(bad_value)), static_cast<uint16_t>(BadMatchCode::kBadValue));
}

TEST(Of13Oxm, DecoderRejectsWrongLengthsWithBadMatchLen) {
  // eth_type with a 3-byte value.
  auto r = decode_oxm_match(Bytes{0x80, 0x00, 0x0a, 0x03, 0x08, 0x00, 0x00});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().type, ErrorType::kBadMatch);
  EXPECT_EQ(r.error().code, static_cast<uint16_t>(BadMatchCode::kBadLen));
  // payload length runs past the buffer.
  r = decode_oxm_match(Bytes{0x80, 0x00, 0x0a, 0x02, 0x08});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, static_cast<uint16_t>(BadMatchCode::kBadLen));
  // truncated header.
  r = decode_oxm_match(Bytes{0x80, 0x00});
  ASSERT_FALSE(r.ok());
  // A Nicira NXM field (reg0) is kept opaque.
  r = decode_oxm_match(Bytes{0x00, 0x01, 0x00, 0x04, 0, 0, 0x12, 0x34});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->fields[0].oxm_class, kOxmClassNxm1);
  EXPECT_EQ(r->fields[0].value_u64(), 0x1234u);
}

}  // namespace
}  // namespace flowlab::of

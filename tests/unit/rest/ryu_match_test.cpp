// Ryu match JSON <-> of::Match: every field of Ryu's ofctl_rest documentation
// examples, the reverse mapping, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rest/ryu_json.h"

namespace flowlab::rest {
namespace {

using ::testing::HasSubstr;

using of::OxmField;
using of::OxmId;

of::Match decode(const char* text, uint8_t version = of::kOf13) {
  auto r = match_from_json(Json::parse(text), version);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : of::Match{};
}

std::string error_of(const char* text, uint8_t version = of::kOf13) {
  auto r = match_from_json(Json::parse(text), version);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.error().message;
}

TEST(RyuMatch, DocsExampleIpv4) {
  // POST /stats/flowentry/add example: {"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.1"}
  auto m = decode(R"({"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.1"})");
  ASSERT_EQ(m.fields.size(), 3u);
  EXPECT_EQ(m.find(OxmId::kInPort)->value_u64(), 1u);
  EXPECT_EQ(m.find(OxmId::kEthType)->value_u64(), 0x0800u);
  EXPECT_EQ(m.find(OxmId::kIpv4Dst)->value_u64(), 0x0a000001u);
}

TEST(RyuMatch, EveryDocumentedField) {
  struct Case {
    const char* json;
    OxmId id;
    uint64_t value;
    uint64_t mask;  // 0: no mask
  };
  const Case cases[] = {
      {R"({"in_port": 7})", OxmId::kInPort, 7, 0},
      {R"({"in_port": "LOCAL"})", OxmId::kInPort, of::port::kLocal, 0},
      {R"({"in_port": 1, "in_phy_port": 5})", OxmId::kInPhyPort, 5, 0},
      {R"({"metadata": "0x1212121212121212"})", OxmId::kMetadata, 0x1212121212121212ull, 0},
      {R"({"metadata": "0x3/0xff"})", OxmId::kMetadata, 3, 0xff},
      {R"({"dl_src": "aa:bb:cc:11:22:33"})", OxmId::kEthSrc, 0xaabbcc112233ull, 0},
      {R"({"eth_dst": "aa:bb:cc:11:22:33/00:00:00:00:ff:ff"})", OxmId::kEthDst, 0x2233, 0xffff},
      {R"({"dl_type": 123})", OxmId::kEthType, 123, 0},
      {R"({"eth_type": "0x86dd"})", OxmId::kEthType, 0x86dd, 0},
      {R"({"dl_vlan": 5})", OxmId::kVlanVid, 0x1005, 0},
      {R"({"vlan_vid": "0x1000/0x1000"})", OxmId::kVlanVid, 0x1000, 0x1000},
      {R"({"vlan_vid": "0x0000"})", OxmId::kVlanVid, 0, 0},
      {R"({"dl_vlan": 5, "vlan_pcp": 3})", OxmId::kVlanPcp, 3, 0},
      {R"({"eth_type": 2048, "ip_dscp": 36})", OxmId::kIpDscp, 36, 0},
      {R"({"eth_type": 2048, "ip_ecn": 3})", OxmId::kIpEcn, 3, 0},
      {R"({"eth_type": 2048, "nw_proto": 6})", OxmId::kIpProto, 6, 0},
      {R"({"eth_type": 2048, "ip_proto": 17})", OxmId::kIpProto, 17, 0},
      {R"({"dl_type": 2048, "nw_src": "192.168.0.1"})", OxmId::kIpv4Src, 0xc0a80001, 0},
      {R"({"eth_type": 2048, "ipv4_dst": "192.168.10.10/255.255.255.0"})", OxmId::kIpv4Dst, 0xc0a80a00,
       0xffffff00},
      {R"({"eth_type": 2048, "ipv4_src": "10.0.0.0/8"})", OxmId::kIpv4Src, 0x0a000000, 0xff000000},
      {R"({"dl_type": 2048, "nw_proto": 6, "tp_dst": 80})", OxmId::kTcpDst, 80, 0},
      {R"({"dl_type": 2048, "nw_proto": 17, "tp_src": 53})", OxmId::kUdpSrc, 53, 0},
      {R"({"eth_type": 2048, "ip_proto": 6, "tcp_src": 3})", OxmId::kTcpSrc, 3, 0},
      {R"({"eth_type": 2048, "ip_proto": 17, "udp_dst": 4})", OxmId::kUdpDst, 4, 0},
      {R"({"eth_type": 2048, "ip_proto": 132, "sctp_src": 99})", OxmId::kSctpSrc, 99, 0},
      {R"({"eth_type": 2048, "ip_proto": 132, "sctp_dst": 99})", OxmId::kSctpDst, 99, 0},
      {R"({"eth_type": 2048, "ip_proto": 1, "icmpv4_type": 5})", OxmId::kIcmpv4Type, 5, 0},
      {R"({"eth_type": 2048, "ip_proto": 1, "icmpv4_code": 6})", OxmId::kIcmpv4Code, 6, 0},
      {R"({"eth_type": 2054, "arp_op": 3})", OxmId::kArpOp, 3, 0},
      {R"({"eth_type": 2054, "arp_spa": "192.168.0.11"})", OxmId::kArpSpa, 0xc0a8000b, 0},
      {R"({"eth_type": 2054, "arp_tpa": "192.168.0.44/24"})", OxmId::kArpTpa, 0xc0a80000, 0xffffff00},
      {R"({"eth_type": 2054, "arp_sha": "aa:bb:cc:11:22:33"})", OxmId::kArpSha, 0xaabbcc112233ull, 0},
      {R"({"eth_type": 2054, "arp_tha": "aa:bb:cc:11:22:33"})", OxmId::kArpTha, 0xaabbcc112233ull, 0},
      {R"({"dl_type": 2054, "nw_src": "10.0.0.7"})", OxmId::kArpSpa, 0x0a000007, 0},
      {R"({"eth_type": 34525, "ipv6_flabel": 2})", OxmId::kIpv6Flabel, 2, 0},
      {R"({"eth_type": 34525, "ip_proto": 58, "icmpv6_type": 135})", OxmId::kIcmpv6Type, 135, 0},
      {R"({"eth_type": 34525, "ip_proto": 58, "icmpv6_code": 3})", OxmId::kIcmpv6Code, 3, 0},
      {R"({"eth_type": 34525, "ip_proto": 58, "icmpv6_type": 135, "ipv6_nd_sll": "aa:bb:cc:11:22:33"})",
       OxmId::kIpv6NdSll, 0xaabbcc112233ull, 0},
      {R"({"eth_type": 34525, "ip_proto": 58, "icmpv6_type": 136, "ipv6_nd_tll": "aa:bb:cc:11:22:33"})",
       OxmId::kIpv6NdTll, 0xaabbcc112233ull, 0},
      {R"({"eth_type": 34887, "mpls_label": 3})", OxmId::kMplsLabel, 3, 0},
      {R"({"eth_type": 34888, "mpls_tc": 2})", OxmId::kMplsTc, 2, 0},
      {R"({"eth_type": 34887, "mpls_bos": 1})", OxmId::kMplsBos, 1, 0},
      {R"({"eth_type": 35047, "pbb_isid": 5})", OxmId::kPbbIsid, 5, 0},
      {R"({"tunnel_id": 7})", OxmId::kTunnelId, 7, 0},
      {R"({"eth_type": 34525, "ipv6_exthdr": "3/3"})", OxmId::kIpv6Exthdr, 3, 3},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    auto m = decode(c.json);
    const OxmField* f = m.find(c.id);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->value_u64(), c.value);
    EXPECT_EQ(f->has_mask, c.mask != 0);
    if (c.mask) {
      EXPECT_EQ(f->mask_u64(), c.mask);
    }
  }
}

TEST(RyuMatch, Ipv6Addresses) {
  auto m = decode(
      R"({"eth_type": 34525, "ipv6_src": "2001::aaaa:bbbb:cccc:1111", "ipv6_dst": "2001::ffff:cccc:bbbb:1111/64"})");
  ASSERT_NE(m.find(OxmId::kIpv6Src), nullptr);
  ASSERT_NE(m.find(OxmId::kIpv6Dst), nullptr);
  EXPECT_TRUE(m.find(OxmId::kIpv6Dst)->has_mask);
  auto nd = decode(
      R"({"eth_type": 34525, "ip_proto": 58, "icmpv6_type": 135, "ipv6_nd_target": "2001::ffff:cccc:bbbb:1111"})");
  EXPECT_NE(nd.find(OxmId::kIpv6NdTarget), nullptr);
}

TEST(RyuMatch, SameMatchFromOldAndNewNames) {
  EXPECT_EQ(decode(R"({"dl_type": 2048, "nw_proto": 6, "tp_dst": 22, "nw_src": "1.2.3.4"})"),
            decode(R"({"eth_type": 2048, "ip_proto": 6, "tcp_dst": 22, "ipv4_src": "1.2.3.4"})"));
}

TEST(RyuMatch, Of10SwitchesGetTheSameModel) {
  EXPECT_EQ(decode(R"({"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.1"})", of::kOf10),
            decode(R"({"in_port": 1, "dl_type": 2048, "nw_dst": "10.0.0.1"})", of::kOf13));
}

TEST(RyuMatch, ToJsonUsesRyuNames) {
  auto m = decode(R"({"in_port": 1, "dl_type": 2048, "nw_proto": 6, "tp_dst": 80, "nw_dst": "10.0.0.0/24",
                      "dl_src": "00:00:00:00:00:01", "dl_vlan": 5})");
  Json j = match_to_json(m);
  EXPECT_EQ(j["in_port"], 1);
  EXPECT_EQ(j["dl_type"], 2048);
  EXPECT_EQ(j["nw_proto"], 6);
  EXPECT_EQ(j["tp_dst"], 80);
  EXPECT_EQ(j["nw_dst"], "10.0.0.0/255.255.255.0");
  EXPECT_EQ(j["dl_src"], "00:00:00:00:00:01");
  EXPECT_EQ(j["dl_vlan"], 5);
  EXPECT_EQ(j.size(), 7u);
  // What we print parses back to the same match.
  EXPECT_EQ(*match_from_json(j), m);
}

TEST(RyuMatch, ToJsonReservedPortsAndMaskedInts) {
  of::Match m;
  m.add(OxmField::basic(OxmId::kInPort, of::port::kController));
  m.add(OxmField::basic_masked(OxmId::kMetadata, 5, 0xff));
  Json j = match_to_json(m);
  EXPECT_EQ(j["in_port"], "CONTROLLER");
  EXPECT_EQ(j["metadata"], "5/255");
}

TEST(RyuMatch, EmptyAndNull) {
  EXPECT_TRUE(decode("{}").empty());
  EXPECT_TRUE(match_from_json(Json()).ok());
}

TEST(RyuMatch, Errors) {
  EXPECT_THAT(error_of(R"({"foo": 1})"), HasSubstr("unknown field 'foo'"));
  EXPECT_THAT(error_of(R"([1, 2])"), HasSubstr("expected an object"));
  EXPECT_THAT(error_of(R"({"in_port": -1})"), HasSubstr("negative"));
  EXPECT_THAT(error_of(R"({"in_port": [1]})"), HasSubstr("expected a number or a string"));
  EXPECT_THAT(error_of(R"({"in_port": 1.5})"), HasSubstr("in_port"));
  // A value cannot smuggle more fields or actions into the flow text.
  EXPECT_THAT(error_of(R"({"in_port": "1,actions=drop"})"), HasSubstr("is not a value"));
  EXPECT_THAT(error_of(R"({"nw_dst": "10.0.0.1"})"), HasSubstr("nw_dst"));
  EXPECT_THAT(error_of(R"({"dl_type": 2048, "tp_dst": 80})"), HasSubstr("tp_dst"));
  EXPECT_THAT(error_of(R"({"dl_type": 2048, "nw_dst": "10.0.0.300"})"), HasSubstr("nw_dst"));
  EXPECT_THAT(error_of(R"({"dl_src": "zz:00:00:00:00:01"})"), HasSubstr("dl_src"));
  EXPECT_THAT(error_of(R"({"dl_type": 70000})"), HasSubstr("dl_type"));
}

}  // namespace
}  // namespace flowlab::rest

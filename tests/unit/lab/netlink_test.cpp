// rtnetlink message builders (bytes, no kernel) and the Mininet-style host names of
// `flowlab lab exec`.
#include "lab/host/netlink.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>

#include <cstring>
#include <map>
#include <string>

#include "lab/run/persistent_lab.h"

namespace flowlab::lab {
namespace {

// The attributes at `off..end` of `b` as type -> payload (first occurrence).
std::map<int, std::string> attrs(const std::vector<uint8_t>& b, size_t off, size_t end) {
  std::map<int, std::string> out;
  while (off + sizeof(nlattr) <= end) {
    nlattr a;
    std::memcpy(&a, b.data() + off, sizeof a);
    if (a.nla_len < sizeof(nlattr) || off + a.nla_len > end) break;
    int type = a.nla_type & NLA_TYPE_MASK;
    if (!out.count(type))
      out[type] =
          std::string(reinterpret_cast<const char*>(b.data() + off + NLA_HDRLEN), a.nla_len - NLA_HDRLEN);
    off += NLA_ALIGN(a.nla_len);
  }
  return out;
}

uint32_t u32(const std::string& s) {
  uint32_t v = 0;
  std::memcpy(&v, s.data(), std::min(s.size(), sizeof v));
  return v;
}

TEST(Netlink, VethRequestPlacesBothEndsInTheirNamespaces) {
  auto r = veth_request({"eth0", 7, 9000, "00:00:00:00:00:01"}, {"s1-eth1", 8, 9000, ""}, "creating veth x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& b = r->bytes;
  nlmsghdr h;
  std::memcpy(&h, b.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(h.nlmsg_len, b.size());
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_CREATE);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_EXCL);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_ACK);
  ifinfomsg ifm;
  std::memcpy(&ifm, b.data() + NLMSG_HDRLEN, sizeof ifm);
  EXPECT_EQ(ifm.ifi_flags & IFF_UP, unsigned(IFF_UP));
  size_t top = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg));
  auto a = attrs(b, top, b.size());
  EXPECT_EQ(a[IFLA_IFNAME], std::string("eth0\0", 5));
  EXPECT_EQ(u32(a[IFLA_NET_NS_FD]), 7u);
  EXPECT_EQ(u32(a[IFLA_MTU]), 9000u);
  EXPECT_EQ(a[IFLA_ADDRESS], std::string("\0\0\0\0\0\x01", 6));
  ASSERT_TRUE(a.count(IFLA_LINKINFO));
  // IFLA_LINKINFO { KIND "veth", DATA { VETH_INFO_PEER { ifinfomsg, NAME, NS_FD, MTU } } }
  auto li = a[IFLA_LINKINFO];
  std::vector<uint8_t> lb(li.begin(), li.end());
  auto info = attrs(lb, 0, lb.size());
  EXPECT_EQ(info[IFLA_INFO_KIND], std::string("veth\0", 5));
  std::vector<uint8_t> db(info[IFLA_INFO_DATA].begin(), info[IFLA_INFO_DATA].end());
  auto data = attrs(db, 0, db.size());
  ASSERT_TRUE(data.count(VETH_INFO_PEER));
  std::vector<uint8_t> pb(data[VETH_INFO_PEER].begin(), data[VETH_INFO_PEER].end());
  ifinfomsg pifm;
  std::memcpy(&pifm, pb.data(), sizeof pifm);
  EXPECT_EQ(pifm.ifi_flags & IFF_UP, 0u) << "the kernel cannot open a peer before the pair is joined";
  auto peer = attrs(pb, NLMSG_ALIGN(sizeof(ifinfomsg)), pb.size());
  EXPECT_EQ(peer[IFLA_IFNAME], std::string("s1-eth1\0", 8));
  EXPECT_EQ(u32(peer[IFLA_NET_NS_FD]), 8u);
  EXPECT_EQ(u32(peer[IFLA_MTU]), 9000u);
  EXPECT_FALSE(peer.count(IFLA_ADDRESS));
}

TEST(Netlink, VethGroupIsOnBothEndsOnlyWhenAsked) {
  auto plain = veth_request({"a", 1, 0, ""}, {"b", 2, 0, ""}, "x");
  ASSERT_TRUE(plain.ok());
  size_t top = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg));
  EXPECT_FALSE(attrs(plain->bytes, top, plain->bytes.size()).count(IFLA_GROUP));
  auto grouped = veth_request({"a", 1, 0, "", kLabLinkGroup}, {"b", 2, 0, "", kLabLinkGroup}, "x");
  ASSERT_TRUE(grouped.ok());
  auto a = attrs(grouped->bytes, top, grouped->bytes.size());
  EXPECT_EQ(u32(a[IFLA_GROUP]), kLabLinkGroup);
  std::vector<uint8_t> lb(a[IFLA_LINKINFO].begin(), a[IFLA_LINKINFO].end());
  auto info = attrs(lb, 0, lb.size());
  std::vector<uint8_t> db(info[IFLA_INFO_DATA].begin(), info[IFLA_INFO_DATA].end());
  auto data = attrs(db, 0, db.size());
  std::vector<uint8_t> pb(data[VETH_INFO_PEER].begin(), data[VETH_INFO_PEER].end());
  EXPECT_EQ(u32(attrs(pb, NLMSG_ALIGN(sizeof(ifinfomsg)), pb.size())[IFLA_GROUP]), kLabLinkGroup);
}

TEST(Netlink, GroupDeleteNamesTheGroupNotAnInterface) {
  RtnlRequest r = group_delete_request(kLabLinkGroup, "deleting");
  nlmsghdr h;
  std::memcpy(&h, r.bytes.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_type, RTM_DELLINK);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_ACK);
  ifinfomsg ifm;
  std::memcpy(&ifm, r.bytes.data() + NLMSG_HDRLEN, sizeof ifm);
  EXPECT_EQ(ifm.ifi_index, 0);
  auto a = attrs(r.bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), r.bytes.size());
  EXPECT_EQ(u32(a[IFLA_GROUP]), kLabLinkGroup);
  EXPECT_FALSE(a.count(IFLA_IFNAME));
  EXPECT_EQ(r.tolerated_errno, ENODEV) << "an empty group is nothing to delete, not an error";
}

TEST(Netlink, AddressRequestCarriesPrefixAndBroadcast) {
  auto r = addr_request(3, "10.0.0.7/8", "adding");
  ASSERT_TRUE(r.ok()) << r.error().message;
  ifaddrmsg ifa;
  std::memcpy(&ifa, r->bytes.data() + NLMSG_HDRLEN, sizeof ifa);
  EXPECT_EQ(ifa.ifa_family, AF_INET);
  EXPECT_EQ(ifa.ifa_prefixlen, 8);
  EXPECT_EQ(ifa.ifa_index, 3u);
  auto a = attrs(r->bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifaddrmsg)), r->bytes.size());
  EXPECT_EQ(ntohl(u32(a[IFA_LOCAL])), 0x0a000007u);
  EXPECT_EQ(ntohl(u32(a[IFA_BROADCAST])), 0x0affffffu);
}

TEST(Netlink, BadInputIsAnErrorNamingIt) {
  auto bad_mac = veth_request({"a", 1, 0, "00:11:22"}, {"b", 2, 0, ""}, "x");
  ASSERT_FALSE(bad_mac.ok());
  EXPECT_NE(bad_mac.error().message.find("'00:11:22' is not a MAC address"), std::string::npos);
  EXPECT_FALSE(parse_mac("00:11:22:33:44:55:66").ok());
  EXPECT_FALSE(parse_mac("zz:11:22:33:44:55").ok());
  for (const char* cidr : {"10.0.0.1/33", "10.0.0.1/", "10.0.0.1/x", "10.0.0/8", "h1"}) {
    auto r = addr_request(2, cidr, "adding to eth0 in ns1");
    ASSERT_FALSE(r.ok()) << cidr;
    EXPECT_NE(r.error().message.find("adding to eth0 in ns1"), std::string::npos) << r.error().message;
  }
}

TEST(Netlink, BridgeRequestSetsStpOnlyWhenAsked) {
  auto plain = bridge_request("br-s1", false, "x");
  auto stp = bridge_request("br-s1", true, "x");
  EXPECT_LT(plain.bytes.size(), stp.bytes.size());
  auto a = attrs(stp.bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), stp.bytes.size());
  std::vector<uint8_t> lb(a[IFLA_LINKINFO].begin(), a[IFLA_LINKINFO].end());
  auto info = attrs(lb, 0, lb.size());
  EXPECT_EQ(info[IFLA_INFO_KIND], std::string("bridge\0", 7));
  std::vector<uint8_t> db(info[IFLA_INFO_DATA].begin(), info[IFLA_INFO_DATA].end());
  auto data = attrs(db, 0, db.size());
  EXPECT_EQ(u32(data[IFLA_BR_STP_STATE]), 1u);
  EXPECT_EQ(u32(data[IFLA_BR_FORWARD_DELAY]), 200u);
}

// IFLA_LINKINFO's IFLA_INFO_DATA of a RTM_NEWLINK request, and its kind.
std::map<int, std::string> link_data(const std::vector<uint8_t>& b, std::string* kind) {
  auto a = attrs(b, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), b.size());
  std::vector<uint8_t> lb(a[IFLA_LINKINFO].begin(), a[IFLA_LINKINFO].end());
  auto info = attrs(lb, 0, lb.size());
  *kind = info[IFLA_INFO_KIND];
  std::vector<uint8_t> db(info[IFLA_INFO_DATA].begin(), info[IFLA_INFO_DATA].end());
  return attrs(db, 0, db.size());
}

TEST(Netlink, VxlanRequestCarriesVniPortEndsAndGoesUpInItsNamespace) {
  auto r = vxlan_request({"s1-eth3", 9, 4242, "192.0.2.11", "192.0.2.12", 14789, 1450}, "creating vxlan x");
  ASSERT_TRUE(r.ok()) << r.error().message;
  nlmsghdr h;
  std::memcpy(&h, r->bytes.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_type, RTM_NEWLINK);
  EXPECT_EQ(h.nlmsg_len, r->bytes.size());
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_CREATE);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_EXCL) << "an existing device of that name is an error, not reused";
  ifinfomsg ifm;
  std::memcpy(&ifm, r->bytes.data() + NLMSG_HDRLEN, sizeof ifm);
  EXPECT_EQ(ifm.ifi_flags & IFF_UP, unsigned(IFF_UP));
  auto a = attrs(r->bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), r->bytes.size());
  EXPECT_EQ(a[IFLA_IFNAME], std::string("s1-eth3\0", 8));
  EXPECT_EQ(u32(a[IFLA_NET_NS_FD]), 9u);
  EXPECT_EQ(u32(a[IFLA_MTU]), 1450u);
  std::string kind;
  auto d = link_data(r->bytes, &kind);
  EXPECT_EQ(kind, std::string("vxlan\0", 6));
  EXPECT_EQ(u32(d[IFLA_VXLAN_ID]), 4242u);
  ASSERT_EQ(d[IFLA_VXLAN_PORT].size(), 2u);
  EXPECT_EQ(uint8_t(d[IFLA_VXLAN_PORT][0]), 14789 >> 8) << "the port is in network order";
  EXPECT_EQ(uint8_t(d[IFLA_VXLAN_PORT][1]), 14789 & 0xff);
  EXPECT_EQ(ntohl(u32(d[IFLA_VXLAN_LOCAL])), 0xc000020bu);
  EXPECT_EQ(ntohl(u32(d[IFLA_VXLAN_GROUP])), 0xc000020cu);
  EXPECT_FALSE(d.count(IFLA_VXLAN_LOCAL6));
}

TEST(Netlink, VxlanWithoutRemoteOrOverIpv6) {
  auto flooded = vxlan_request({"ctl0", -1, 7, "192.0.2.11", "", 4789, 0}, "x");
  ASSERT_TRUE(flooded.ok()) << flooded.error().message;
  auto a = attrs(flooded->bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ifinfomsg)), flooded->bytes.size());
  EXPECT_FALSE(a.count(IFLA_NET_NS_FD)) << "-1: the socket's own namespace";
  EXPECT_FALSE(a.count(IFLA_MTU)) << "0: the kernel's MTU";
  std::string kind;
  EXPECT_FALSE(link_data(flooded->bytes, &kind).count(IFLA_VXLAN_GROUP));
  auto v6 = vxlan_request({"t0", 3, 1, "2001:db8::1", "2001:db8::2", 4789, 0}, "x");
  ASSERT_TRUE(v6.ok()) << v6.error().message;
  auto d = link_data(v6->bytes, &kind);
  EXPECT_EQ(d[IFLA_VXLAN_LOCAL6].size(), 16u);
  EXPECT_EQ(uint8_t(d[IFLA_VXLAN_GROUP6][15]), 2);
  EXPECT_FALSE(d.count(IFLA_VXLAN_LOCAL));
}

TEST(Netlink, VxlanBadInputIsAnErrorNamingIt) {
  const std::pair<VxlanDevice, const char*> bad[] = {
      {{"t0", 3, 1u << 24, "192.0.2.1", "192.0.2.2", 4789, 0}, "past 24 bits"},
      {{"t0", 3, 1, "192.0.2.1", "192.0.2.2", 0, 0}, "UDP port 0"},
      {{"t0", 3, 1, "192.0.2.1", "192.0.2.2", 70000, 0}, "UDP port 70000"},
      {{"t0", 3, 1, "m1", "192.0.2.2", 4789, 0}, "'m1' is not an IPv4 or IPv6 address"},
      {{"t0", 3, 1, "192.0.2.1", "2001:db8::2", 4789, 0}, "not of one address family"},
      {{"a-name-far-too-long", 3, 1, "192.0.2.1", "192.0.2.2", 4789, 0}, "is not an interface name"},
      {{"", 3, 1, "192.0.2.1", "192.0.2.2", 4789, 0}, "is not an interface name"},
  };
  for (const auto& [d, why] : bad) {
    auto r = vxlan_request(d, "creating vxlan in ns1");
    ASSERT_FALSE(r.ok()) << why;
    EXPECT_NE(r.error().message.find(why), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find("creating vxlan in ns1"), std::string::npos) << r.error().message;
  }
}

TEST(Netlink, VxlanFloodEntryIsAllZerosToThePeerInTheDevicesOwnTable) {
  auto r = vxlan_flood_request(5, "192.0.2.13", "flooding");
  ASSERT_TRUE(r.ok()) << r.error().message;
  nlmsghdr h;
  std::memcpy(&h, r->bytes.data(), sizeof h);
  EXPECT_EQ(h.nlmsg_type, RTM_NEWNEIGH);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_APPEND) << "one entry per peer, appended, not replaced";
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_CREATE);
  ndmsg ndm;
  std::memcpy(&ndm, r->bytes.data() + NLMSG_HDRLEN, sizeof ndm);
  EXPECT_EQ(ndm.ndm_family, AF_BRIDGE);
  EXPECT_EQ(ndm.ndm_ifindex, 5);
  EXPECT_EQ(ndm.ndm_flags, NTF_SELF);
  EXPECT_TRUE(ndm.ndm_state & NUD_PERMANENT);
  auto a = attrs(r->bytes, NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(ndmsg)), r->bytes.size());
  EXPECT_EQ(a[NDA_LLADDR], std::string(6, '\0'));
  EXPECT_EQ(ntohl(u32(a[NDA_DST])), 0xc000020du);
  EXPECT_FALSE(vxlan_flood_request(5, "m3", "flooding").ok());
}

TEST(LabExecNames, HostNamesAfterTheCommandBecomeAddresses) {
  std::map<std::string, std::string> addrs = {{"h1", "10.0.0.1"}, {"h2", "10.0.0.2"}};
  EXPECT_EQ(with_host_addresses({"ping", "-c1", "h2"}, addrs),
            (std::vector<std::string>{"ping", "-c1", "10.0.0.2"}));
  EXPECT_EQ(with_host_addresses({"iperf3", "-c", "h1", "-B", "h2"}, addrs),
            (std::vector<std::string>{"iperf3", "-c", "10.0.0.1", "-B", "10.0.0.2"}));
  // Only whole arguments, never the command itself.
  EXPECT_EQ(with_host_addresses({"h1", "h22", "xh2", "h2:80"}, addrs),
            (std::vector<std::string>{"h1", "h22", "xh2", "h2:80"}));
}

}  // namespace
}  // namespace flowlab::lab

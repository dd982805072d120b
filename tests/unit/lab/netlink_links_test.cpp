// The RTM_NEWLINK parser behind the lab's counters (netlink.h, LinkInfo): a message
// built byte by byte as the kernel sends it in a dump (name, master, stats64, a
// bridge port's state inside IFLA_LINKINFO), and malformed ones refused.
#include <gtest/gtest.h>
#include <linux/if.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <string>
#include <vector>

#include "lab/host/netlink.h"

namespace flowlab::lab {
namespace {

// A netlink message under construction: attributes appended, nests closed by offset.
class Builder {
 public:
  Builder() {
    buf_.resize(NLMSG_LENGTH(sizeof(ifinfomsg)));
    auto* h = reinterpret_cast<nlmsghdr*>(buf_.data());
    h->nlmsg_type = RTM_NEWLINK;
    ifinfomsg ifm{};
    ifm.ifi_index = 7;
    ifm.ifi_flags = IFF_UP | IFF_BROADCAST;
    std::memcpy(buf_.data() + NLMSG_HDRLEN, &ifm, sizeof ifm);
  }
  void put(uint16_t type, const void* data, size_t len) {
    // Built apart and appended: a resize-and-fill of buf_ trips GCC 12's
    // -Warray-bounds at -O2 (a false positive).
    std::vector<uint8_t> attr(NLA_ALIGN(NLA_HDRLEN + len), 0);
    nlattr a{uint16_t(NLA_HDRLEN + len), type};
    std::memcpy(attr.data(), &a, sizeof a);
    std::memcpy(attr.data() + NLA_HDRLEN, data, len);
    buf_.insert(buf_.end(), attr.begin(), attr.end());
  }
  void put_str(uint16_t type, const std::string& s) { put(type, s.c_str(), s.size() + 1); }
  size_t open(uint16_t type) {
    size_t off = buf_.size();
    buf_.resize(off + NLA_HDRLEN, 0);
    nlattr a{0, uint16_t(type | NLA_F_NESTED)};
    std::memcpy(buf_.data() + off, &a, sizeof a);
    return off;
  }
  void close(size_t off) {
    uint16_t len = uint16_t(buf_.size() - off);
    std::memcpy(buf_.data() + off, &len, sizeof len);
  }
  std::vector<uint8_t> done() {
    auto* h = reinterpret_cast<nlmsghdr*>(buf_.data());
    h->nlmsg_len = uint32_t(buf_.size());
    return buf_;
  }

 private:
  std::vector<uint8_t> buf_;
};

TEST(NetlinkLinks, ParsesNameMasterStatsAndBridgePortState) {
  Builder b;
  b.put_str(IFLA_IFNAME, "s1-eth1");
  uint32_t master = 5;
  b.put(IFLA_MASTER, &master, sizeof master);
  rtnl_link_stats64 st{};
  st.rx_packets = 11;
  st.tx_packets = 22;
  st.rx_bytes = 1100;
  st.tx_bytes = 2200;
  st.rx_dropped = 3;
  st.tx_errors = 4;
  b.put(IFLA_STATS64, &st, sizeof st);
  size_t li = b.open(IFLA_LINKINFO);
  b.put_str(IFLA_INFO_KIND, "veth");
  b.put_str(IFLA_INFO_SLAVE_KIND, "bridge");
  size_t sd = b.open(IFLA_INFO_SLAVE_DATA);
  uint8_t state = BR_STATE_BLOCKING;
  b.put(IFLA_BRPORT_STATE, &state, 1);
  b.close(sd);
  b.close(li);
  auto msg = b.done();
  LinkInfo l;
  ASSERT_TRUE(parse_link_message(msg.data(), msg.size(), l));
  EXPECT_EQ(l.index, 7);
  EXPECT_EQ(l.name, "s1-eth1");
  EXPECT_EQ(l.master, 5);
  EXPECT_TRUE(l.up);
  EXPECT_EQ(l.rx_packets, 11u);
  EXPECT_EQ(l.tx_packets, 22u);
  EXPECT_EQ(l.rx_bytes, 1100u);
  EXPECT_EQ(l.tx_bytes, 2200u);
  EXPECT_EQ(l.rx_dropped, 3u);
  EXPECT_EQ(l.tx_errors, 4u);
  EXPECT_EQ(l.bridge_port_state, BR_STATE_BLOCKING);
  EXPECT_STREQ(bridge_port_state_name(l.bridge_port_state), "blocking");
}

TEST(NetlinkLinks, NotABridgePortHasNoState) {
  Builder b;
  b.put_str(IFLA_IFNAME, "br-s1");
  size_t li = b.open(IFLA_LINKINFO);
  b.put_str(IFLA_INFO_KIND, "bridge");
  b.close(li);
  auto msg = b.done();
  LinkInfo l;
  ASSERT_TRUE(parse_link_message(msg.data(), msg.size(), l));
  EXPECT_EQ(l.name, "br-s1");
  EXPECT_EQ(l.master, 0);
  EXPECT_EQ(l.bridge_port_state, -1);
  EXPECT_EQ(l.rx_packets, 0u) << "no IFLA_STATS64: zero";
  EXPECT_STREQ(bridge_port_state_name(-1), "unknown");
}

TEST(NetlinkLinks, RefusesShortOrOtherMessages) {
  Builder b;
  b.put_str(IFLA_IFNAME, "x");
  auto msg = b.done();
  LinkInfo l;
  EXPECT_FALSE(parse_link_message(msg.data(), 8, l)) << "shorter than a header";
  EXPECT_FALSE(parse_link_message(msg.data(), msg.size() - 1, l)) << "nlmsg_len past the buffer";
  auto other = msg;
  reinterpret_cast<nlmsghdr*>(other.data())->nlmsg_type = RTM_NEWADDR;
  EXPECT_FALSE(parse_link_message(other.data(), other.size(), l));
  auto tiny = msg;
  reinterpret_cast<nlmsghdr*>(tiny.data())->nlmsg_len = NLMSG_HDRLEN + 4;
  EXPECT_FALSE(parse_link_message(tiny.data(), tiny.size(), l)) << "no room for the ifinfomsg";
  // A truncated attribute inside a well-formed header: parsed up to it, no crash.
  auto cut = msg;
  nlattr bad{200, IFLA_IFNAME};
  std::memcpy(cut.data() + NLMSG_LENGTH(sizeof(ifinfomsg)), &bad, sizeof bad);
  EXPECT_TRUE(parse_link_message(cut.data(), cut.size(), l));
  EXPECT_EQ(l.name, "");
}

}  // namespace
}  // namespace flowlab::lab

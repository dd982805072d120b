// LinkMonitor::concerns (src/switch/link_monitor.h): which rtnetlink reads wake
// the switch. Messages are built as the kernel sends them.
#include "switch/link_monitor.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <vector>

namespace flowlab::sw {
namespace {

void put_link(std::vector<char>& buf, uint16_t type, int ifindex, size_t attr_bytes = 12) {
  nlmsghdr h{};
  h.nlmsg_len = uint32_t(NLMSG_LENGTH(sizeof(ifinfomsg) + attr_bytes));
  h.nlmsg_type = type;
  ifinfomsg ifi{};
  ifi.ifi_family = AF_UNSPEC;
  ifi.ifi_index = ifindex;
  size_t at = buf.size();
  buf.resize(at + NLMSG_ALIGN(h.nlmsg_len));
  std::memcpy(buf.data() + at, &h, sizeof h);
  std::memcpy(buf.data() + at + NLMSG_HDRLEN, &ifi, sizeof ifi);
}

TEST(LinkMonitor, OnlyTheSwitchsOwnInterfacesWakeIt) {
  auto mine = [](int ifindex) { return ifindex == 7 || ifindex == 9; };
  std::vector<char> others;
  put_link(others, RTM_NEWLINK, 3);
  put_link(others, RTM_DELLINK, 4, 5);  // an attribute length that needs the alignment
  EXPECT_FALSE(LinkMonitor::concerns(others.data(), others.size(), mine));
  std::vector<char> with_mine = others;
  put_link(with_mine, RTM_NEWLINK, 9);
  EXPECT_TRUE(LinkMonitor::concerns(with_mine.data(), with_mine.size(), mine));
  std::vector<char> deleted;
  put_link(deleted, RTM_DELLINK, 7);
  EXPECT_TRUE(LinkMonitor::concerns(deleted.data(), deleted.size(), mine));
  EXPECT_FALSE(LinkMonitor::concerns(nullptr, 0, mine));
}

TEST(LinkMonitor, ATruncatedOrErrorMessageWakesItToBeSafe) {
  auto none = [](int) { return false; };
  std::vector<char> buf;
  put_link(buf, RTM_NEWLINK, 3);
  EXPECT_TRUE(LinkMonitor::concerns(buf.data(), buf.size() - 8, none));  // cut inside the message
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(4);
  h.nlmsg_type = RTM_NEWLINK;  // too short for its ifinfomsg
  EXPECT_TRUE(LinkMonitor::concerns(reinterpret_cast<const char*>(&h), sizeof h, none));
  std::vector<char> err(NLMSG_LENGTH(sizeof(nlmsgerr)));
  h.nlmsg_len = uint32_t(err.size());
  h.nlmsg_type = NLMSG_ERROR;
  std::memcpy(err.data(), &h, sizeof h);
  EXPECT_TRUE(LinkMonitor::concerns(err.data(), err.size(), none));
}

}  // namespace
}  // namespace flowlab::sw

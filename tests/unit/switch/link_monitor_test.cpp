// LinkMonitor::concerns (src/switch/link_monitor.h): which rtnetlink reads wake
// the switch. Messages are built as the kernel sends them.
#include "switch/link_monitor.h"

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
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

TEST(LinkMonitor, ReadsTheIndexesOfTheChangedLinks) {
  std::vector<char> buf;
  put_link(buf, RTM_NEWLINK, 3);
  put_link(buf, RTM_DELLINK, 4, 5);  // an attribute length that needs the alignment
  put_link(buf, RTM_NEWLINK, 9);
  auto got = LinkMonitor::changed_links(buf.data(), buf.size());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(*got, (std::vector<int>{3, 4, 9}));
  auto none = LinkMonitor::changed_links(nullptr, 0);
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(LinkMonitor, ATruncatedOrErrorMessageMakesEverySubscriberLook) {
  std::vector<char> buf;
  put_link(buf, RTM_NEWLINK, 3);
  EXPECT_FALSE(LinkMonitor::changed_links(buf.data(), buf.size() - 8));  // cut inside the message
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(4);
  h.nlmsg_type = RTM_NEWLINK;  // too short for its ifinfomsg
  EXPECT_FALSE(LinkMonitor::changed_links(reinterpret_cast<const char*>(&h), sizeof h));
  std::vector<char> err(NLMSG_LENGTH(sizeof(nlmsgerr)));
  h.nlmsg_len = uint32_t(err.size());
  h.nlmsg_type = NLMSG_ERROR;
  std::memcpy(err.data(), &h, sizeof h);
  EXPECT_FALSE(LinkMonitor::changed_links(err.data(), err.size()));
}

// A subscriber is told of its own links' changes only, and not after it is gone.
TEST(LinkMonitor, ASubscriberHearsOfItsOwnLinksOnly) {
  // A veth pair of its own in the process's namespace (the monitor's), no traffic.
  if (::geteuid() != 0) GTEST_SKIP() << "needs root (a veth pair)";
  const std::string name = "fllm" + std::to_string(::getpid() % 100000);
  ASSERT_EQ(std::system(("ip link add " + name + " type veth peer name " + name + "p").c_str()), 0);
  struct Gone {
    std::string name;
    ~Gone() { (void)!std::system(("ip link del " + name + " 2>/dev/null").c_str()); }
  } gone{name};
  const int idx = int(if_nametoindex(name.c_str()));
  ASSERT_GT(idx, 0);
  std::atomic<int> mine{0}, other{0};
  auto a = LinkMonitor::open({idx}, [&] { mine++; });
  auto b = LinkMonitor::open({idx + 100000}, [&] { other++; });
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(std::system(("ip link set " + name + " up").c_str()), 0);
  for (int i = 0; i < 200 && mine.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_GT(mine.load(), 0);
  EXPECT_EQ(other.load(), 0);
  a->reset();
  const int seen = mine.load();
  ASSERT_EQ(std::system(("ip link del " + name).c_str()), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(mine.load(), seen);
}

}  // namespace
}  // namespace flowlab::sw

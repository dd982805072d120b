// netdev helpers: name checks, lookups, link up/down on a veth in a
// namespace made by the test (root), and errors for missing interfaces.
#include "port/netdev.h"

#include <gtest/gtest.h>

#include "netns_util.h"

namespace flowlab {
namespace {

TEST(Netdev, CheckName) {
  EXPECT_TRUE(netdev::check_name("veth0").ok());
  EXPECT_FALSE(netdev::check_name("").ok());
  EXPECT_FALSE(netdev::check_name("sixteen-chars-xx").ok());
  EXPECT_FALSE(netdev::check_name("a/b").ok());
  EXPECT_FALSE(netdev::check_name("tap:x").ok());
}

TEST(Netdev, LoopbackAndMissing) {
  auto lo = netdev::ifindex("lo");
  ASSERT_TRUE(lo.ok());
  EXPECT_EQ(*lo, 1);
  EXPECT_EQ(*netdev::name_of(1), "lo");
  EXPECT_EQ(*netdev::mtu("lo"), 65536u);
  auto missing = netdev::mtu("flnx" + std::to_string(::getpid()));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  EXPECT_FALSE(netdev::exists("flnx" + std::to_string(::getpid())));
}

TEST(Netdev, SetUpAndDownInANamespace) {
  if (!testutil::is_root()) GTEST_SKIP() << "needs root";
  testutil::Netns ns("flt" + std::to_string(::getpid()) + "n");
  ASSERT_TRUE(ns.ok());
  ASSERT_EQ(ns.exec("ip link add fld0 type veth peer name fld1"), 0);
  ASSERT_EQ(ns.exec("ip link set fld1 up"), 0);  // carrier for fld0 once it is up
  ASSERT_EQ(ns.exec("ip link set fld0 address 02:12:34:56:78:9a mtu 1400"), 0);
  // A control socket made inside the namespace answers for it from any thread.
  UniqueFd sock = ns.run([] {
    auto s = netdev::control_socket();
    return s.ok() ? std::move(*s) : UniqueFd();
  });
  ASSERT_TRUE(sock.valid());
  EXPECT_FALSE(netdev::exists("fld0"));  // not in this thread's namespace
  EXPECT_TRUE(netdev::exists("fld0", sock.get()));
  EXPECT_EQ(netdev::mac("fld0", sock.get())->to_string(), "02:12:34:56:78:9a");
  EXPECT_EQ(*netdev::mtu("fld0", sock.get()), 1400u);
  EXPECT_FALSE(*netdev::link_up("fld0", sock.get()));
  ASSERT_TRUE(netdev::set_up("fld0", true, sock.get()).ok());
  EXPECT_TRUE(testutil::wait_for([&] { return *netdev::link_up("fld0", sock.get()); },
                                 std::chrono::milliseconds(2000)));  // carrier follows shortly
  EXPECT_NE(ns.exec_out("ip link show fld0").find(",UP"), std::string::npos);
  ASSERT_TRUE(netdev::set_up("fld0", false, sock.get()).ok());
  EXPECT_FALSE(*netdev::link_up("fld0", sock.get()));
  EXPECT_EQ(*netdev::mtu("fld0", sock.get()), 1400u);  // other settings untouched
}

}  // namespace
}  // namespace flowlab

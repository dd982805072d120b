// The tc messages of netlink_tc.h applied to a real kernel, in a namespace of the
// test's own, and read back with `tc -d` (iproute2's view is the reference): htb
// with its class and pfifo leaf at 1G and 10G, tbf, clsact with a bpf filter in
// direct-action that really drops, the delete, and netem's probe. Bounded
// (seconds); the namespace is deleted even when an assertion fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/net/netlink_tc.h"
#include "lab/net/tc_bpf.h"

namespace flowlab::lab {
namespace {

class TcNetlink : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces)";
    if (!have_program("tc") || !have_program("ip")) GTEST_SKIP() << "needs tc and ip (to read back)";
    auto ns = Netns::create(fmt::format("fltc{}-{}", getpid(), ++counter_), nullptr);
    ASSERT_TRUE(ns.ok()) << ns.error().message;
    ns_ = std::move(*ns);
    ASSERT_TRUE(
        run_checked({"ip", "link", "add", "a0", "type", "veth", "peer", "name", "b0"}, in_ns(ns_.name(), 5))
            .ok());
    ASSERT_TRUE(run_checked({"ip", "link", "set", "a0", "up"}, in_ns(ns_.name(), 5)).ok());
    ASSERT_TRUE(run_checked({"ip", "link", "set", "b0", "up"}, in_ns(ns_.name(), 5)).ok());
    auto idx = ifindex_in(ns_.name(), "a0");
    ASSERT_TRUE(idx.ok()) << idx.error().message;
    a0_ = *idx;
  }
  std::string tc(std::vector<std::string> args) {
    args.insert(args.begin(), {"tc", "-d"});
    auto r = run_command(args, in_ns(ns_.name(), 5));
    EXPECT_TRUE(r.ok()) << r.describe();
    return r.out;
  }
  static inline int counter_ = 0;
  Netns ns_;
  int a0_ = 0;
};

std::vector<RtnlRequest> htb_tree(int ifindex, uint64_t bps, uint64_t burst, uint32_t limit) {
  std::vector<RtnlRequest> v;
  v.push_back(htb_qdisc_request(ifindex, tc_handle(1, 0), 1, "htb"));
  HtbClassSpec c;
  c.rate_bps = c.ceil_bps = bps;
  c.burst_bytes = c.cburst_bytes = burst;
  c.quantum = 70000;
  v.push_back(htb_class_request(ifindex, c, "class"));
  v.push_back(pfifo_qdisc_request(ifindex, tc_handle(1, 1), tc_handle(0x10, 0), limit, "pfifo"));
  return v;
}

TEST_F(TcNetlink, HtbClassAndLeafAreWhatTcShows) {
  ASSERT_TRUE(tc_apply(ns_.name(), htb_tree(a0_, 1'000'000'000, 250'000, 321)).ok());
  std::string q = tc({"qdisc", "show", "dev", "a0"});
  EXPECT_NE(q.find("qdisc htb 1: root"), std::string::npos) << q;
  EXPECT_NE(q.find("default 0x1"), std::string::npos) << q;
  EXPECT_NE(q.find("qdisc pfifo 10: parent 1:1 limit 321p"), std::string::npos) << q;
  std::string c = tc({"class", "show", "dev", "a0"});
  EXPECT_NE(c.find("class htb 1:1 root leaf 10:"), std::string::npos) << c;
  EXPECT_NE(c.find("rate 1Gbit ceil 1Gbit"), std::string::npos) << c;
  // tc derives the burst back from the ticks and the rate: 250000 bytes (2 ms).
  EXPECT_NE(c.find("burst 250000b"), std::string::npos) << c;
  EXPECT_NE(c.find("quantum 70000"), std::string::npos) << c;
}

TEST_F(TcNetlink, TenGigabitAndAboveThirtyTwoBitRates) {
  ASSERT_TRUE(tc_apply(ns_.name(), htb_tree(a0_, 10'000'000'000ull, 2'500'000, 1000)).ok());
  std::string c = tc({"class", "show", "dev", "a0"});
  EXPECT_NE(c.find("rate 10Gbit ceil 10Gbit"), std::string::npos) << c;
  ASSERT_TRUE(tc_delete(ns_.name(), qdisc_delete_request(a0_, tc_root(), "del")).ok());
  EXPECT_EQ(tc({"qdisc", "show", "dev", "a0"}).find("htb"), std::string::npos);
  // 100 Gbit/s = 12.5e9 bytes/s needs TCA_HTB_RATE64.
  ASSERT_TRUE(tc_apply(ns_.name(), htb_tree(a0_, 100'000'000'000ull, 25'000'000, 1000)).ok());
  c = tc({"class", "show", "dev", "a0"});
  EXPECT_NE(c.find("rate 100Gbit ceil 100Gbit"), std::string::npos) << c;
}

TEST_F(TcNetlink, DeletingNothingIsNotAnError) {
  EXPECT_TRUE(tc_delete(ns_.name(), qdisc_delete_request(a0_, tc_root(), "del")).ok());
  // A real failure still is: a class under a qdisc that does not exist.
  HtbClassSpec c;
  c.rate_bps = 1'000'000;
  c.burst_bytes = 2000;
  std::vector<RtnlRequest> v;
  v.push_back(htb_class_request(a0_, c, "class under nothing"));
  auto st = tc_apply(ns_.name(), std::move(v));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("class under nothing"), std::string::npos) << st.error().message;
}

TEST_F(TcNetlink, TbfAsTcShowsIt) {
  std::vector<RtnlRequest> v;
  v.push_back(
      tbf_qdisc_request(a0_, tc_root(), tc_handle(2, 0), TbfSpec{100'000'000, 125'000, 500'000}, "tbf"));
  ASSERT_TRUE(tc_apply(ns_.name(), std::move(v)).ok());
  std::string q = tc({"qdisc", "show", "dev", "a0"});
  EXPECT_NE(q.find("qdisc tbf 2: root"), std::string::npos) << q;
  EXPECT_NE(q.find("rate 100Mbit burst 125000b"), std::string::npos) << q;
  // tc shows the limit as the latency it allows: (500000 - 125000) B at 12.5e6 B/s.
  EXPECT_NE(q.find("lat 30ms"), std::string::npos) << q;
  EXPECT_NE(q.find("linklayer ethernet"), std::string::npos) << q;
}

TEST_F(TcNetlink, BpfFilterInDirectActionDropsWhatItShoots) {
  // Frames a0 sends (ARP for a neighbour) arrive at b0 until the filter shoots them.
  auto o = in_ns(ns_.name(), 10);
  ASSERT_TRUE(run_checked({"ip", "addr", "add", "10.9.0.1/24", "dev", "a0"}, o).ok());
  auto b0_rx = [&] {
    auto r = run_command({"cat", "/sys/class/net/b0/statistics/rx_packets"}, o);
    return std::stoll(r.ok() && !r.out.empty() ? r.out : "-1");
  };
  auto send_some = [&] {
    run_command({"ping", "-c", "2", "-i", "0.2", "-W", "1", "-I", "a0", "10.9.0.2"}, o);
  };
  long long before = b0_rx();
  send_some();
  long long mid = b0_rx();
  EXPECT_GT(mid, before) << "without a filter a0's frames reach b0";

  auto fd = load_tc_program(TcAction{100, 0});  // every packet: TC_ACT_SHOT
  ASSERT_TRUE(fd.ok()) << fd.error().message;
  std::vector<RtnlRequest> v;
  v.push_back(clsact_qdisc_request(a0_, "clsact"));
  BpfFilterSpec f;
  f.ingress = false;
  f.prog_fd = *fd;
  f.name = "flowlab_drop";
  v.push_back(bpf_filter_request(a0_, f, "filter"));
  auto st = tc_apply(ns_.name(), std::move(v));
  ::close(*fd);  // the filter holds the program
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_NE(tc({"qdisc", "show", "dev", "a0"}).find("qdisc clsact ffff: parent ffff:fff1"),
            std::string::npos);
  std::string fl = tc({"filter", "show", "dev", "a0", "egress"});
  EXPECT_NE(fl.find("bpf chain 0 handle 0x1 flowlab_drop direct-action"), std::string::npos) << fl;
  EXPECT_NE(fl.find("pref 1"), std::string::npos) << fl;
  run_command({"ip", "neigh", "flush", "dev", "a0"}, o);
  long long shot_from = b0_rx();
  send_some();
  EXPECT_EQ(b0_rx(), shot_from) << "the filter's TC_ACT_SHOT drops every frame a0 sends";
  // The clsact qdisc goes with its filters; frames flow again.
  ASSERT_TRUE(tc_delete(ns_.name(), qdisc_delete_request(a0_, 0xFFFFFFF1u, "del clsact")).ok());
  EXPECT_EQ(tc({"qdisc", "show", "dev", "a0"}).find("clsact"), std::string::npos);
  EXPECT_EQ(tc({"filter", "show", "dev", "a0", "egress"}), "");
  send_some();
  EXPECT_GT(b0_rx(), shot_from);
}

TEST_F(TcNetlink, NetemProbeMatchesTheKernel) {
  // The kernel either has netem (the probe must then leave nothing behind) or
  // not; `tc` asked the same question must agree.
  bool ours = netem_supported(ns_.name());
  auto r =
      run_command({"tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"}, in_ns(ns_.name(), 5));
  EXPECT_EQ(ours, r.ok()) << r.describe();
  EXPECT_EQ(tc({"qdisc", "show", "dev", "lo"}).find("qdisc netem 9:"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

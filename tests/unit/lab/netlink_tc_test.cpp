// tc messages through rtnetlink, byte by byte (no kernel): the header, the tcmsg
// and each attribute the kernel reads. The namespace test (tests/lab/
// netlink_tc_ns_test.cpp) applies them and compares with `tc -d`.
#include "lab/net/netlink_tc.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include <cstring>
#include <map>
#include <string>

namespace flowlab::lab {
namespace {

constexpr size_t kTop = NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(tcmsg));

// The attributes at `off..end` of `b` as type -> payload (first occurrence).
std::map<int, std::string> attrs(const std::string& b, size_t off, size_t end) {
  std::map<int, std::string> out;
  while (off + sizeof(nlattr) <= end) {
    nlattr a;
    std::memcpy(&a, b.data() + off, sizeof a);
    if (a.nla_len < sizeof(nlattr) || off + a.nla_len > end) break;
    int type = a.nla_type & NLA_TYPE_MASK;
    if (!out.count(type)) out[type] = b.substr(off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN);
    off += NLA_ALIGN(a.nla_len);
  }
  return out;
}
std::map<int, std::string> attrs(const std::string& b) { return attrs(b, 0, b.size()); }
std::string bytes(const RtnlRequest& r) { return std::string(r.bytes.begin(), r.bytes.end()); }

template <typename T>
T as(const std::string& s) {
  T v{};
  EXPECT_GE(s.size(), sizeof v);
  std::memcpy(&v, s.data(), std::min(s.size(), sizeof v));
  return v;
}

void check_header(const RtnlRequest& r, uint16_t type, bool create, int ifindex, uint32_t parent,
                  uint32_t handle) {
  nlmsghdr h = as<nlmsghdr>(bytes(r));
  EXPECT_EQ(h.nlmsg_type, type);
  EXPECT_EQ(h.nlmsg_len, r.bytes.size());
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_REQUEST);
  EXPECT_TRUE(h.nlmsg_flags & NLM_F_ACK);
  EXPECT_EQ(bool(h.nlmsg_flags & NLM_F_CREATE), create);
  EXPECT_EQ(bool(h.nlmsg_flags & NLM_F_EXCL), create);
  tcmsg t = as<tcmsg>(bytes(r).substr(NLMSG_HDRLEN));
  EXPECT_EQ(t.tcm_family, AF_UNSPEC);
  EXPECT_EQ(t.tcm_ifindex, ifindex);
  EXPECT_EQ(t.tcm_parent, parent);
  EXPECT_EQ(t.tcm_handle, handle);
}

TEST(NetlinkTc, TicksAre64NanosecondsOfTheRate) {
  // 1250 bytes at 1.25e9 B/s (10 Gbit/s) is 1 us = 15.625 ticks, rounded up.
  EXPECT_EQ(bytes_to_ticks(1250, 1'250'000'000), 16u);
  EXPECT_EQ(bytes_to_ticks(2'500'000, 1'250'000'000), 31250u);  // 2 ms
  EXPECT_EQ(bytes_to_ticks(1, 0), 0u);
  EXPECT_EQ(bytes_to_ticks(1ull << 40, 1), 0xFFFFFFFFu);  // clamped, not wrapped
}

TEST(NetlinkTc, HtbQdiscIsRootWithItsDefaultClass) {
  auto r = htb_qdisc_request(5, tc_handle(1, 0), 1, "htb");
  check_header(r, RTM_NEWQDISC, true, 5, 0xFFFFFFFFu, 0x10000u);
  auto a = attrs(bytes(r), kTop, r.bytes.size());
  EXPECT_EQ(a[TCA_KIND], std::string("htb\0", 4));
  auto o = attrs(a[TCA_OPTIONS]);
  ASSERT_TRUE(o.count(TCA_HTB_INIT));
  auto g = as<tc_htb_glob>(o[TCA_HTB_INIT]);
  EXPECT_EQ(g.version, 3u);
  EXPECT_EQ(g.rate2quantum, 10u);
  EXPECT_EQ(g.defcls, 1u);
}

TEST(NetlinkTc, HtbClassCarriesRateCeilBurstInTicks) {
  HtbClassSpec c;
  c.rate_bps = c.ceil_bps = 1'000'000'000;  // 125e6 B/s
  c.burst_bytes = 250'000;                  // 2 ms at the rate
  c.quantum = 70000;
  auto r = htb_class_request(3, c, "class");
  check_header(r, RTM_NEWTCLASS, true, 3, 0x10000u, 0x10001u);
  auto a = attrs(bytes(r), kTop, r.bytes.size());
  EXPECT_EQ(a[TCA_KIND], std::string("htb\0", 4));
  auto o = attrs(a[TCA_OPTIONS]);
  auto p = as<tc_htb_opt>(o[TCA_HTB_PARMS]);
  EXPECT_EQ(p.rate.rate, 125'000'000u);
  EXPECT_EQ(p.ceil.rate, 125'000'000u);
  EXPECT_EQ(p.rate.linklayer, TC_LINKLAYER_ETHERNET);  // so no rate table is needed
  EXPECT_EQ(p.buffer, 2'000'000u / 64);
  EXPECT_EQ(p.cbuffer, 2'000'000u / 64);
  EXPECT_EQ(p.quantum, 70000u);
  EXPECT_FALSE(o.count(TCA_HTB_RATE64)) << "1 Gbit/s fits the 32-bit field";
  EXPECT_FALSE(o.count(TCA_HTB_RTAB));
}

TEST(NetlinkTc, HtbClassAbove32BitBytesPerSecondUsesRate64) {
  HtbClassSpec c;
  c.rate_bps = 100'000'000'000ull;  // 12.5e9 B/s > 2^32
  c.ceil_bps = 10'000'000'000ull;   // 1.25e9 B/s fits
  c.burst_bytes = 1'000'000;
  auto r = htb_class_request(3, c, "class");
  auto o = attrs(attrs(bytes(r), kTop, r.bytes.size())[TCA_OPTIONS]);
  auto p = as<tc_htb_opt>(o[TCA_HTB_PARMS]);
  EXPECT_EQ(p.rate.rate, 0xFFFFFFFFu);
  ASSERT_TRUE(o.count(TCA_HTB_RATE64));
  EXPECT_EQ(as<uint64_t>(o[TCA_HTB_RATE64]), 12'500'000'000ull);
  EXPECT_EQ(p.ceil.rate, 1'250'000'000u);
  EXPECT_FALSE(o.count(TCA_HTB_CEIL64));
  EXPECT_EQ(p.buffer, 80'000u / 64);  // 80 us at 12.5e9 B/s
}

TEST(NetlinkTc, PfifoOptionsAreABareStruct) {
  auto r = pfifo_qdisc_request(4, tc_handle(1, 1), tc_handle(0x10, 0), 200, "pfifo");
  check_header(r, RTM_NEWQDISC, true, 4, 0x10001u, 0x100000u);
  auto a = attrs(bytes(r), kTop, r.bytes.size());
  EXPECT_EQ(a[TCA_KIND], std::string("pfifo\0", 6));
  ASSERT_EQ(a[TCA_OPTIONS].size(), sizeof(tc_fifo_qopt));
  EXPECT_EQ(as<tc_fifo_qopt>(a[TCA_OPTIONS]).limit, 200u);
}

TEST(NetlinkTc, TbfHasBurstInBytesAndTicks) {
  auto r = tbf_qdisc_request(2, tc_root(), tc_handle(2, 0), TbfSpec{100'000'000, 125'000, 500'000}, "tbf");
  check_header(r, RTM_NEWQDISC, true, 2, 0xFFFFFFFFu, 0x20000u);
  auto o = attrs(attrs(bytes(r), kTop, r.bytes.size())[TCA_OPTIONS]);
  auto q = as<tc_tbf_qopt>(o[TCA_TBF_PARMS]);
  EXPECT_EQ(q.rate.rate, 12'500'000u);
  EXPECT_EQ(q.limit, 500'000u);
  EXPECT_EQ(q.buffer, 10'000'000u / 64);  // 10 ms at 12.5e6 B/s
  EXPECT_EQ(as<uint32_t>(o[TCA_TBF_BURST]), 125'000u);
  EXPECT_FALSE(o.count(TCA_TBF_RATE64));
}

TEST(NetlinkTc, NetemIsAStructThenNanosecondAttributes) {
  auto r = netem_qdisc_request(6, tc_root(), tc_handle(0x10, 0), NetemSpec{5'000'000, 1'000'000, 2.5, 300},
                               "netem");
  check_header(r, RTM_NEWQDISC, true, 6, 0xFFFFFFFFu, 0x100000u);
  std::string b = bytes(r);
  auto a = attrs(b, kTop, b.size());
  const std::string& opt = a[TCA_OPTIONS];
  // The compat nesting: no NLA_F_NESTED flag on TCA_OPTIONS.
  size_t off = b.find(opt) - NLA_HDRLEN;
  EXPECT_EQ(as<nlattr>(b.substr(off)).nla_type, TCA_OPTIONS);
  auto q = as<tc_netem_qopt>(opt);
  EXPECT_EQ(q.limit, 300u);
  EXPECT_EQ(q.latency, 5'000'000u / 64);
  EXPECT_EQ(q.jitter, 1'000'000u / 64);
  EXPECT_NEAR(double(q.loss) / 4294967295.0, 0.025, 1e-9);
  auto n = attrs(opt, NLA_ALIGN(sizeof(tc_netem_qopt)), opt.size());
  EXPECT_EQ(as<int64_t>(n[TCA_NETEM_LATENCY64]), 5'000'000);
  EXPECT_EQ(as<int64_t>(n[TCA_NETEM_JITTER64]), 1'000'000);
}

TEST(NetlinkTc, ClsactAndItsDelete) {
  auto r = clsact_qdisc_request(7, "clsact");
  check_header(r, RTM_NEWQDISC, true, 7, 0xFFFFFFF1u, 0xFFFF0000u);
  EXPECT_EQ(attrs(bytes(r), kTop, r.bytes.size())[TCA_KIND], std::string("clsact\0", 7));
  auto d = qdisc_delete_request(7, 0xFFFFFFF1u, "del");
  check_header(d, RTM_DELQDISC, false, 7, 0xFFFFFFF1u, 0xFFFF0000u);
  auto root = qdisc_delete_request(7, tc_root(), "del");
  check_header(root, RTM_DELQDISC, false, 7, 0xFFFFFFFFu, 0u);
  EXPECT_EQ(root.bytes.size(), kTop) << "a delete carries no attributes";
}

TEST(NetlinkTc, BpfFilterByFdInDirectAction) {
  BpfFilterSpec f;
  f.ingress = false;
  f.prog_fd = 9;
  f.name = "flowlab_loss";
  f.prio = 3;
  auto r = bpf_filter_request(8, f, "filter");
  check_header(r, RTM_NEWTFILTER, true, 8, 0xFFFFFFF3u, 1u);
  tcmsg t = as<tcmsg>(bytes(r).substr(NLMSG_HDRLEN));
  EXPECT_EQ(t.tcm_info, (3u << 16) | htons(ETH_P_ALL));
  auto a = attrs(bytes(r), kTop, r.bytes.size());
  EXPECT_EQ(a[TCA_KIND], std::string("bpf\0", 4));
  auto o = attrs(a[TCA_OPTIONS]);
  EXPECT_EQ(as<uint32_t>(o[TCA_BPF_FD]), 9u);
  EXPECT_EQ(o[TCA_BPF_NAME], std::string("flowlab_loss\0", 13));
  EXPECT_EQ(as<uint32_t>(o[TCA_BPF_FLAGS]), uint32_t(TCA_BPF_FLAG_ACT_DIRECT));
  f.ingress = true;
  check_header(bpf_filter_request(8, f, "filter"), RTM_NEWTFILTER, true, 8, 0xFFFFFFF2u, 1u);
}

}  // namespace
}  // namespace flowlab::lab

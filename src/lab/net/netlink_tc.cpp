// tc qdisc/class/filter messages through libmnl (see netlink_tc.h).
#include "lab/net/netlink_tc.h"

#include <arpa/inet.h>
#include <libmnl/libmnl.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>
#include <linux/pkt_cls.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <net/if.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>

namespace flowlab::lab {

namespace {

constexpr size_t kMsgMax = 512;               // the largest (an htb class with 64-bit rates) is ~150 bytes
constexpr uint32_t kClsact = 0xFFFFFFF1u;     // TC_H_CLSACT
constexpr uint16_t kClsactIngress = 0xFFF2u;  // TC_H_MIN_INGRESS
constexpr uint16_t kClsactEgress = 0xFFF3u;   // TC_H_MIN_EGRESS
constexpr uint64_t kU32Max = 0xFFFFFFFFull;

struct TcMsg {
  std::vector<uint8_t> buf = std::vector<uint8_t>(kMsgMax, 0);
  nlmsghdr* nlh = nullptr;
  tcmsg* tcm = nullptr;
  TcMsg(uint16_t type, uint16_t flags, int ifindex, uint32_t parent, uint32_t handle) {
    nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = uint16_t(NLM_F_REQUEST | NLM_F_ACK | flags);
    tcm = static_cast<tcmsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(tcmsg)));
    tcm->tcm_family = AF_UNSPEC;
    tcm->tcm_ifindex = ifindex;
    tcm->tcm_parent = parent;
    tcm->tcm_handle = handle;
  }
  RtnlRequest done(const std::string& what) {
    buf.resize(nlh->nlmsg_len);
    return {std::move(buf), what};
  }
};

constexpr uint16_t kCreate = NLM_F_CREATE | NLM_F_EXCL;

// A rate spec that names its link layer, so the kernel needs no rate table.
tc_ratespec ratespec(uint64_t bytes_per_s) {
  tc_ratespec r{};
  r.linklayer = TC_LINKLAYER_ETHERNET;
  r.rate = uint32_t(std::min(bytes_per_s, kU32Max));
  return r;
}

Result<RtnlSocket> socket_in(const std::string& ns) {
  return ns.empty() ? RtnlSocket::open() : RtnlSocket::open_in("/run/netns/" + ns);
}

}  // namespace

uint32_t bytes_to_ticks(uint64_t bytes, uint64_t bytes_per_s) {
  if (bytes_per_s == 0) return 0;
  long double ns = (long double)bytes * 1e9L / (long double)bytes_per_s;
  long double ticks = std::ceil(ns / (long double)kPschedTickNs);
  return uint32_t(std::min<long double>(ticks, (long double)kU32Max));
}

RtnlRequest htb_qdisc_request(int ifindex, uint32_t handle, uint16_t default_minor, const std::string& what) {
  TcMsg m(RTM_NEWQDISC, kCreate, ifindex, tc_root(), handle);
  mnl_attr_put_strz(m.nlh, TCA_KIND, "htb");
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  tc_htb_glob g{};
  g.version = 3;  // TC_HTB_PROTOVER
  g.rate2quantum = 10;
  g.defcls = default_minor;
  mnl_attr_put(m.nlh, TCA_HTB_INIT, sizeof g, &g);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done(what);
}

RtnlRequest htb_class_request(int ifindex, const HtbClassSpec& c, const std::string& what) {
  TcMsg m(RTM_NEWTCLASS, kCreate, ifindex, c.parent, c.classid);
  uint64_t rate = c.rate_bps / 8, ceil = (c.ceil_bps ? c.ceil_bps : c.rate_bps) / 8;
  uint64_t burst = c.burst_bytes, cburst = c.cburst_bytes ? c.cburst_bytes : c.burst_bytes;
  mnl_attr_put_strz(m.nlh, TCA_KIND, "htb");
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  tc_htb_opt o{};
  o.rate = ratespec(rate);
  o.ceil = ratespec(ceil);
  o.buffer = bytes_to_ticks(burst, rate);
  o.cbuffer = bytes_to_ticks(cburst, ceil);
  o.quantum = c.quantum;
  mnl_attr_put(m.nlh, TCA_HTB_PARMS, sizeof o, &o);
  if (rate > kU32Max) mnl_attr_put_u64(m.nlh, TCA_HTB_RATE64, rate);
  if (ceil > kU32Max) mnl_attr_put_u64(m.nlh, TCA_HTB_CEIL64, ceil);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done(what);
}

RtnlRequest pfifo_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
                                const std::string& what) {
  TcMsg m(RTM_NEWQDISC, kCreate, ifindex, parent, handle);
  mnl_attr_put_strz(m.nlh, TCA_KIND, "pfifo");
  tc_fifo_qopt q{};
  q.limit = limit;
  mnl_attr_put(m.nlh, TCA_OPTIONS, sizeof q, &q);  // a bare struct, not nested
  return m.done(what);
}

RtnlRequest tbf_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, const TbfSpec& t,
                              const std::string& what) {
  TcMsg m(RTM_NEWQDISC, kCreate, ifindex, parent, handle);
  uint64_t rate = t.rate_bps / 8;
  mnl_attr_put_strz(m.nlh, TCA_KIND, "tbf");
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  tc_tbf_qopt q{};
  q.rate = ratespec(rate);
  q.limit = t.limit_bytes;
  q.buffer = bytes_to_ticks(t.burst_bytes, rate);
  mnl_attr_put(m.nlh, TCA_TBF_PARMS, sizeof q, &q);
  if (rate > kU32Max) mnl_attr_put_u64(m.nlh, TCA_TBF_RATE64, rate);
  mnl_attr_put_u32(m.nlh, TCA_TBF_BURST, uint32_t(std::min(t.burst_bytes, kU32Max)));
  mnl_attr_nest_end(m.nlh, opts);
  return m.done(what);
}

RtnlRequest netem_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, const NetemSpec& n,
                                const std::string& what) {
  TcMsg m(RTM_NEWQDISC, kCreate, ifindex, parent, handle);
  mnl_attr_put_strz(m.nlh, TCA_KIND, "netem");
  // netem's options are a struct followed by attributes in the same TCA_OPTIONS
  // (the "compat" nesting: no NLA_F_NESTED flag).
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  opts->nla_type = TCA_OPTIONS;
  tc_netem_qopt q{};
  q.latency = uint32_t(std::min<uint64_t>(n.delay_ns / kPschedTickNs, kU32Max));
  q.jitter = uint32_t(std::min<uint64_t>(n.jitter_ns / kPschedTickNs, kU32Max));
  q.limit = n.limit;
  double p = std::clamp(n.loss_pct, 0.0, 100.0) / 100.0;
  q.loss = uint32_t(std::llround(p * double(kU32Max)));
  std::memcpy(mnl_nlmsg_get_payload_tail(m.nlh), &q, sizeof q);
  m.nlh->nlmsg_len += MNL_ALIGN(sizeof q);
  // Nanosecond delays (the struct's ticks are 64 ns and 32 bits).
  mnl_attr_put_u64(m.nlh, TCA_NETEM_LATENCY64, n.delay_ns);
  mnl_attr_put_u64(m.nlh, TCA_NETEM_JITTER64, n.jitter_ns);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done(what);
}

RtnlRequest clsact_qdisc_request(int ifindex, const std::string& what) {
  TcMsg m(RTM_NEWQDISC, kCreate, ifindex, kClsact, tc_handle(0xFFFF, 0));
  mnl_attr_put_strz(m.nlh, TCA_KIND, "clsact");
  return m.done(what);
}

RtnlRequest qdisc_delete_request(int ifindex, uint32_t parent, const std::string& what) {
  uint32_t handle = parent == kClsact ? tc_handle(0xFFFF, 0) : 0;
  TcMsg m(RTM_DELQDISC, 0, ifindex, parent, handle);
  return m.done(what);
}

RtnlRequest bpf_filter_request(int ifindex, const BpfFilterSpec& f, const std::string& what) {
  uint32_t parent = (kClsact & 0xFFFF0000u) | (f.ingress ? kClsactIngress : kClsactEgress);
  TcMsg m(RTM_NEWTFILTER, kCreate, ifindex, parent, f.handle);
  // tcm_info: priority in the upper 16 bits, protocol (network order) below.
  m.tcm->tcm_info = uint32_t(f.prio) << 16 | htons(ETH_P_ALL);
  mnl_attr_put_strz(m.nlh, TCA_KIND, "bpf");
  nlattr* opts = mnl_attr_nest_start(m.nlh, TCA_OPTIONS);
  mnl_attr_put_u32(m.nlh, TCA_BPF_FD, uint32_t(f.prog_fd));
  if (!f.name.empty()) mnl_attr_put_strz(m.nlh, TCA_BPF_NAME, f.name.c_str());
  mnl_attr_put_u32(m.nlh, TCA_BPF_FLAGS, TCA_BPF_FLAG_ACT_DIRECT);
  mnl_attr_nest_end(m.nlh, opts);
  return m.done(what);
}

Status tc_apply(const std::string& ns, std::vector<RtnlRequest> reqs) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, socket_in(ns));
  return sock.run(std::move(reqs));
}

Status tc_delete(const std::string& ns, RtnlRequest req) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, socket_in(ns));
  std::vector<RtnlRequest> v;
  v.push_back(std::move(req));
  auto st = sock.run(std::move(v));
  // A device with only its default qdisc has nothing to delete: ENOENT (or EINVAL
  // for "handle of zero"). The acks name the errno.
  if (!st.ok() && (st.error().message.find("(errno 2)") != std::string::npos ||
                   st.error().message.find("(errno 22)") != std::string::npos))
    return ok_status();
  return st;
}

bool netem_supported(const std::string& ns) {
  auto sock = socket_in(ns);
  if (!sock.ok()) return false;
  auto idx = sock->link_index("lo");
  if (!idx.ok()) return false;
  std::vector<RtnlRequest> probe;
  probe.push_back(netem_qdisc_request(*idx, tc_root(), tc_handle(9, 0), NetemSpec{1'000'000, 0, 0, 100},
                                      "netem probe on lo"));
  if (!sock->run(std::move(probe)).ok()) return false;
  std::vector<RtnlRequest> del;
  del.push_back(qdisc_delete_request(*idx, tc_root(), "removing the netem probe"));
  (void)sock->run(std::move(del));
  return true;
}

}  // namespace flowlab::lab

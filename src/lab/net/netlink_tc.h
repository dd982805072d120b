// Traffic control through rtnetlink: the qdisc, class and filter messages `tc`
// would send, built as bytes for a RtnlSocket (netlink.h), so shaping a link forks
// nothing.
//
//   RTM_NEWQDISC  htb (root, default class), pfifo (a leaf of `limit` packets),
//                 tbf, netem (where the kernel has it), clsact
//   RTM_DELQDISC  the root qdisc of a device (and everything under it)
//   RTM_NEWTCLASS an htb class: rate/ceil in bytes/s (TCA_HTB_RATE64/CEIL64 when
//                 the rate does not fit the 32-bit field, >= 2^32 bytes/s, about
//                 34.4 Gbit/s), burst/cburst as the time the bucket lasts at the
//                 rate, in the kernel's psched ticks (64 ns)
//   RTM_NEWTFILTER a bpf classifier by program fd, direct-action, on a clsact hook
//
// Rate tables: the kernel needs none when the rate spec names its link layer
// (TC_LINKLAYER_ETHERNET): it computes each packet's time from rate_bytes_ps
// itself and looks a table up only for a spec of linklayer "unaware". So none is
// sent.
//
// Pure builders (bytes only; unit-tested in unit_lab) and one runner that applies
// a list of them in a namespace.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/netlink.h"

namespace flowlab::lab {

// A tc handle "MAJ:MIN" as the kernel keeps it.
constexpr uint32_t tc_handle(uint16_t major, uint16_t minor) { return uint32_t(major) << 16 | minor; }

// One psched tick is 64 ns (PSCHED_SHIFT 6); burst/buffer fields count ticks.
constexpr uint64_t kPschedTickNs = 64;
// The time `bytes` take at `bytes_per_s`, in psched ticks (clamped to 32 bits).
uint32_t bytes_to_ticks(uint64_t bytes, uint64_t bytes_per_s);

struct HtbClassSpec {
  uint32_t parent = tc_handle(1, 0);
  uint32_t classid = tc_handle(1, 1);
  uint64_t rate_bps = 0;  // bit/s
  uint64_t ceil_bps = 0;  // 0: = rate
  uint64_t burst_bytes = 0;
  uint64_t cburst_bytes = 0;  // 0: = burst
  uint32_t quantum = 0;       // bytes; 0: the kernel's rate/r2q
};

struct TbfSpec {
  uint64_t rate_bps = 0;
  uint64_t burst_bytes = 0;  // bucket size
  uint32_t limit_bytes = 0;  // bytes queued waiting for tokens
};

struct NetemSpec {
  uint64_t delay_ns = 0;
  uint64_t jitter_ns = 0;
  double loss_pct = 0;
  uint32_t limit = 1000;  // packets
};

// Qdiscs. `parent` is TC_H_ROOT (tc_root()) or a class; `handle` its "MAJ:0".
constexpr uint32_t tc_root() { return 0xFFFFFFFFu; }  // TC_H_ROOT
RtnlRequest htb_qdisc_request(int ifindex, uint32_t handle, uint16_t default_minor, const std::string& what);
RtnlRequest htb_class_request(int ifindex, const HtbClassSpec& c, const std::string& what);
RtnlRequest pfifo_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, uint32_t limit,
                                const std::string& what);
RtnlRequest tbf_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, const TbfSpec& t,
                              const std::string& what);
RtnlRequest netem_qdisc_request(int ifindex, uint32_t parent, uint32_t handle, const NetemSpec& n,
                                const std::string& what);
RtnlRequest clsact_qdisc_request(int ifindex, const std::string& what);
// Deletes the qdisc at `parent` (tc_root() or the clsact hook) with all it holds.
RtnlRequest qdisc_delete_request(int ifindex, uint32_t parent, const std::string& what);

// A bpf classifier in direct-action mode (the program's return value is the
// verdict) at ingress or egress of a device that has clsact.
struct BpfFilterSpec {
  bool ingress = true;
  int prog_fd = -1;
  std::string name;     // shown by `tc filter show`
  uint16_t prio = 1;    // "pref"
  uint32_t handle = 1;  // the filter's handle within its prio
};
RtnlRequest bpf_filter_request(int ifindex, const BpfFilterSpec& f, const std::string& what);

// Sends the requests to the kernel of namespace `ns` (empty: the caller's) in
// one batch; the first failure is the error, naming its request.
Status tc_apply(const std::string& ns, std::vector<RtnlRequest> reqs);
// The same, ignoring "no such qdisc" (ENOENT/EINVAL of a delete on a device
// with its default qdisc); other errors still fail.
Status tc_delete(const std::string& ns, RtnlRequest req);
// True when the kernel of namespace `ns` accepts a netem qdisc (tried on its lo,
// then removed). Errors other than "not supported" are also false.
bool netem_supported(const std::string& ns);

}  // namespace flowlab::lab

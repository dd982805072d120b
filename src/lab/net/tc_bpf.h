// Tiny tc programs of the lab's own, for shaped links on kernels without netem:
// a per-packet loss (bpf_get_prandom_u32 against a threshold, TC_ACT_SHOT) that
// then passes the packet on or redirects it to another interface's egress. A
// handful of hand-written instructions loaded with the bpf() syscall and attached
// with a tcx link (Linux 6.6), so neither clang nor libbpf nor bpffs is needed.
//
// The program and its link are file descriptors held by the lab process: a
// TcxProgram's destructor closes them and the kernel detaches the program; if the
// lab dies, the kernel does the same when the fds go; deleting the namespace
// removes the link too. Nothing is pinned, nothing outlives the lab.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct TcAction {
  double loss_pct = 0;       // drop this share of packets, at random, independently
  int redirect_ifindex = 0;  // then redirect to this interface's egress; 0: let it pass
  // A provider link's VLAN (vxlan.h's ProviderEnd): push this 802.1Q id before
  // the redirect; or take only the packets tagged with this id (the tag popped,
  // then the redirect) and hand every other packet to the next tcx program.
  int vlan_push = 0;
  int vlan_pop = 0;
};

// The program's instructions as raw 8-byte records (exposed for unit tests).
std::vector<uint64_t> tc_program(const TcAction& a);
// The threshold a random u32 is compared with: round(loss/100 * 2^32), 0 for none.
uint64_t loss_threshold(double loss_pct);

// Loads the program for `a` (BPF_PROG_TYPE_SCHED_CLS); the caller owns the fd.
// For a classic tc bpf filter (netlink_tc.h); TcxProgram loads its own.
Result<int> load_tc_program(const TcAction& a);

// Interface index of `ifname` inside namespace `ns` (empty: the lab's own).
Result<int> ifindex_in(const std::string& ns, const std::string& ifname);

class TcxProgram {
 public:
  // Loads the program for `a` and attaches it at ingress or egress of ifname in ns.
  static Result<TcxProgram> attach(const std::string& ns, const std::string& ifname, bool ingress,
                                   const TcAction& a);
  TcxProgram() = default;
  TcxProgram(TcxProgram&& o) noexcept { *this = std::move(o); }
  TcxProgram& operator=(TcxProgram&& o) noexcept;
  TcxProgram(const TcxProgram&) = delete;
  TcxProgram& operator=(const TcxProgram&) = delete;
  ~TcxProgram() { reset(); }

  // Swaps in a program for a new action, atomically (BPF_LINK_UPDATE).
  Status replace(const TcAction& a);
  bool attached() const { return link_fd_ >= 0; }
  void reset();

 private:
  int prog_fd_ = -1;
  int link_fd_ = -1;
};

}  // namespace flowlab::lab

// The lab's tc programs and their tcx links (see tc_bpf.h).
//
// The program, in eBPF assembly (r0 = return value, w0 its low 32 bits):
//     call bpf_get_prandom_u32         ; only when loss > 0
//     if w0 >= THRESHOLD goto keep     ; unsigned 32-bit compare
//     r0 = TC_ACT_SHOT
//     exit
//   keep:
//     r1 = IFINDEX ; r2 = 0 ; call bpf_redirect ; exit   (redirect to egress)
//   or
//     r0 = TC_ACT_OK ; exit                              (pass)
// With loss 100% the compare is skipped and every packet is shot. A VLAN pop
// first keeps only its VLAN's packets (the others: TCX_NEXT, for the programs
// after it and then the stack); the pop or push goes just before the redirect:
//     r6 = r1 ; r2 = ctx->vlan_present ; if r2 == 0 goto next
//     r2 = ctx->vlan_proto ; if r2 != htons(0x8100) goto next
//     r2 = ctx->vlan_tci ; r2 &= 0xfff ; if r2 != VID goto next
//     ... loss ...
//     r1 = r6 ; call bpf_skb_vlan_pop           (or r2 = htons(0x8100) ; r3 = VID ; call bpf_skb_vlan_push)
//     redirect
//   next:
//     r0 = TCX_NEXT ; exit
#include "lab/net/tc_bpf.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <net/if.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <thread>

#include "kernel/bpf_syscall.h"
#include "lab/host/netns.h"

namespace flowlab::lab {

namespace {

// Attach types from Linux 6.6 (enum bpf_attach_type); Debian 12's headers predate them.
constexpr uint32_t kTcxIngress = 46;
constexpr uint32_t kTcxEgress = 47;
constexpr int32_t kTcActOk = 0;
constexpr int32_t kTcActShot = 2;
constexpr int32_t kTcxNext = -1;
constexpr int32_t kVlanProtoBe = 0x0081;  // htons(ETH_P_8021Q) as the context holds it

// One instruction: code, dst, src, off, imm (struct bpf_insn, little-endian).
uint64_t insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  return uint64_t(code) | uint64_t(dst & 0xf) << 8 | uint64_t(src & 0xf) << 12 |
         uint64_t(uint16_t(off)) << 16 | uint64_t(uint32_t(imm)) << 32;
}
uint64_t mov_imm(uint8_t dst, int32_t imm) { return insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm); }
uint64_t call(int32_t fn) { return insn(BPF_JMP | BPF_CALL, 0, 0, 0, fn); }
uint64_t exit_insn() { return insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }
uint64_t mov_reg(uint8_t dst, uint8_t src) { return insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
uint64_t ctx_word(uint8_t dst, int16_t off) { return insn(BPF_LDX | BPF_MEM | BPF_W, dst, 1, off, 0); }

// The end of every program: redirect to the interface's egress, or pass.
void redirect_or_pass(std::vector<uint64_t>& p, const TcAction& a) {
  if (a.redirect_ifindex > 0) {
    p.push_back(mov_imm(1, a.redirect_ifindex));
    p.push_back(mov_imm(2, 0));
    p.push_back(call(BPF_FUNC_redirect));
  } else {
    p.push_back(mov_imm(0, kTcActOk));
  }
  p.push_back(exit_insn());
}

Result<int> load(const TcAction& a) {
  auto fd = load_bpf_program(BPF_PROG_TYPE_SCHED_CLS, tc_program(a), "flowlab_loss");
  if (!fd.ok()) return fail("loading the lab's tc program: {}", fd.error().to_string());
  return *fd;
}

// Runs fn on a short-lived thread inside the namespace (host/netns.h run_in_netns).
template <typename F>
auto in_netns(const std::string& ns, F fn) -> decltype(fn()) {
  decltype(fn()) out = fail("namespace {}: not entered", ns);
  if (Status st = run_in_netns(ns, [&] { out = fn(); }); !st.ok()) return unexpected(st.error());
  return out;
}

}  // namespace

Result<int> load_tc_program(const TcAction& a) { return load(a); }

uint64_t loss_threshold(double loss_pct) {
  if (!(loss_pct > 0)) return 0;
  double t = std::round(loss_pct / 100.0 * 4294967296.0);
  return uint64_t(std::min(t, 4294967296.0));
}

std::vector<uint64_t> tc_program(const TcAction& a) {
  std::vector<uint64_t> p;
  uint64_t th = loss_threshold(a.loss_pct);
  std::vector<size_t> to_next;  // jumps to the `next` block at the end
  if (a.vlan_pop || a.vlan_push) p.push_back(mov_reg(6, 1));
  if (a.vlan_pop) {
    p.push_back(ctx_word(2, int16_t(offsetof(__sk_buff, vlan_present))));
    to_next.push_back(p.size());
    p.push_back(insn(BPF_JMP | BPF_JEQ | BPF_K, 2, 0, 0, 0));
    p.push_back(ctx_word(2, int16_t(offsetof(__sk_buff, vlan_proto))));
    to_next.push_back(p.size());
    p.push_back(insn(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 0, kVlanProtoBe));
    p.push_back(ctx_word(2, int16_t(offsetof(__sk_buff, vlan_tci))));
    p.push_back(insn(BPF_ALU64 | BPF_AND | BPF_K, 2, 0, 0, 0xfff));
    to_next.push_back(p.size());
    p.push_back(insn(BPF_JMP | BPF_JNE | BPF_K, 2, 0, 0, a.vlan_pop));
  }
  if (th >= 4294967296ULL) {
    p.push_back(mov_imm(0, kTcActShot));
    p.push_back(exit_insn());
  } else {
    if (th > 0) {
      p.push_back(call(BPF_FUNC_get_prandom_u32));
      p.push_back(insn(BPF_JMP32 | BPF_JGE | BPF_K, 0, 0, 2, int32_t(uint32_t(th))));
      p.push_back(mov_imm(0, kTcActShot));
      p.push_back(exit_insn());
    }
    if (a.vlan_pop) {
      p.push_back(mov_reg(1, 6));
      p.push_back(call(BPF_FUNC_skb_vlan_pop));
    } else if (a.vlan_push) {
      p.push_back(mov_reg(1, 6));
      p.push_back(mov_imm(2, kVlanProtoBe));
      p.push_back(mov_imm(3, a.vlan_push));
      p.push_back(call(BPF_FUNC_skb_vlan_push));
    }
    redirect_or_pass(p, a);
  }
  if (!to_next.empty()) {
    for (size_t at : to_next)  // off counts from the instruction after the jump
      p[at] = (p[at] & ~(uint64_t(0xffff) << 16)) | uint64_t(uint16_t(int16_t(p.size() - at - 1))) << 16;
    p.push_back(mov_imm(0, kTcxNext));
    p.push_back(exit_insn());
  }
  return p;
}

Result<int> ifindex_in(const std::string& ns, const std::string& ifname) {
  return in_netns(ns, [&]() -> Result<int> {
    unsigned idx = if_nametoindex(ifname.c_str());
    if (idx == 0) return fail("no interface {} in namespace {}", ifname, ns);
    return int(idx);
  });
}

TcxProgram& TcxProgram::operator=(TcxProgram&& o) noexcept {
  if (this != &o) {
    reset();
    prog_fd_ = std::exchange(o.prog_fd_, -1);
    link_fd_ = std::exchange(o.link_fd_, -1);
  }
  return *this;
}

void TcxProgram::reset() {
  if (link_fd_ >= 0) close(link_fd_);
  if (prog_fd_ >= 0) close(prog_fd_);
  link_fd_ = prog_fd_ = -1;
}

Result<TcxProgram> TcxProgram::attach(const std::string& ns, const std::string& ifname, bool ingress,
                                      const TcAction& a) {
  TcxProgram p;
  FLOWLAB_ASSIGN_OR_RETURN(p.prog_fd_, load(a));
  int prog_fd = p.prog_fd_;
  FLOWLAB_ASSIGN_OR_RETURN(p.link_fd_, in_netns(ns, [&]() -> Result<int> {
                             unsigned idx = if_nametoindex(ifname.c_str());
                             if (idx == 0) return fail("no interface {} in namespace {}", ifname, ns);
                             bpf_attr attr{};
                             attr.link_create.prog_fd = uint32_t(prog_fd);
                             attr.link_create.target_ifindex = idx;
                             attr.link_create.attach_type =
                                 static_cast<bpf_attach_type>(ingress ? kTcxIngress : kTcxEgress);
                             int fd = int(sys_bpf(BPF_LINK_CREATE, attr));
                             if (fd < 0)
                               return fail("attaching a tcx program to {} in {}: {} (tcx needs Linux 6.6)",
                                           ifname, ns, std::strerror(errno));
                             return fd;
                           }));
  return p;
}

Status TcxProgram::replace(const TcAction& a) {
  if (link_fd_ < 0) return fail("tc program not attached");
  FLOWLAB_ASSIGN_OR_RETURN(int fd, load(a));
  bpf_attr attr{};
  attr.link_update.link_fd = uint32_t(link_fd_);
  attr.link_update.new_prog_fd = uint32_t(fd);
  if (sys_bpf(BPF_LINK_UPDATE, attr) != 0) {
    int e = errno;
    close(fd);
    return fail("replacing the tc program: {}", std::strerror(e));
  }
  close(prog_fd_);
  prog_fd_ = fd;
  return ok_status();
}

}  // namespace flowlab::lab

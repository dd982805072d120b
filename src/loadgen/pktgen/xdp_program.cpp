// XdpFlowProgram (see xdp_program.h): its instructions, loading, and runs.
//
// The program, in eBPF assembly (r10 = frame pointer; every jump to `drop`
// is patched once the program's length is known):
//     r6 = r1                          ; ctx (struct xdp_md)
//     *(u32 *)(r10 - 4) = 0            ; key 0
//     r2 = r10 ; r2 += -4
//     r1 = map[counter] ll             ; 2 slots, BPF_PSEUDO_MAP_FD
//     call bpf_map_lookup_elem
//     if r0 == 0 goto drop
//     r7 = *(u32 *)(r0 + 0)            ; i
//     if r7 < FLOWS goto +1 ; r7 = 0    ; keeps i in range whatever the map holds
//     r1 = r7 ; r1 += 1
//     if r1 < FLOWS goto +1 ; r1 = 0
//     *(u32 *)(r0 + 0) = r1            ; the next i
//     r2 = *(u32 *)(r6 + 0)            ; data
//     r3 = *(u32 *)(r6 + 4)            ; data_end
//     r4 = r2 ; r4 += 42
//     if r4 > r3 goto drop
//     r5 = r7 ; r5 += BASE_PORT ; r5 = be16 r5
//     *(u16 *)(r2 + 36) = r5           ; udp.dest
//     r5 = r7 ; r5 += ~CSUM_BASE        ; one's complement sum with the new port
//     r4 = r5 ; r4 >>= 16 ; r5 &= 0xffff ; r5 += r4   ; fold (one is enough: < 0x20000)
//     r5 ^= 0xffff
//     if r5 != 0 goto +1 ; r5 = 0xffff  ; UDP sends a zero checksum as 0xffff
//     r5 = be16 r5
//     *(u16 *)(r2 + 40) = r5           ; udp.check
//     r0 = XDP_TX ; exit
//   drop:
//     r0 = XDP_DROP ; exit
// Adding i to the one's complement sum is RFC 1624's HC' = ~(~HC + ~m + m')
// with m = base, m' = base + i: ~m + m' = 0xffff + i, which folds to i.
#include "loadgen/pktgen/xdp_program.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>

#include "kernel/bpf_syscall.h"

namespace flowlab::loadgen {

namespace {

constexpr int32_t kXdpDrop = 1;  // enum xdp_action
constexpr int32_t kXdpTx = 3;

// One instruction: code, dst, src, off, imm (struct bpf_insn, little-endian).
uint64_t insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  return uint64_t(code) | uint64_t(dst & 0xf) << 8 | uint64_t(src & 0xf) << 12 |
         uint64_t(uint16_t(off)) << 16 | uint64_t(uint32_t(imm)) << 32;
}

// A straight-line program with forward jumps to one `drop` label.
class Program {
 public:
  void op(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
    p_.push_back(insn(code, dst, src, off, imm));
  }
  void mov_reg(uint8_t dst, uint8_t src) { op(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
  void mov_imm(uint8_t dst, int32_t imm) { op(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm); }
  void alu_imm(uint8_t alu_op, uint8_t dst, int32_t imm) { op(BPF_ALU64 | alu_op | BPF_K, dst, 0, 0, imm); }
  void alu_reg(uint8_t alu_op, uint8_t dst, uint8_t src) { op(BPF_ALU64 | alu_op | BPF_X, dst, src, 0, 0); }
  void be16(uint8_t dst) { op(BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, 16); }
  void load(uint8_t size, uint8_t dst, uint8_t src, int16_t off) {
    op(BPF_LDX | BPF_MEM | size, dst, src, off, 0);
  }
  void store(uint8_t size, uint8_t dst, uint8_t src, int16_t off) {
    op(BPF_STX | BPF_MEM | size, dst, src, off, 0);
  }
  void map_fd(uint8_t dst, int fd) {  // the 16-byte load of a map's address
    op(BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
    op(0, 0, 0, 0, 0);
  }
  void call(int32_t helper) { op(BPF_JMP | BPF_CALL, 0, 0, 0, helper); }
  void exit() { op(BPF_JMP | BPF_EXIT, 0, 0, 0, 0); }
  void skip_one_if(uint8_t jmp_op, uint8_t dst, int32_t imm) { op(BPF_JMP | jmp_op | BPF_K, dst, 0, 1, imm); }
  void drop_if_imm(uint8_t jmp_op, uint8_t dst, int32_t imm) {
    to_drop_.push_back(p_.size());
    op(BPF_JMP | jmp_op | BPF_K, dst, 0, 0, imm);
  }
  void drop_if_reg(uint8_t jmp_op, uint8_t dst, uint8_t src) {
    to_drop_.push_back(p_.size());
    op(BPF_JMP | jmp_op | BPF_X, dst, src, 0, 0);
  }
  // Places the label here and patches the jumps to it.
  void drop_label() {
    for (size_t at : to_drop_) {
      auto off = uint16_t(int16_t(p_.size() - at - 1));
      p_[at] = (p_[at] & ~(uint64_t(0xffff) << 16)) | uint64_t(off) << 16;
    }
    to_drop_.clear();
  }
  std::vector<uint64_t> take() { return std::move(p_); }

 private:
  std::vector<uint64_t> p_;
  std::vector<size_t> to_drop_;
};

using lab::sys_bpf;

std::string errno_hint(int e) {
  if (e == EPERM || e == EACCES) return " (--mode xdp needs root: CAP_BPF and CAP_NET_ADMIN)";
  return "";
}

}  // namespace

std::vector<uint64_t> xdp_flow_program(const XdpFlowSpec& s, int map_fd) {
  const auto flows = int32_t(s.flows);
  Program p;
  p.mov_reg(6, 1);
  p.op(BPF_ST | BPF_MEM | BPF_W, 10, 0, -4, 0);
  p.mov_reg(2, 10);
  p.alu_imm(BPF_ADD, 2, -4);
  p.map_fd(1, map_fd);
  p.call(BPF_FUNC_map_lookup_elem);
  p.drop_if_imm(BPF_JEQ, 0, 0);
  p.load(BPF_W, 7, 0, 0);
  p.skip_one_if(BPF_JLT, 7, flows);
  p.mov_imm(7, 0);
  p.mov_reg(1, 7);
  p.alu_imm(BPF_ADD, 1, 1);
  p.skip_one_if(BPF_JLT, 1, flows);
  p.mov_imm(1, 0);
  p.store(BPF_W, 0, 1, 0);
  p.load(BPF_W, 2, 6, int16_t(offsetof(xdp_md, data)));
  p.load(BPF_W, 3, 6, int16_t(offsetof(xdp_md, data_end)));
  p.mov_reg(4, 2);
  p.alu_imm(BPF_ADD, 4, int32_t(kUdpHeaderEnd));
  p.drop_if_reg(BPF_JGT, 4, 3);
  p.mov_reg(5, 7);
  p.alu_imm(BPF_ADD, 5, s.base_port);
  p.be16(5);
  p.store(BPF_H, 2, 5, int16_t(kUdpDportOffset));
  p.mov_reg(5, 7);
  p.alu_imm(BPF_ADD, 5, int32_t(~s.csum_base & 0xffff));
  p.mov_reg(4, 5);
  p.alu_imm(BPF_RSH, 4, 16);
  p.alu_imm(BPF_AND, 5, 0xffff);
  p.alu_reg(BPF_ADD, 5, 4);
  p.alu_imm(BPF_XOR, 5, 0xffff);
  p.skip_one_if(BPF_JNE, 5, 0);
  p.mov_imm(5, 0xffff);
  p.be16(5);
  p.store(BPF_H, 2, 5, int16_t(kUdpCsumOffset));
  p.mov_imm(0, kXdpTx);
  p.exit();
  p.drop_label();
  p.mov_imm(0, kXdpDrop);
  p.exit();
  return p.take();
}

uint16_t flow_udp_checksum(uint16_t csum_base, uint32_t i) {
  uint32_t s = (~csum_base & 0xffffu) + i;
  s = (s & 0xffff) + (s >> 16);
  auto c = uint16_t(~s & 0xffff);
  return c == 0 ? 0xffff : c;
}

XdpFlowProgram& XdpFlowProgram::operator=(XdpFlowProgram&& o) noexcept {
  if (this != &o) {
    reset();
    prog_fd_ = std::exchange(o.prog_fd_, -1);
    map_fd_ = std::exchange(o.map_fd_, -1);
    link_fd_ = std::exchange(o.link_fd_, -1);
    netns_fd_ = std::exchange(o.netns_fd_, -1);
  }
  return *this;
}

void XdpFlowProgram::reset() {
  for (int* fd : {&link_fd_, &netns_fd_, &prog_fd_, &map_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

Status XdpFlowProgram::keep_resident() {
  if (prog_fd_ < 0) return fail("no XDP program loaded");
  if (link_fd_ >= 0) return ok_status();
  int e = 0;
  // A thread of its own: unshare changes only the calling thread's namespace.
  std::thread([&] {
    if (::unshare(CLONE_NEWNET) != 0) {
      e = errno;
      return;
    }
    netns_fd_ = ::open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
    if (netns_fd_ < 0) {
      e = errno;
      return;
    }
    bpf_attr a{};
    a.link_create.prog_fd = uint32_t(prog_fd_);
    a.link_create.target_ifindex = 1;  // lo, the only interface of a new namespace (down)
    a.link_create.attach_type = BPF_XDP;
    a.link_create.flags = XDP_FLAGS_SKB_MODE;
    link_fd_ = int(sys_bpf(BPF_LINK_CREATE, a));
    if (link_fd_ < 0) e = errno;
  }).join();
  if (link_fd_ >= 0) return ok_status();
  if (netns_fd_ >= 0) ::close(netns_fd_);
  netns_fd_ = -1;
  return fail("keeping the XDP program in the dispatcher (a generic attachment in a private namespace): {}",
              std::strerror(e));
}

Result<XdpFlowProgram> XdpFlowProgram::load(const XdpFlowSpec& s) {
  if (s.flows == 0 || s.flows > 65536u - s.base_port)
    return fail("{} flows from port {}: past port 65535", s.flows, s.base_port);
  XdpFlowProgram out;
  bpf_attr m{};
  m.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
  m.key_size = 4;
  m.value_size = 4;
  m.max_entries = 1;
  std::strncpy(m.map_name, "fl_pktgen_ctr", sizeof m.map_name - 1);
  out.map_fd_ = int(sys_bpf(BPF_MAP_CREATE, m));
  if (out.map_fd_ < 0) {
    int e = errno;
    return fail("creating the XDP program's counter map: {}{}", std::strerror(e), errno_hint(e));
  }
  auto fd = lab::load_bpf_program(BPF_PROG_TYPE_XDP, xdp_flow_program(s, out.map_fd_), "fl_pktgen");
  if (!fd.ok())
    return fail("loading the XDP program: {}{}", fd.error().to_string(), errno_hint(fd.error().err));
  out.prog_fd_ = *fd;
  return out;
}

int XdpFlowProgram::run_live(ByteSpan frame, int ifindex, uint32_t repeat, uint32_t batch) const {
  xdp_md ctx{};
  ctx.data_end = uint32_t(frame.size());
  ctx.ingress_ifindex = uint32_t(ifindex);
  bpf_attr a{};
  a.test.prog_fd = uint32_t(prog_fd_);
  a.test.data_in = reinterpret_cast<uint64_t>(frame.data());
  a.test.data_size_in = uint32_t(frame.size());
  a.test.ctx_in = reinterpret_cast<uint64_t>(&ctx);
  a.test.ctx_size_in = sizeof ctx;
  a.test.repeat = repeat;
  a.test.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
  a.test.batch_size = batch;
  return sys_bpf(BPF_PROG_TEST_RUN, a) == 0 ? 0 : errno;
}

Result<std::pair<uint32_t, Bytes>> XdpFlowProgram::run_once(ByteSpan frame) const {
  Bytes out(frame.size() + 256);
  bpf_attr a{};
  a.test.prog_fd = uint32_t(prog_fd_);
  a.test.data_in = reinterpret_cast<uint64_t>(frame.data());
  a.test.data_size_in = uint32_t(frame.size());
  a.test.data_out = reinterpret_cast<uint64_t>(out.data());
  a.test.data_size_out = uint32_t(out.size());
  a.test.repeat = 1;
  if (sys_bpf(BPF_PROG_TEST_RUN, a) != 0) return fail("running the XDP program: {}", std::strerror(errno));
  out.resize(a.test.data_size_out);
  return std::pair<uint32_t, Bytes>{a.test.retval, std::move(out)};
}

}  // namespace flowlab::loadgen

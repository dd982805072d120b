// XdpFlowProgram: the XDP program behind `flowlab pktgen --mode xdp`, and its
// owner. The generator hands the kernel one template frame (Ethernet / IPv4 /
// UDP to port `base_port`) and runs this program on it many times with
// BPF_PROG_RUN in live-frame mode (BPF_F_TEST_XDP_LIVE_FRAMES, Linux 5.18):
// each run gets its own copy of the frame, the program gives it the next UDP
// destination port of `flows` in turn and returns XDP_TX, and the kernel
// transmits it out of the interface named as the frame's ingress (on a veth:
// into its peer). No socket, no IP stack, no skb on the sending side.
//
// The program (per frame):
//   i = counter[cpu]; counter[cpu] = i + 1 < flows ? i + 1 : 0   (per-CPU array)
//   check data + 42 <= data_end                                  (else XDP_DROP)
//   udp.dport = htons(base_port + i)
//   udp.csum  = htons(~(~csum_base + i))   (one's complement, RFC 1624; 0 -> 0xffff)
//   return XDP_TX
// Every value is written whole, never read from the frame and modified: the
// kernel recycles pages without re-copying the template (a run may see the
// frame as an earlier run left it), so only absolute writes are safe.
//
// Hand-written instructions, as src/lab/tc_bpf does, rather than a clang-built
// object embedded like src/kernel's fast path: ~35 instructions, one map and
// constants baked in as immediates at load time need no compiler, no libbpf and
// no ELF, and the program can be checked instruction by instruction in a unit
// test (tests/unit/loadgen/xdp_program_test.cpp) and run in plain test mode to
// see the frames it makes.
//
// Staying resident (keep_resident()): every BPF_PROG_RUN of an XDP program
// adds it to the kernel's XDP dispatcher and takes it out again after
// (bpf_prog_change_xdp), and each change waits for an RCU grace period:
// ~24 ms a run on the 2-core VM, whatever the run's size, which capped a
// paced generator at ~40 runs a second. A program the dispatcher already
// holds costs nothing to add. So the program is also attached, in generic
// (skb) mode through a BPF link, to the loopback of a network namespace of
// its own: anonymous (unshare on a short-lived thread; no name, nothing in
// /run/netns), its lo down, so no packet ever runs the program there. The
// attachment keeps it in the dispatcher for the owner's life.
//
// The owner is move-only: it closes the program's, the map's, the link's
// and that namespace's descriptors on every path, and the kernel frees
// them (and the namespace) when the last reference goes, a SIGKILL
// included. Nothing is attached to a user's interface, nothing is pinned.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"

namespace flowlab::loadgen {

// Offsets in an untagged Ethernet / IPv4 (no options) / UDP frame.
inline constexpr size_t kUdpDportOffset = 14 + 20 + 2;
inline constexpr size_t kUdpCsumOffset = 14 + 20 + 6;
inline constexpr size_t kUdpHeaderEnd = 14 + 20 + 8;

struct XdpFlowSpec {
  uint16_t base_port = 9000;  // the template's UDP destination port
  uint32_t flows = 1;         // ports base_port .. base_port + flows - 1, in turn
  uint16_t csum_base = 0;     // the template's UDP checksum (host order), 0 if none
};

// The program as 8-byte instruction records; map_fd is the counter map's fd
// (placed in the one 16-byte load of a map address).
std::vector<uint64_t> xdp_flow_program(const XdpFlowSpec& s, int map_fd);
// The checksum the program writes for flow i, computed the same way.
uint16_t flow_udp_checksum(uint16_t csum_base, uint32_t i);

class XdpFlowProgram {
 public:
  // Creates the counter map and loads the program (needs CAP_BPF and
  // CAP_NET_ADMIN: root).
  static Result<XdpFlowProgram> load(const XdpFlowSpec& s);

  XdpFlowProgram() = default;
  XdpFlowProgram(XdpFlowProgram&& o) noexcept { *this = std::move(o); }
  XdpFlowProgram& operator=(XdpFlowProgram&& o) noexcept;
  XdpFlowProgram(const XdpFlowProgram&) = delete;
  XdpFlowProgram& operator=(const XdpFlowProgram&) = delete;
  ~XdpFlowProgram() { reset(); }

  bool loaded() const { return prog_fd_ >= 0; }
  void reset();

  // Attaches the program to the lo of a private namespace so the XDP
  // dispatcher keeps it between runs (see above). Needs CAP_SYS_ADMIN; a
  // failure only makes each run slower to start.
  Status keep_resident();
  bool resident() const { return link_fd_ >= 0; }

  // Runs the program `repeat` times in live-frame mode on copies of `frame`
  // as if received on `ifindex` (XDP_TX: transmitted out of it), `batch`
  // frames per kernel batch (1..256). Returns 0 or the errno of the run.
  int run_live(ByteSpan frame, int ifindex, uint32_t repeat, uint32_t batch) const;
  // One run in plain test mode: the program's return code and the frame as
  // it left it (for tests; nothing is transmitted).
  Result<std::pair<uint32_t, Bytes>> run_once(ByteSpan frame) const;

 private:
  int prog_fd_ = -1;
  int map_fd_ = -1;
  int link_fd_ = -1;   // the generic-mode attachment (keep_resident)
  int netns_fd_ = -1;  // its namespace
};

}  // namespace flowlab::loadgen

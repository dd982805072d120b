// FastPath: the loaded eBPF fast path of one switch — the TC program, its
// maps, and its attachments to the switch's ports. Move-free RAII owner:
// destroying it detaches the program from every port (tcx link closed, or the
// cls_bpf filter and the clsact qdisc we created removed) and frees the maps.
//
// Design (the kernel fast path as a whole)
// ----------------------------------------
// The OpenFlow pipeline in user space stays the only source of truth; the
// kernel caches what it decided per microflow and forwards hits itself.
//  * Hook: TC ingress of every port (tcx link where the kernel has it, else a
//    clsact qdisc + cls_bpf in direct-action mode). Not XDP: at TC the skb
//    keeps its GSO super-frame and CHECKSUM_PARTIAL, so offloads stay on end
//    to end through bpf_redirect.
//  * Cache (fl_cache): the fields of an untagged, unfragmented IPv4 packet
//    the OpenFlow key depends on (fast_path_abi.h); for such a packet every
//    other FlowKey field is constant. Megaflow: the slow path reports which
//    bits its decision read (the masks of the tables it visited), the entry
//    is keyed on those bits under one of at most FL_MAX_MASKS masks (append-
//    only, the last free one is taken by the exact mask when others run
//    out), and the program looks a packet up under each mask in turn.
//  * Value: an epoch and an op list (outputs, set-field with incremental
//    checksum updates, TTL decrement, or drop; dp::FastPathDecision says what
//    the pipeline can hand over). Several outputs: clone-redirect, the last
//    one redirect.
//  * Misses go to user space through one upcall TAP device per switch the
//    program redirects to, the ingress port carried as an outer 802.1Q tag
//    (the port's fl_port.tag, its index in the switch) that the switch pops
//    (the ports themselves are opened transmit-only: an ETH_P_ALL packet
//    socket on one would see every packet before TC ingress, a second copy of
//    each hit). See upcall_device.h and kernel_port.h.
//  * Invalidation: one epoch per datapath (mmap'd .bss, no system call).
//    Every datapath publish, port-mod and port status change bumps it before
//    the barrier reply; an entry of another epoch is a miss. Stale entries
//    are pruned later by the switch.
//  * Sharing: one loaded program (FastPathProgram) serves up to FL_MAX_DPS
//    datapaths — the switches of one `flowlab switch-host`, which open theirs
//    from a FastPathPool — each with its own index: its ports' fl_port names
//    it, and the program takes that datapath's epoch, masks and statistics.
//    Cache keys start with the ingress ifindex, unique in the namespace, so
//    datapaths never see each other's entries; counter slots come from the
//    program's one pool. `flowlab switch` loads a program of its own (load()).
//  * Counters: per-CPU per-entry packets/bytes (fl_counters, one mmap'd
//    array, CPU-major), folded into flow, table and port counters on read
//    (and before idle expiry).
//  * Start-up: the verifier checks ~4.9k instructions (global functions and
//    a bpf_loop instead of unrolled, state-splitting loops) and the maps are
//    allocated lazily or as plain arrays: a load takes ~5 ms, not ~300 ms.
// Costs: a hit is one hash lookup per mask tried plus the ops in the kernel,
// no copy to user space. A miss costs what the af-packet datapath costs plus
// one map update.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "kernel/fast_path_abi.h"

struct fast_path_bpf;

namespace flowlab::kernel {

struct FastPathStats {
  uint64_t hits = 0, upcalls = 0, drops = 0, errors = 0;
  // Per action kind (hits by how the last output left, clones, GSO frames).
  uint64_t out_peer = 0, out_redirect = 0, out_clone = 0, gso = 0;
  // The program's own time: runs and ns the kernel counted (bpf_prog_info
  // run_cnt / run_time_ns; 0 unless kernel.bpf_stats_enabled=1).
  uint64_t prog_runs = 0, prog_ns = 0;
};

// How the program is attached: kAuto tries a tcx link and falls back to a
// clsact qdisc + cls_bpf; the others force one (FLOWLAB_TC_ATTACH=tcx|clsact
// in the environment, for tests of the clsact path on kernels with tcx).
enum class AttachMode { kAuto, kTcx, kClsact };
Result<AttachMode> attach_mode_from_env();

struct FastPathProgram;

class FastPath {
 public:
  // Opens, verifies and loads a program and its maps of its own; this is its
  // datapath 0. The error says why the kernel refused (no CAP_BPF /
  // CAP_SYS_ADMIN, verifier, missing BTF ...), or that FLOWLAB_TC_ATTACH has
  // a value other than tcx / clsact.
  static Result<std::unique_ptr<FastPath>> load();
  // A datapath of `program` for up to `ports` ports; nullptr when the program
  // serves FL_MAX_DPS datapaths or FL_MAX_PORTS ports already.
  static Result<std::unique_ptr<FastPath>> open(const std::shared_ptr<FastPathProgram>& program,
                                                size_t ports);
  // Detaches its ports, removes them from fl_ports and gives its datapath
  // index back (the program goes with its last datapath).
  ~FastPath();
  FastPath(const FastPath&) = delete;
  FastPath& operator=(const FastPath&) = delete;

  // Attaches to TC ingress of `ifindex`; its misses go to `upcall_ifindex`
  // tagged with `tag` (<= FL_MAX_PORT_TAG). An interface the program serves
  // already (another switch of this host on it) is an error.
  Status attach(int ifindex, std::string_view name, int upcall_ifindex, uint32_t tag);
  // Inactive ports send every packet up (port config the kernel does not model).
  Status set_port_active(int ifindex, int upcall_ifindex, uint32_t tag, bool active);
  std::string_view attach_mode() const { return attach_mode_; }  // "tcx", "clsact" or ""
  uint32_t datapath_index() const { return dp_; }
  // What the load cost: instructions the verifier processed (the kernel's
  // bpf_prog_info.verified_insns) and the wall time of open + load.
  uint32_t verified_insns() const { return verified_insns_; }
  double load_ms() const { return load_ms_; }

  void set_epoch(uint64_t e);
  uint64_t epoch() const;
  // Megaflow masks (append-only; index i is live once mask_count() > i).
  size_t mask_count() const;
  Status add_mask(const fl_key& mask);

  Status install(const fl_key& k, const fl_value& v);
  void remove(const fl_key& k);
  // Counter slots, from the program's pool (shared by its datapaths): a taken
  // slot's counters are zero; nullopt when all FL_MAX_ENTRIES are taken.
  std::optional<uint32_t> take_slot();
  void give_slot(uint32_t slot);               // resets its counters first
  fl_count read_counter(uint32_t slot) const;  // summed over CPUs
  void reset_counter(uint32_t slot);
  // This datapath's statistics; prog_runs / prog_ns are the program's, all
  // datapaths together.
  FastPathStats stats() const;

 private:
  friend class FastPathPool;
  FastPath() = default;
  struct Attachment;
  std::shared_ptr<FastPathProgram> prog_;
  uint32_t dp_ = 0;
  size_t ports_reserved_ = 0;
  std::vector<std::unique_ptr<Attachment>> attachments_;
  std::vector<int> registered_;  // ifindexes this datapath put in fl_ports
  std::string attach_mode_;
  AttachMode forced_ = AttachMode::kAuto;
  uint32_t verified_insns_ = 0;
  double load_ms_ = 0;
};

// The programs of one process's datapaths (a switch host): open() gives a new
// datapath an index on a loaded program with room, loading another program
// when every one is full. Any thread.
class FastPathPool {
 public:
  Result<std::unique_ptr<FastPath>> open(size_t ports);

 private:
  std::mutex mu_;
  std::vector<std::weak_ptr<FastPathProgram>> programs_;
};

}  // namespace flowlab::kernel

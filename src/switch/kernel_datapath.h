// KernelDatapath: the switch's side of the eBPF fast path (--datapath tc):
// it owns the loaded kernel::FastPath, turns slow-path decisions into kernel
// cache entries, keeps the kernel's epoch in step with the datapath, and
// folds kernel hits back into flow, table and port counters.
//
// Threads and invariants
//  * Forwarding thread (slow path): before process_batch it reads the epoch
//    and extracts each upcalled packet's cache key (before actions rewrite
//    it); after, it asks dp::decide_for_fast_path (same pinned snapshot) and
//    installs the entry stamped with that epoch, keyed on the bits the
//    decision read (its megaflow mask, one of the program's few masks). The epoch is read before the
//    snapshot is pinned and bumped after every publish, so an entry computed
//    from an old snapshot can only carry an old epoch: the kernel treats it as
//    a miss. The thread takes the entry table's lock with try_lock only: when
//    the agent holds it, the install is skipped (the next miss retries).
//  * Agent thread: invalidate() on publish / port-mod / port status (one
//    memory write to the program's .bss, before the barrier reply); fold() on
//    stats requests and before expiry (one map read per live entry), which
//    also prunes stale entries and frees their counter slots.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "datapath/fast_path_decision.h"
#include "kernel/fast_path.h"
#include "kernel/upcall_device.h"
#include "switch/switch_ports.h"

namespace flowlab::sw {

struct KernelDatapathCounters {
  std::atomic<uint64_t> installs{0};
  std::atomic<uint64_t> uncacheable{0};  // upcalls the kernel cannot run (slow path only)
  std::atomic<uint64_t> install_skipped{0};
};

class KernelDatapath {
 public:
  // Per upcalled packet, captured before process_batch.
  struct Pending {
    bool cacheable = false;
    fl_key key{};
    FlowKey flow_key{};
  };

  // Creates the switch's upcall device with `queues` queues (one per
  // forwarding thread) and attaches to every kernel::KernelPort of `ports`,
  // its misses tagged with its port index; other ports (TAP) are served by
  // the slow path only, and decisions involving them stay there.
  static Result<std::unique_ptr<KernelDatapath>> create(std::unique_ptr<kernel::FastPath> fp,
                                                        dp::Datapath& dp, SwitchPorts& ports, size_t queues);
  ~KernelDatapath();

  // The switch's upcall device (nullptr when no port is a kernel port); the
  // tag of each frame read from it is the index in `ports` of its ingress port.
  kernel::UpcallDevice* upcall() const { return upcall_.get(); }

  // Forwarding thread.
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  void prepare(const PacketBatch& batch, std::vector<Pending>& out) const;
  void learn(dp::ForwardingContext& ctx, const std::vector<Pending>& pending, uint64_t epoch);

  // Agent thread.
  void invalidate();
  void fold(uint64_t now_ns);
  std::string_view attach_mode() const { return fp_->attach_mode(); }
  kernel::FastPathStats kernel_stats() const { return fp_->stats(); }
  const KernelDatapathCounters& counters() const { return counters_; }
  size_t entries() const;
  size_t mask_count() const { return fp_->mask_count(); }
  // Whether output to / input from a port can bypass the slow path: a kernel
  // port with no PORT_DOWN / NO_FWD / NO_RECV config. Any thread.
  bool port_usable(uint32_t port_no) const;

 private:
  struct KeyHash {
    size_t operator()(const fl_key& k) const;
  };
  struct KeyEq {
    bool operator()(const fl_key& a, const fl_key& b) const;
  };
  struct Entry {
    uint64_t epoch = 0;
    uint32_t slot = 0;
    dp::FastPathDecision decision;
    fl_count folded{};           // what fold() already accounted
    int in_port = -1;            // port index
    std::vector<int> out_ports;  // port indices of the outputs
  };

  KernelDatapath(std::unique_ptr<kernel::FastPath> fp, dp::Datapath& dp, SwitchPorts& ports);
  // Megaflow: whether k is covered by an entry of `epoch` under some mask, and
  // the index of the mask an entry for cache mask m goes under (-1: none).
  bool installed(const fl_key& k, uint64_t epoch) const;
  int mask_for(const fl_key& m);
  void fold_entry(Entry& e, uint64_t now_ns);
  void retire(Entry& e, uint64_t now_ns);

  std::unique_ptr<kernel::UpcallDevice> upcall_;  // after fp_ (detached first) in destruction
  std::unique_ptr<kernel::FastPath> fp_;
  dp::Datapath& dp_;
  SwitchPorts& ports_;
  std::vector<int> ifindex_to_port_;  // ifindex -> port index (-1)
  std::atomic<uint64_t> epoch_{1};
  KernelDatapathCounters counters_;

  mutable std::mutex mu_;  // entries_, retired_, masks_ (counter slots: the program's pool)
  std::unordered_map<fl_key, Entry, KeyHash, KeyEq> entries_;
  std::vector<Entry> retired_;  // replaced by the forwarding thread; folded and freed by the agent
  std::vector<fl_key> masks_;   // as in the program's fl_masks (only learn() appends)
};

}  // namespace flowlab::sw

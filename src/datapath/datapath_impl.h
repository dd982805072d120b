// Datapath internals shared by datapath.cpp (publication, contexts),
// flow_table.cpp (flow-mod, expiry), pipeline.cpp (forwarding) and stats.cpp.
//
// Version publication (the threading design):
//  * The agent owns the master state (flows per table, groups, meters) under
//    `mu`. A flow change is applied at once to the table's FlowSet (master
//    list) and to its Classifier, tagged with the next, unpublished version
//    (O(1) per flow: nothing is rebuilt). publish() builds a small Snapshot:
//    the version, each table's classifier View (shared when unchanged) and
//    the group/meter tables (copied only when changed), stores it in
//    `current` (atomic shared_ptr) and then bumps `version` (release). A
//    DeferredPublish (the agent holds one per socket read) makes a burst of
//    changes one version.
//  * A forwarding thread compares `version` (one acquire load) with the version
//    it pinned, at the start of every batch; only when it changed does it load
//    `current` (a short refcount increment, never waiting for the agent's work).
//    Inside a batch every packet sees exactly one snapshot: never a half-applied
//    change. Old snapshots die when the last thread lets go of them.
//  * Reclamation: a forwarding thread announces the version it read in
//    `ForwardingState::active` (then a seq_cst fence, then reads the version
//    again, announcing anew until it holds still) before touching the
//    classifier or its flow cache, and clears it (release) after its batch. After each publish,
//    and from expire(), reclaim() unlinks deleted rules older than every
//    announced version, fences, and frees what was unlinked before the oldest
//    announcement (classifier.h). A thread between batches holds nothing.
//  * "Table changed": `version` (Datapath::version()) increases with every
//    publish; a cache in front of the datapath (flow cache, kernel fast path)
//    is valid exactly while the version it was filled at is current.
//  * Counters: flow/group/meter counters are relaxed atomics in blocks shared by
//    all versions of that object. Per-table lookup/match counts and datapath
//    counters are per-thread shards (single writer) summed on read under
//    `reg_mu`, which forwarding threads take only to register/unregister.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "datapath/classifier.h"
#include "datapath/datapath.h"
#include "datapath/flow_cache.h"
#include "datapath/flow_monitor.h"
#include "datapath/flow_set.h"
#include "datapath/groups.h"
#include "datapath/meters.h"

namespace flowlab::dp {

inline constexpr uint16_t kInvalidTtlToController = 4;  // OFPC_INVALID_TTL_TO_CONTROLLER

struct TableSnapshot {
  std::shared_ptr<const Classifier::View> view;
};

struct Snapshot {
  uint64_t version = 0;
  std::vector<std::shared_ptr<const TableSnapshot>> tables;
  std::shared_ptr<const GroupTable> groups;
  std::shared_ptr<const MeterTable> meters;
  uint8_t first_egress = 0;  // OF1.5: the first egress table; 0: no egress processing
};

// Single-writer counter: plain load+store, readable from other threads.
inline void bump(std::atomic<uint64_t>& c, uint64_t n = 1) {
  c.store(c.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}

struct CounterShard {
  explicit CounterShard(size_t n_tables) : lookups(n_tables), matches(n_tables) {}
  std::vector<std::atomic<uint64_t>> lookups, matches;
  std::atomic<uint64_t> packets{0}, table_miss_drops{0}, to_controller{0}, invalid_ttl{0};
  std::atomic<uint64_t> meter_drops{0}, action_drops{0}, cache_hits{0}, cache_misses{0};
  std::atomic<uint64_t> frag_drops{0};
};

struct CounterTotals {
  std::vector<uint64_t> lookups, matches;
  DatapathCounters dp;
  void add(const CounterShard& s);
};

struct ForwardingState {
  ForwardingState(DatapathImpl& d, OutputSink& o, ControllerSink& c);
  DatapathImpl& dp;
  OutputSink& out;
  ControllerSink& ctl;
  std::shared_ptr<const Snapshot> snap;
  uint64_t version = ~uint64_t(0);
  FlowCache cache;
  CounterShard counters;
  std::vector<std::unique_ptr<Packet>> clones;  // scratch packets, one per group nesting level
  std::unique_ptr<Packet> egress_clone;         // the packet one output's egress tables work on
  std::vector<uint32_t> port_list;
  bool disposed = false;            // the packet was output, sent up, or dropped for a counted reason
  std::atomic<uint64_t> active{0};  // version announced for the batch running now, 0 between batches
};

// One flow table on the agent side: the master list and the classifier that
// forwarding threads search, changed together.
struct TableState {
  struct KeyHash {
    size_t operator()(const FlowKey& k) const {
      uint64_t h = 0;
      for (size_t i = 0; i < kFlowKeyWords; ++i) h = hash_mix(h, key_word(k, i));
      return size_t(h);
    }
  };
  FlowSet flows;
  Classifier cls;
  // The masks its flows' StoredKeys share, one copy each. Masks no flow holds
  // any more are dropped when the pool has doubled since the last sweep.
  std::unordered_map<FlowKey, std::shared_ptr<const FlowKey>, KeyHash> masks;
  size_t masks_sweep_at = 64;
  std::shared_ptr<const FlowKey> last_mask;  // the mask stored_key gave last (flows come in runs of one mask)
  bool dirty = true;                         // its view must be republished
  size_t timed = 0;  // flows with an idle or hard timeout (expiry skips tables without)
  // OF1.4 table-mod (table_config.cpp): config bits, vacancy thresholds, and
  // the vacancy event armed next.
  uint32_t config = 0;
  of::TableVacancy vacancy{};
  of::TableStatusReason vacancy_next = of::TableStatusReason::kVacancyDown;
};

// What a flow is filed under in its table's FlowSet and Classifier, computed
// once per flow (a bundle's commit has them from the flow-mod's preparation).
struct FlowHashes {
  uint64_t set = 0;  // FlowSet::hash_of
  uint64_t cls = 0;  // Classifier::hash_of
  static FlowHashes of(const FlowEntry& e) {
    return {FlowSet::hash_of(e), Classifier::hash_of(e.key.value, *e.key.mask)};
  }
};

struct DatapathImpl {
  DatapathConfig cfg;
  const PortView* ports = nullptr;
  std::atomic<uint16_t> config_flags{0};
  std::atomic<uint16_t> miss_send_len{128};
  std::atomic<bool> of10_miss{false};  // see Datapath::set_of10_controllers

  // ---- agent state, under mu ----
  mutable std::mutex mu;
  std::vector<TableState> tables;
  uint8_t first_egress = 0;  // OF1.5 egress tables start here (0: none); published in Snapshot
  GroupTable groups;
  MeterTable meters;
  InstructionPool instruction_pool;  // the flows' instruction lists, one copy of each
  bool groups_dirty = true, meters_dirty = true;
  std::shared_ptr<const Snapshot> last;  // the most recently published snapshot
  int defer_depth = 0;                   // DeferredPublish guards alive
  bool publish_pending = false;

  std::function<void(uint64_t)> publish_hook;  // Datapath::set_publish_hook
  std::function<void()> stats_sync_hook;       // Datapath::set_stats_sync_hook
  void sync_stats() const {
    if (stats_sync_hook) stats_sync_hook();
  }

  // ---- published ----
  std::atomic<std::shared_ptr<const Snapshot>> current;
  std::atomic<uint64_t> version{0};

  // ---- counter shards ----
  mutable std::mutex reg_mu;
  std::vector<ForwardingState*> states;
  CounterTotals retired;

  explicit DatapathImpl(DatapathConfig c, const PortView* p);
  void publish();        // caller holds mu
  void maybe_publish();  // publish() unless deferred; caller holds mu
  void reclaim();        // caller holds mu (see "Reclamation")
  uint64_t oldest_reader() const;
  size_t flow_count_locked() const;
  uint64_t next_version() const { return last ? last->version + 1 : 1; }

  // mk as table t keeps it, its mask shared with the table's other flows.
  StoredKey stored_key(uint8_t t, const MaskedKey& mk);
  // Every change to a table's flows goes through these (master list + classifier).
  // With `journal` set, each one also records how to undo it (flow_commit.cpp).
  // `h`: e's hashes when the caller has them (a prepared flow-mod), else computed.
  void add_flow(uint8_t t, FlowEntryPtr e, const FlowHashes& h);
  void insert_flow(uint8_t t, FlowSet::iterator before, FlowEntryPtr e);
  void insert_flow(uint8_t t, FlowSet::iterator before, FlowEntryPtr e, const FlowHashes& h);
  void replace_flow(uint8_t t, FlowSet::iterator it, FlowEntryPtr e);
  void replace_flow(uint8_t t, FlowSet::iterator it, FlowEntryPtr e, const FlowHashes& h);
  FlowSet::iterator erase_flow(uint8_t t, FlowSet::iterator it);

  // Undo log of an atomic commit (Datapath::commit_flow_mods): one step per
  // change, undone newest first. `entry` is the flow added (kAdded) or the one
  // replaced or erased; `next` the flow that followed an erased one in dump
  // order (nullptr: it was last). Flows are found again by (priority, match),
  // unique within a table, so a step stays valid whatever was undone after it.
  struct UndoStep {
    enum class Kind : uint8_t { kAdded, kReplaced, kErased } kind;
    uint8_t table;
    FlowEntryPtr entry, next;
  };
  std::vector<UndoStep>* journal = nullptr;
  void undo(std::vector<UndoStep>& steps);

  // flow_table.cpp (caller holds mu; they do not publish)
  Result<std::vector<of::FlowRemoved>, of::OfError> apply_flow_mod(const of::FlowMod& fm, uint64_t now_ns);
  // An add's last steps: the overlap check, then the entry replaces a flow of
  // the same priority and match or joins the table (a full table: evicts one
  // with OFPTC_EVICTION, returned as flow-removed; else TABLE_FULL).
  Result<std::vector<of::FlowRemoved>, of::OfError> add_entry(std::shared_ptr<FlowEntry> ne, uint16_t flags,
                                                              const FlowHashes& h, uint64_t now_ns);
  // flow_commit.cpp (caller holds mu; they do not publish)
  PreparedFlowMod prepare(of::FlowMod fm);
  Result<std::vector<of::FlowRemoved>, of::OfError> apply_prepared(PreparedFlowMod& p, uint64_t now_ns);
  // What apply_prepared(p) will touch first (stages: Classifier::prefetch).
  void prefetch(const PreparedFlowMod& p, int stage) const;
  std::vector<of::FlowRemoved> remove_flows_if(const std::function<bool(const FlowEntry&)>& pred,
                                               of::FlowRemovedReason reason, uint64_t now_ns);
  std::vector<of::FlowRemoved> expire_locked(uint64_t now_ns);
  // table_config.cpp (caller holds mu)
  uint8_t vacancy_of(size_t t) const;  // free share of table t, percent
  of::TableDesc table_desc_locked(size_t t) const;
  // OFPTC_EVICTION on a full table: removes the flow of lowest importance,
  // then shortest remaining life, returns it (flow-removed reason EVICTION).
  std::shared_ptr<const FlowEntry> evict_one(uint8_t t, uint64_t now_ns);
  size_t vacancy_tables = 0;  // tables with OFPTC_VACANCY_EVENTS set
  // Flow monitoring (flow_monitor.h): the changes made while record_changes
  // is set, appended where each change's meaning is known.
  bool record_changes = false;
  std::vector<FlowChange> changes;
  template <typename EntryPtr>
  void note_change(of::FlowUpdateEvent event, uint8_t reason, const EntryPtr& e) {
    if (record_changes) changes.push_back(FlowChange{event, reason, e});
  }
  // Flows selected by a flow-stats/delete style filter (table_id may be of::table::kAll).
  void for_each_filtered(uint8_t table_id, const MaskedKey& filter, uint64_t cookie, uint64_t cookie_mask,
                         uint32_t out_port, uint32_t out_group,
                         const std::function<void(const FlowEntry&)>& fn) const;
};

of::FlowRemoved make_flow_removed(const FlowEntry& e, of::FlowRemovedReason reason, uint64_t now_ns);
// A new flow entry for fm's table, priority, cookie, flags and timeouts, with
// this match (as the flow-mod gave it), instructions and compiled key.
std::shared_ptr<FlowEntry> make_entry(const of::FlowMod& fm, const of::Match& match,
                                      SharedInstructions instructions, StoredKey key, uint64_t now_ns);
void fill_duration(uint64_t created_ns, uint64_t now_ns, uint32_t& sec, uint32_t& nsec);

// Pins the newest published version for one batch or one fast-path decision
// (the reclamation protocol above). The announcement is cleared at scope end.
class VersionPin {
 public:
  explicit VersionPin(ForwardingState& st) : st_(st) {
    // The version is read again after the fence: a reclaim that missed the
    // announcement (and so may have freed what an older version, and this
    // thread's flow cache, still point to) published its version before its own
    // fence, so the second read sees it and the thread moves on to it.
    uint64_t v = st.dp.version.load(std::memory_order_acquire);
    for (;;) {
      st.active.store(v, std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_seq_cst);
      const uint64_t again = st.dp.version.load(std::memory_order_acquire);
      if (again == v) break;
      v = again;
    }
    if (v != st.version) {
      st.snap = st.dp.current.load(std::memory_order_acquire);
      st.version = st.snap->version;
    }
  }
  ~VersionPin() { st_.active.store(0, std::memory_order_release); }
  VersionPin(const VersionPin&) = delete;
  VersionPin& operator=(const VersionPin&) = delete;

 private:
  ForwardingState& st_;
};

}  // namespace flowlab::dp

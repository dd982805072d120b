// Datapath: the switch's OpenFlow 1.3 pipeline, pure code over in-memory packets.
//
// Two kinds of callers:
//  * the OpenFlow agent (one control thread): flow-mod, group-mod, meter-mod,
//    expire(), stats for multipart replies. Calls are serialized internally by a
//    mutex that forwarding threads never take. A successful change is published
//    (a new immutable version of tables + groups + meters) before the call
//    returns, so a barrier reply sent after it is honest.
//  * forwarding threads: process_batch() with their own ForwardingContext. They
//    never wait on the agent, never see a half-applied change (they pin one
//    version per batch), never allocate or lock per packet in steady state.
//
// The datapath owns no ports. Results leave through two interfaces the switch
// implements: OutputSink (packet, port, queue) and ControllerSink (packet-in).
// Port lists (FLOOD/ALL) and liveness (fast-failover) come from a PortView.
//
// Typical use (switch side):
//   dp::Datapath dp({.n_tables = 64}, &port_view);
//   auto r = dp.flow_mod(fm, now);            // agent: error -> OFPT_ERROR r.error()
//   dp::ForwardingContext ctx(dp, out_sink, ctl_sink);   // one per forwarding thread
//   dp.process_batch(ctx, batch, monotonic_ns());         // per received batch
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/result.h"
#include "datapath/flow_monitor.h"
#include "openflow/errors.h"
#include "openflow/message.h"
#include "packet/packet.h"

namespace flowlab::dp {

using OfStatus = BasicStatus<of::OfError>;

inline constexpr uint8_t kDefaultTables = 64;

struct DatapathConfig {
  uint8_t n_tables = kDefaultTables;  // 1..254; OF1.0 mode uses 1
  bool of10 = false;                  // OF1.0 semantics: table miss -> controller (miss_send_len)
  size_t flow_cache_entries = 4096;   // per ForwardingContext, power of two
  // Flows a table holds (reported as max_entries; OF1.4 vacancy is its free
  // share). Past it an add evicts (OFPTC_EVICTION) or fails with TABLE_FULL.
  size_t table_size = size_t(1) << 20;
};

// OF1.4 vacancy event (table status): the table's free share crossed the
// threshold that was armed; `desc` is the table's description at that moment.
struct VacancyEvent {
  of::TableStatusReason reason = of::TableStatusReason::kVacancyDown;
  of::TableDesc desc;
};

// Switch-side view of its ports. Called from forwarding threads and the agent:
// must be thread-safe, cheap and non-blocking (e.g. an atomically published
// immutable port list plus atomic liveness flags).
class PortView {
 public:
  virtual ~PortView() = default;
  // Fill `out` (cleared first) with every OpenFlow port number that FLOOD/ALL
  // should consider (LOCAL too when the switch has one, as in OVS). `out` keeps its capacity: no allocation
  // after warm-up.
  virtual void list_ports(std::vector<uint32_t>& out) const = 0;
  // Link up and not blocked: used by fast-failover watch_port.
  virtual bool is_live(uint32_t port_no) const = 0;
};

// Where forwarded packets go. Called from forwarding threads (and from the
// thread calling packet_out). `pkt` is only valid during the call and may be
// changed by later actions: copy what you keep (TX ring slot, TX batch).
// port_no is a real port number or of::port::kLocal (never another reserved
// port: IN_PORT, FLOOD, ALL are resolved here). pkt.offload is consistent
// with the bytes (csum_start/hdr_len follow pushed/popped headers, partial
// checksums hold the right pseudo-header sum): complete/segment as the port needs.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  virtual void output(const Packet& pkt, uint32_t port_no, uint32_t queue_id) = 0;
};

// A packet for the controller.
struct PacketInInfo {
  of::PacketInReason reason = of::PacketInReason::kNoMatch;
  uint8_t table_id = 0;
  uint64_t cookie = ~uint64_t(0);  // cookie of the flow that sent it; all-ones when none
  // Bytes of the packet the controller asked for: of::kControllerMaxLenNoBuffer
  // (0xffff) = whole packet, no buffering; otherwise buffer it and send max_len bytes.
  uint16_t max_len = of::kControllerMaxLenNoBuffer;
  uint32_t in_port = 0;
  uint64_t metadata = 0;
  uint64_t tunnel_id = 0;
  // A table miss sent up only because OF1.0 controllers are connected to an
  // OF1.3 pipeline (Datapath::set_of10_controllers): for OF1.0 peers only.
  bool of10_miss = false;

  // OXM match for the packet-in: in_port, then metadata / tunnel_id when non-zero.
  of::Match match() const;
};

// Packets to the controller. Called from forwarding threads; must not block
// (put on a bounded queue, count drops). `pkt` is only valid during the call.
class ControllerSink {
 public:
  virtual ~ControllerSink() = default;
  virtual void packet_in(const PacketInInfo& info, const Packet& pkt) = 0;
};

// Datapath-wide counters (summed over forwarding contexts on read).
struct DatapathCounters {
  uint64_t packets = 0;           // packets that entered the pipeline
  uint64_t table_miss_drops = 0;  // dropped: no flow matched and no table-miss flow
  uint64_t to_controller = 0;     // handed to the ControllerSink
  uint64_t invalid_ttl = 0;       // dropped or sent to the controller for TTL expiry
  uint64_t meter_drops = 0;       // dropped by a meter band
  uint64_t action_drops = 0;      // no output at all after the action set (explicit drop)
  uint64_t cache_hits = 0;        // exact-match flow cache hits
  uint64_t cache_misses = 0;
  uint64_t frag_drops = 0;  // IP fragments dropped before the tables (set-config OFPC_FRAG_DROP)
};

class Datapath;
struct ForwardingState;

// Per forwarding-thread state: exact-match flow cache, scratch packets for
// clones (group buckets), counter shards, the pinned table version. Create one
// per thread (and one for the agent thread to run packet-out); it must not
// outlive its Datapath. Not thread-safe itself: one thread uses it.
class ForwardingContext {
 public:
  ForwardingContext(Datapath& dp, OutputSink& out, ControllerSink& ctl);
  ~ForwardingContext();
  ForwardingContext(const ForwardingContext&) = delete;
  ForwardingContext& operator=(const ForwardingContext&) = delete;

  ForwardingState& state() { return *state_; }

 private:
  Datapath& dp_;
  std::unique_ptr<ForwardingState> state_;
};

struct DatapathImpl;

// While one lives, successful changes are applied to the agent's tables but
// published to forwarding threads only once, when the last DeferredPublish
// ends (cheaper for a burst of flow-mods, e.g. all messages of one socket
// read). End it before answering a barrier. Agent thread only; nestable.
class DeferredPublish {
 public:
  explicit DeferredPublish(Datapath& dp);
  ~DeferredPublish();
  DeferredPublish(const DeferredPublish&) = delete;
  DeferredPublish& operator=(const DeferredPublish&) = delete;

 private:
  Datapath& dp_;
};

// The flow-mod of an atomic commit that failed (0-based) and why.
struct FlowModsFailure {
  size_t index = 0;
  of::OfError error;
};

struct FlowEntry;

// A flow-mod of an atomic commit, checked and built when it arrives
// (Datapath::prepare_flow_mod), so that the commit has little left to do.
// Everything that does not depend on the tables' state is done: the table id,
// the match compiled, the instructions checked but for the groups and meters
// they name, and an add's flow entry built (its match and instructions moved
// in, its mask shared with the table's). A flow-mod that fails these checks
// keeps its error, and the commit fails there, at its index, as it would
// have. Other commands than add (and every flow-mod of an OF1.0 pipeline)
// keep the decoded flow-mod and are applied as Datapath::flow_mod applies it.
class PreparedFlowMod {
 public:
  PreparedFlowMod();
  ~PreparedFlowMod();
  PreparedFlowMod(PreparedFlowMod&&) noexcept;
  PreparedFlowMod& operator=(PreparedFlowMod&&) noexcept;
  PreparedFlowMod(const PreparedFlowMod&) = delete;
  PreparedFlowMod& operator=(const PreparedFlowMod&) = delete;

  bool ok() const { return !error_; }
  const of::OfError* error() const { return error_.get(); }

 private:
  friend class Datapath;
  friend struct DatapathImpl;
  // Small (~56 bytes), as a big bundle holds a million of them.
  std::shared_ptr<FlowEntry> entry_;    // an add's entry (created at commit time)
  std::unique_ptr<of::FlowMod> fm_;     // other commands: the whole flow-mod
  std::unique_ptr<of::OfError> error_;  // the checks failed: the commit fails here
  // An add's hashes in its table (FlowHashes) and its shared mask: the commit
  // prefetches what a later add will touch without reading its entry.
  uint64_t set_hash_ = 0, cls_hash_ = 0;
  const void* mask_ = nullptr;
  uint16_t flags_ = 0;                   // an add's flow-mod flags
  uint8_t table_ = 0;                    // an add's table
  bool names_groups_or_meters_ = false;  // checked against them at commit
};

class Datapath {
 public:
  explicit Datapath(DatapathConfig cfg = {}, const PortView* ports = nullptr);
  ~Datapath();
  Datapath(const Datapath&) = delete;
  Datapath& operator=(const Datapath&) = delete;

  // ---- control path (agent thread) ------------------------------------------
  // Flow-mod, all five commands with OF1.3 semantics (OF1.0 in of10 mode: modify
  // of nothing adds). On success returns the flows removed by a delete that had
  // OFPFF_SEND_FLOW_REM (reason kDelete), ready to send as flow-removed.
  // Errors carry the OFPT_ERROR type/code to answer with (bad table, overlap,
  // bad match/prereq, bad instruction/action, unknown group/meter, ...).
  // fm.buffer_id is not handled here: the agent releases the buffered packet
  // through packet_out() after a successful flow_mod.
  Result<std::vector<of::FlowRemoved>, of::OfError> flow_mod(const of::FlowMod& fm, uint64_t now_ns);
  // Group-mod add/modify/delete (loops, chaining, unknown groups checked).
  // Deleting a group removes the flows that use it: returned with reason
  // kGroupDelete when they had OFPFF_SEND_FLOW_REM.
  Result<std::vector<of::FlowRemoved>, of::OfError> group_mod(const of::GroupMod& gm, uint64_t now_ns);
  // Meter-mod add/modify/delete. Deleting a meter removes the flows that use it.
  Result<std::vector<of::FlowRemoved>, of::OfError> meter_mod(const of::MeterMod& mm, uint64_t now_ns);
  // Atomic commit (a bundle): flow-mods at(0) .. at(n-1), applied in order
  // and published as one version. When one fails (or `at` returns an error),
  // the ones before it are undone, no change becomes visible, and the error
  // names its index. Returns the flow-removed messages of its deletes.
  using FlowModSource = std::function<Result<of::FlowMod, of::OfError>(size_t index)>;
  Result<std::vector<of::FlowRemoved>, FlowModsFailure> commit_flow_mods(size_t n, const FlowModSource& at,
                                                                         uint64_t now_ns);
  // The same for flow-mods prepared as they arrived (a bundle's adds): the
  // commit applies them in order, checking only what depends on the tables'
  // state (the flows there, groups and meters). `mods` is consumed.
  PreparedFlowMod prepare_flow_mod(of::FlowMod fm);
  Result<std::vector<of::FlowRemoved>, FlowModsFailure> commit_flow_mods(std::vector<PreparedFlowMod>& mods,
                                                                         uint64_t now_ns);
  // Table-mod (OFPTT_ALL: every table). OF1.3 has no config bits left; OF1.4
  // sets the config (OFPTC_EVICTION, OFPTC_VACANCY_EVENTS) and, with the
  // vacancy property, the thresholds. Enabling vacancy events arms the event
  // the table's free share can reach next: VACANCY_DOWN unless it is already
  // under vacancy_down. A fired event arms the other one (hysteresis, OF1.4
  // 7.4.3). The eviction property's flags are accepted; eviction here always
  // orders by importance, then remaining lifetime (table_desc says so).
  OfStatus table_mod(const of::TableMod& tm);
  of::TableDescReply table_desc() const;
  // OF1.5 egress tables: tables `table`.. are egress tables (0: none, every
  // table is an ingress table). A packet an ingress table outputs to a port
  // then runs through them first, with actset_output = that port (pipeline.cpp).
  // Refused (OFPTFFC_BAD_TABLE / BAD_FEATURES / EPERM) for a table that does
  // not exist, table 0 (the pipeline starts at an ingress table), a table that
  // changes sides while it holds flows, or an ingress flow whose goto-table
  // would then lead into an egress table. Published with the next snapshot.
  OfStatus set_first_egress(uint8_t table);
  uint8_t first_egress() const;
  // Vacancy events since the last call, each at most once per crossing; call
  // after changes to the flows (a flow-mod, a commit, expiry, group/meter delete).
  std::vector<VacancyEvent> vacancy_events();
  // Idle/hard timeouts: removes expired flows, returns those with
  // OFPFF_SEND_FLOW_REM as flow-removed messages. Call about once a second.
  std::vector<of::FlowRemoved> expire(uint64_t now_ns);
  // set-config: OFPC_FRAG_DROP (IP fragments are dropped before the tables;
  // OFPC_FRAG_NORMAL matches later fragments with L4 ports 0),
  // OFPC_INVALID_TTL_TO_CONTROLLER (flags & 4) and miss_send_len (OF1.0
  // table-miss packet-ins).
  void set_switch_config(const of::SwitchConfig& cfg);
  // Whether an OF1.0 controller is connected. Table-miss behaviour is the
  // controller's protocol's, as in Open vSwitch: OF1.3 drops a packet no flow
  // matches, OF1.0 sends it up with miss_send_len bytes. On an OF1.3 pipeline
  // with this set, a miss becomes a packet-in marked of10_miss (the agent
  // gives it to OF1.0 controllers only); OF1.0 mode always sends misses up.
  void set_of10_controllers(bool connected);
  of::SwitchConfig switch_config() const;
  // Checks a packet-out's action list (OFPP_TABLE allowed, groups must exist).
  OfStatus validate_packet_out(const of::ActionList& actions) const;

  // ---- flow monitoring (agent thread; flow_monitor.h) -----------------------
  // Recording of flow changes, off by default; turning it off drops what it holds.
  void set_record_flow_changes(bool on);
  // The changes since the last call, oldest first.
  std::vector<FlowChange> take_flow_changes();
  // The flows `sel` picks now, as INITIAL updates, in dump order.
  std::vector<of::FlowUpdate> monitor_initial(const FlowSelector& sel, bool instructions) const;

  // ---- stats for multipart replies (agent thread) ---------------------------
  Result<of::FlowStatsReply, of::OfError> flow_stats(const of::FlowStatsRequest& req, uint64_t now_ns) const;
  Result<of::AggregateStatsReply, of::OfError> aggregate_stats(const of::FlowStatsRequest& req) const;
  of::TableStatsReply table_stats() const;
  of::GroupStatsReply group_stats(const of::GroupStatsRequest& req, uint64_t now_ns) const;
  of::GroupDescReply group_desc() const;
  of::GroupFeaturesReply group_features() const;
  of::MeterStatsReply meter_stats(const of::MeterStatsRequest& req, uint64_t now_ns) const;
  of::MeterConfigReply meter_config(const of::MeterConfigRequest& req) const;
  of::MeterFeaturesReply meter_features() const;
  of::TableFeaturesReply table_features() const;
  DatapathCounters counters() const;
  uint8_t n_tables() const;
  size_t flow_count() const;
  uint64_t version() const;  // increases with every published change

  // ---- data path (forwarding threads, each with its own context) -----------
  // Runs every packet of `batch` through the pipeline. Packets stay owned by the
  // caller; outputs and packet-ins are delivered through ctx's sinks during the
  // call (a dropped packet simply produces none). Packets are rewritten in place.
  void process_batch(ForwardingContext& ctx, PacketBatch& batch, uint64_t now_ns);
  // Packet-out: runs `actions` (validated with validate_packet_out) on pkt;
  // pkt.in_port must hold the packet-out's in_port (of::port::kController when none).
  // OFPP_TABLE submits the packet to table 0.
  void packet_out(ForwardingContext& ctx, Packet& pkt, const of::ActionList& actions, uint64_t now_ns);

  // ---- kernel fast path hooks (the switch sets them before it starts) ------
  // Called after every publish, on the publishing thread and under the
  // datapath's lock, with the new version: the switch makes every kernel cache
  // entry of older versions stale there, so a barrier reply after a change
  // means no packet meets a stale entry.
  void set_publish_hook(std::function<void(uint64_t version)> fn);
  // Called (agent thread) before flow/aggregate/table stats, expire() and
  // delete flow-mods: folds the kernel's hit counters into flows and tables.
  void set_stats_sync_hook(std::function<void()> fn);

  DatapathImpl& impl() { return *impl_; }
  const DatapathImpl& impl() const { return *impl_; }

 private:
  std::unique_ptr<DatapathImpl> impl_;
};

}  // namespace flowlab::dp

// FastPathDecision: the translation of a pipeline decision into a cache entry
// a kernel fast path can run (src/kernel runs it; see its design comment).
//
// Idea. For a packet key the slow path walks the same pinned snapshot the
// pipeline used (table 0, then goto-table) and, instead of acting on a
// packet, records what it would do: an ordered list of simple ops (outputs to
// real ports, set-field of Ethernet/IPv4/TCP/UDP fields, IPv4 TTL decrement)
// and the flows and tables it went through (their counters get the kernel's
// hits). FLOOD / ALL / NORMAL become one output per port (as the pipeline
// floods), groups ALL and INDIRECT whose buckets only output become their
// buckets' outputs (the group and bucket counters get the hits). Anything the
// kernel cannot run exactly — meters, select / fast-failover groups or buckets
// that modify, packet-in, LOCAL, VLAN/MPLS/PBB push/pop, set-queue aside, a table miss that
// goes to the controller, a port whose config would drop or divert the packet
// — makes decide() return nullopt: such packets stay in the slow path.
//
// Invariant. The caller gives a key for which every FlowKey field that is
// not in the kernel's cache key is constant (untagged, unfragmented IPv4, see
// kernel/cache_key.h): the decision is then a function of the kernel key.
// The decision is only valid for the snapshot version it was made at.
//
// Megaflow. The decision also says which key bits it read (read_mask): for
// every table visited, every bit any of its subtables masks. The kernel entry
// is keyed on those bits only, so one upcall serves every microflow that
// agrees on them (e.g. a table of in_port flows: one entry per port).
//
// Cost. One classifier lookup per table visited, no allocation.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "datapath/datapath.h"
#include "datapath/flow_entry.h"
#include "datapath/groups.h"

namespace flowlab::dp {

struct FastPathOp {
  enum class Kind : uint8_t {
    kOutput,
    kSetEthSrc,
    kSetEthDst,
    kSetIpv4Src,
    kSetIpv4Dst,
    kSetTpSrc,
    kSetTpDst,
    kDecTtl
  };
  Kind kind = Kind::kOutput;
  uint32_t port = 0;   // kOutput: OpenFlow port number (a real port)
  uint64_t value = 0;  // set-field value, host order (a MAC in the low 48 bits)
};

struct FastPathDecision {
  static constexpr size_t kMaxOps = 16;  // = FL_MAX_OPS (a FLOOD over 16 ports)
  static constexpr size_t kMaxFlows = 8;
  static constexpr size_t kMaxGroups = 4;
  // A group the decision went through: its counters and those of its first
  // n_buckets buckets get the kernel's hits.
  struct GroupHit {
    std::shared_ptr<GroupCounters> counters;
    uint16_t n_buckets = 0;
  };
  std::array<FastPathOp, kMaxOps> ops{};
  size_t n_ops = 0;
  // Flows matched on the way (their counters and idle timers get the hits) and
  // the tables they are in (lookups and matches).
  std::array<std::shared_ptr<FlowCounters>, kMaxFlows> flows{};
  std::array<uint8_t, kMaxFlows> tables{};
  size_t n_flows = 0;
  std::array<GroupHit, kMaxGroups> groups{};
  size_t n_groups = 0;
  uint8_t miss_table = 0xff;  // a table whose lookup missed (drop), 0xff when none
  uint64_t version = 0;       // snapshot version the decision was made at
  // Megaflow: the key bits the decision depends on (the union of the masks of
  // every table visited, plus ip_proto when a set-field needs it). Packets
  // that agree with `key` on these bits get the same decision.
  FlowKey read_mask{};
};

// What the pipeline would do with packets of `key` (in_port set, metadata 0)
// under the snapshot `ctx` pinned for its last batch. `port_usable(no)` says
// whether an output to / input from OpenFlow port `no` can bypass the slow
// path (exists, no PORT_DOWN / NO_FWD / NO_RECV).
std::optional<FastPathDecision> decide_for_fast_path(ForwardingContext& ctx, const FlowKey& key,
                                                     const std::function<bool(uint32_t)>& port_usable);

// Kernel hits of a decision's entry, folded into flow, table and datapath
// counters; the flows' last-used time becomes now_ns (idle timeouts).
void account_fast_path_hits(Datapath& dp, const FastPathDecision& d, uint64_t packets, uint64_t bytes,
                            uint64_t now_ns);

}  // namespace flowlab::dp

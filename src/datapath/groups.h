// Group table entries (all, select, indirect, fast-failover) and group-mod.
//
// A Group is immutable once published; its counters (group and per bucket) are
// relaxed atomics in a GroupCounters block shared by forwarding threads.
// The agent keeps the GroupTable (id -> Group) and publishes copies of it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "datapath/datapath.h"
#include "packet/flow_key.h"

namespace flowlab::dp {

struct GroupCounters {
  explicit GroupCounters(size_t n_buckets) : bucket_packets(n_buckets), bucket_bytes(n_buckets) {}
  std::atomic<uint64_t> packets{0};
  std::atomic<uint64_t> bytes{0};
  std::vector<std::atomic<uint64_t>> bucket_packets;
  std::vector<std::atomic<uint64_t>> bucket_bytes;
};

struct Group {
  uint32_t id = 0;
  of::GroupType type = of::GroupType::kAll;
  std::vector<of::Bucket> buckets;
  uint32_t total_weight = 0;
  uint64_t created_ns = 0;
  std::shared_ptr<GroupCounters> counters;
};
using GroupPtr = std::shared_ptr<const Group>;
using GroupTable = std::map<uint32_t, GroupPtr>;

// Checks and applies a group-mod to `table` (a copy the caller publishes).
// `flow_uses` tells whether some flow references a group (delete of a group in
// use is allowed; the caller removes those flows). Errors carry OFPGMFC_* codes.
OfStatus apply_group_mod(GroupTable& table, const of::GroupMod& gm, uint64_t now_ns);

// Whether group `id` can reach group `target` through bucket group actions.
bool group_reaches(const GroupTable& table, uint32_t id, uint32_t target, int depth = 0);

// ---- bucket choice, shared by the pipeline and its trace ------------------
inline constexpr int kMaxGroupDepth = 8;  // group nesting / clone levels

// Whether a bucket may be used: its watch port is live (PortView::is_live)
// and its watch group has a live bucket.
bool bucket_live(const of::Bucket& b, const GroupTable& groups, const PortView* ports, int depth = 0);
// Whether a bucket changes the packet (runs on a copy) or only outputs.
bool bucket_modifies(const of::Bucket& b);
// Select-group hash of a packet's key: what tells one flow from another at
// every layer the frame has (MACs, VLAN, ethertype, ARP and IP addresses,
// protocol, transport ports, ICMP type/code, MPLS label, I-SID).
uint64_t select_hash(const FlowKey& k);
// The bucket a select group picks for hash `h`: weighted among the live
// buckets with a weight; -1 when there is none.
template <typename Live>
int select_bucket(const Group& g, uint64_t h, Live&& live) {
  uint64_t total = 0;
  for (const of::Bucket& b : g.buckets)
    if (b.weight && live(b)) total += b.weight;
  if (!total) return -1;
  uint64_t pick = h % total;
  for (size_t i = 0; i < g.buckets.size(); ++i) {
    const of::Bucket& b = g.buckets[i];
    if (!b.weight || !live(b)) continue;
    if (pick < b.weight) return int(i);
    pick -= b.weight;
  }
  return -1;
}

}  // namespace flowlab::dp

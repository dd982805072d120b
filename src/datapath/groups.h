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

}  // namespace flowlab::dp

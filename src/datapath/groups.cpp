// Group-mod: validation (types, buckets, watches, chaining, loops) and apply;
// OF1.5's insert/remove bucket become the modify they amount to.
#include "datapath/groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "datapath/classifier.h"
#include "datapath/validate.h"

namespace flowlab::dp {
namespace {

using of::GroupModFailedCode;

of::OfError gm_error(GroupModFailedCode c, std::string msg) { return of::OfError::make(c, std::move(msg)); }

bool bucket_refers(const of::Bucket& b, uint32_t target) {
  for (const of::Action& a : b.actions)
    if (a.type == of::ActionType::kGroup && a.group_id == target) return true;
  return false;
}

// OF1.5 insert/remove bucket: the group's new bucket list (validated by the
// modify it becomes).
Result<std::vector<of::Bucket>, of::OfError> edit_buckets(const Group& g, const of::GroupMod& gm) {
  std::vector<of::Bucket> out = g.buckets;
  const uint32_t where = gm.command_bucket_id;
  auto find = [&](uint32_t id) {
    return std::find_if(out.begin(), out.end(), [&](const of::Bucket& b) { return b.bucket_id == id; });
  };
  if (where <= of::bucket::kMax && find(where) == out.end())
    return unexpected(gm_error(GroupModFailedCode::kUnknownBucket,
                               fmt::format("group {} has no bucket {}", gm.group_id, where)));
  if (where > of::bucket::kMax && where != of::bucket::kFirst && where != of::bucket::kLast &&
      where != of::bucket::kAll)
    return unexpected(gm_error(GroupModFailedCode::kUnknownBucket,
                               fmt::format("command_bucket_id 0x{:x} is reserved", where)));
  if (gm.command == of::GroupModCommand::kRemoveBucket) {
    if (where == of::bucket::kAll)
      out.clear();
    else if (!out.empty())
      out.erase(where == of::bucket::kFirst  ? out.begin()
                : where == of::bucket::kLast ? out.end() - 1
                                             : find(where));
    return out;
  }
  if (where == of::bucket::kAll)
    return unexpected(
        gm_error(GroupModFailedCode::kBadCommand,
                 "insert bucket: command_bucket_id must be first, last or a bucket id, not all"));
  uint32_t next = 0;  // ids for inserted buckets that have none: past the largest
  for (const of::Bucket& b : out)
    if (b.bucket_id && *b.bucket_id >= next) next = *b.bucket_id + 1;
  std::vector<of::Bucket> added = gm.buckets;
  for (of::Bucket& b : added) {
    if (!b.bucket_id) b.bucket_id = next++;
    if (find(*b.bucket_id) != out.end())
      return unexpected(gm_error(GroupModFailedCode::kBucketExists,
                                 fmt::format("group {} already has bucket {}", gm.group_id, *b.bucket_id)));
  }
  const auto at = where == of::bucket::kFirst  ? out.begin()
                  : where == of::bucket::kLast ? out.end()
                                               : find(where);
  out.insert(at, added.begin(), added.end());
  return out;
}

}  // namespace

bool bucket_live(const of::Bucket& b, const GroupTable& groups, const PortView* ports, int depth) {
  if (b.watch_port != of::port::kAny && !(ports && ports->is_live(b.watch_port))) return false;
  if (b.watch_group == of::group::kAny) return true;
  if (depth >= kMaxGroupDepth) return false;  // the watched group's liveness, as deep as groups nest
  auto it = groups.find(b.watch_group);
  if (it == groups.end()) return false;
  for (const of::Bucket& w : it->second->buckets)
    if (bucket_live(w, groups, ports, depth + 1)) return true;
  return false;
}

bool bucket_modifies(const of::Bucket& b) {
  for (const of::Action& a : b.actions)
    if (a.type != of::ActionType::kOutput && a.type != of::ActionType::kGroup &&
        a.type != of::ActionType::kSetQueue)
      return true;
  return false;
}

uint64_t select_hash(const FlowKey& k) {
  uint64_t s = 0, d = 0;
  std::memcpy(&s, k.eth_src, 6);
  std::memcpy(&d, k.eth_dst, 6);
  uint64_t h = hash_mix(0, s);
  h = hash_mix(h, d);
  h = hash_mix(h, uint64_t(k.vlan_vid) << 32 | uint64_t(k.eth_type) << 16 | k.vlan_pcp);
  h = hash_mix(h, uint64_t(k.arp_spa) << 32 | k.arp_tpa);
  h = hash_mix(h, uint64_t(k.ipv4_src) << 32 | k.ipv4_dst);
  for (int i = 0; i < 16; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, k.ipv6_src + i, 8);
    std::memcpy(&b, k.ipv6_dst + i, 8);
    h = hash_mix(h, a);
    h = hash_mix(h, b);
  }
  h = hash_mix(h, uint64_t(k.ip_proto) << 48 | uint64_t(k.tp_src) << 32 | uint64_t(k.tp_dst) << 16 |
                      uint64_t(k.icmp_type) << 8 | k.icmp_code);
  h = hash_mix(h, uint64_t(k.mpls_label) << 32 | k.pbb_isid);
  return h;
}

bool group_reaches(const GroupTable& table, uint32_t id, uint32_t target, int depth) {
  if (depth > 16) return true;
  auto it = table.find(id);
  if (it == table.end()) return false;
  for (const of::Bucket& b : it->second->buckets)
    for (const of::Action& a : b.actions)
      if (a.type == of::ActionType::kGroup &&
          (a.group_id == target || group_reaches(table, a.group_id, target, depth + 1)))
        return true;
  return false;
}

OfStatus apply_group_mod(GroupTable& table, const of::GroupMod& gm, uint64_t now_ns) {
  using of::GroupModCommand;
  const uint32_t id = gm.group_id;
  if (gm.command == GroupModCommand::kDelete) {
    if (id == of::group::kAll) {
      table.clear();
      return {};
    }
    for (const auto& [gid, g] : table) {
      if (gid == id) continue;
      for (const of::Bucket& b : g->buckets)
        if (bucket_refers(b, id))
          return unexpected(gm_error(GroupModFailedCode::kChainedGroup,
                                     fmt::format("group {} is used by group {}", id, gid)));
    }
    table.erase(id);
    return {};
  }
  if (gm.command == GroupModCommand::kInsertBucket || gm.command == GroupModCommand::kRemoveBucket) {
    auto it = table.find(id);
    if (it == table.end())
      return unexpected(
          gm_error(GroupModFailedCode::kUnknownGroup, fmt::format("group {} does not exist", id)));
    FLOWLAB_ASSIGN_OR_RETURN(auto buckets, edit_buckets(*it->second, gm));
    of::GroupMod mod;
    mod.command = GroupModCommand::kModify;
    mod.type = it->second->type;
    mod.group_id = id;
    mod.buckets = std::move(buckets);
    return apply_group_mod(table, mod, now_ns);
  }
  if (gm.command != GroupModCommand::kAdd && gm.command != GroupModCommand::kModify)
    return unexpected(gm_error(GroupModFailedCode::kBadCommand,
                               fmt::format("unknown group-mod command {}", uint16_t(gm.command))));
  if (id > of::group::kMax)
    return unexpected(
        gm_error(GroupModFailedCode::kInvalidGroup, fmt::format("group id 0x{:x} is reserved", id)));
  const bool exists = table.count(id) != 0;
  if (gm.command == GroupModCommand::kAdd && exists)
    return unexpected(gm_error(GroupModFailedCode::kGroupExists, fmt::format("group {} already exists", id)));
  if (gm.command == GroupModCommand::kModify && !exists)
    return unexpected(
        gm_error(GroupModFailedCode::kUnknownGroup, fmt::format("group {} does not exist", id)));
  if (uint8_t(gm.type) > uint8_t(of::GroupType::kFastFailover))
    return unexpected(
        gm_error(GroupModFailedCode::kBadType, fmt::format("unknown group type {}", uint8_t(gm.type))));
  if (gm.type == of::GroupType::kIndirect && gm.buckets.size() != 1)
    return unexpected(
        gm_error(GroupModFailedCode::kInvalidGroup,
                 fmt::format("indirect group needs exactly one bucket, got {}", gm.buckets.size())));
  uint32_t total_weight = 0;
  for (const of::Bucket& b : gm.buckets) {
    if (gm.type != of::GroupType::kSelect && b.weight != 0)
      return unexpected(
          gm_error(GroupModFailedCode::kWeightUnsupported, "bucket weight is only for select groups"));
    total_weight += b.weight;
    if (gm.type == of::GroupType::kFastFailover && b.watch_port == of::port::kAny &&
        b.watch_group == of::group::kAny)
      return unexpected(
          gm_error(GroupModFailedCode::kBadWatch, "fast-failover bucket needs watch_port or watch_group"));
    if (b.watch_group != of::group::kAny && !table.count(b.watch_group))
      return unexpected(gm_error(GroupModFailedCode::kBadWatch,
                                 fmt::format("watch_group {} does not exist", b.watch_group)));
    if (b.watch_port != of::port::kAny && (b.watch_port == 0 || b.watch_port > of::port::kMax))
      return unexpected(
          gm_error(GroupModFailedCode::kBadWatch, fmt::format("bad watch_port 0x{:x}", b.watch_port)));
    ValidationContext vc;
    vc.groups = &table;
    vc.in_group = true;
    FLOWLAB_TRY(validate_actions(b.actions, vc));
    for (const of::Action& a : b.actions) {
      if (a.type != of::ActionType::kGroup) continue;
      if (a.group_id == id || group_reaches(table, a.group_id, id))
        return unexpected(
            gm_error(GroupModFailedCode::kLoop,
                     fmt::format("group {} would forward to itself through group {}", id, a.group_id)));
    }
  }
  auto g = std::make_shared<Group>();
  g->id = id;
  g->type = gm.type;
  g->buckets = gm.buckets;
  // Bucket ids (OF1.5): kept as given, a bucket without one numbered by its place; unique.
  for (size_t i = 0; i < g->buckets.size(); ++i) {
    of::Bucket& b = g->buckets[i];
    if (!b.bucket_id) b.bucket_id = uint32_t(i);
    for (size_t j = 0; j < i; ++j)
      if (g->buckets[j].bucket_id == b.bucket_id)
        return unexpected(gm_error(GroupModFailedCode::kBucketExists,
                                   fmt::format("bucket id {} appears twice in group {}", *b.bucket_id, id)));
  }
  g->total_weight = total_weight;
  g->created_ns = exists ? table[id]->created_ns : now_ns;
  g->counters = std::make_shared<GroupCounters>(gm.buckets.size());
  table[id] = std::move(g);
  return {};
}

}  // namespace flowlab::dp

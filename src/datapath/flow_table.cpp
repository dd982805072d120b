// Flow-mod (add, modify, modify-strict, delete, delete-strict), filters,
// overlap check and timeouts, on the agent's master copy of the flow tables.
// The caller holds DatapathImpl::mu and publishes afterwards.
#include <fmt/format.h>

#include <algorithm>

#include "datapath/datapath_impl.h"
#include "datapath/validate.h"

namespace flowlab::dp {
namespace {

using of::FlowModCommand;
using of::FlowModFailedCode;

bool cookie_ok(const FlowEntry& e, uint64_t cookie, uint64_t mask) {
  return (e.cookie & mask) == (cookie & mask);
}

}  // namespace

std::shared_ptr<FlowEntry> make_entry(const of::FlowMod& fm, const of::Match& match,
                                      SharedInstructions instructions, StoredKey key, uint64_t now_ns) {
  auto e = std::make_shared<FlowEntry>();
  e->table_id = fm.table_id;
  e->priority = fm.priority;
  e->cookie = fm.cookie;
  e->flags = fm.flags;
  e->idle_timeout = fm.idle_timeout;
  e->importance = fm.importance;
  e->hard_timeout = fm.hard_timeout;
  e->created_ns = now_ns;
  e->match = match;
  e->key = std::move(key);
  e->insts = std::move(instructions);
  e->counters = std::make_shared<FlowCounters>();
  e->counters->last_used_ns.store(now_ns, std::memory_order_relaxed);
  e->decode();
  return e;
}

void fill_duration(uint64_t created_ns, uint64_t now_ns, uint32_t& sec, uint32_t& nsec) {
  uint64_t d = now_ns > created_ns ? now_ns - created_ns : 0;
  sec = uint32_t(d / 1'000'000'000);
  nsec = uint32_t(d % 1'000'000'000);
}

of::FlowRemoved make_flow_removed(const FlowEntry& e, of::FlowRemovedReason reason, uint64_t now_ns) {
  of::FlowRemoved fr;
  fr.cookie = e.cookie;
  fr.priority = e.priority;
  fr.reason = uint8_t(reason);
  fr.table_id = e.table_id;
  fill_duration(e.created_ns, now_ns, fr.duration_sec, fr.duration_nsec);
  fr.has_idle_time = true;
  fill_duration(std::max(e.created_ns, e.counters->last_used_ns.load(std::memory_order_relaxed)), now_ns,
                fr.idle_sec, fr.idle_nsec);
  fr.idle_timeout = e.idle_timeout;
  fr.hard_timeout = e.hard_timeout;
  fr.packet_count = e.counters->packets.load(std::memory_order_relaxed);
  fr.byte_count = e.counters->bytes.load(std::memory_order_relaxed);
  fr.match = e.match.unpack();
  return fr;
}

void DatapathImpl::for_each_filtered(uint8_t table_id, const MaskedKey& filter, uint64_t cookie,
                                     uint64_t cookie_mask, uint32_t out_port, uint32_t out_group,
                                     const std::function<void(const FlowEntry&)>& fn) const {
  for (size_t t = 0; t < tables.size(); ++t) {
    if (table_id != of::table::kAll && t != table_id) continue;
    for (const auto& e : tables[t].flows) {
      if (!e->key.covered_by(filter) || !cookie_ok(*e, cookie, cookie_mask)) continue;
      if (out_port != of::port::kAny && !e->outputs_to(out_port)) continue;
      if (out_group != of::group::kAny && !e->uses_group(out_group)) continue;
      fn(*e);
    }
  }
}

std::vector<of::FlowRemoved> DatapathImpl::remove_flows_if(const std::function<bool(const FlowEntry&)>& pred,
                                                           of::FlowRemovedReason reason, uint64_t now_ns) {
  std::vector<of::FlowRemoved> out;
  for (size_t t = 0; t < tables.size(); ++t) {
    FlowSet& fs = tables[t].flows;
    for (auto it = fs.begin(); it != fs.end();) {
      if (!pred(**it)) {
        ++it;
        continue;
      }
      if ((*it)->flags & of::flow_mod_flags::kSendFlowRem)
        out.push_back(make_flow_removed(**it, reason, now_ns));
      note_change(of::FlowUpdateEvent::kRemoved, uint8_t(reason), *it);
      it = erase_flow(uint8_t(t), it);
    }
  }
  return out;
}

std::vector<of::FlowRemoved> DatapathImpl::expire_locked(uint64_t now_ns) {
  std::vector<of::FlowRemoved> out;
  for (size_t t = 0; t < tables.size(); ++t) {
    if (tables[t].timed == 0) continue;
    FlowSet& fs = tables[t].flows;
    for (auto it = fs.begin(); it != fs.end();) {
      const FlowEntry& e = **it;
      const uint64_t last = std::max(e.created_ns, e.counters->last_used_ns.load(std::memory_order_relaxed));
      bool hard = e.hard_timeout && now_ns >= e.created_ns + uint64_t(e.hard_timeout) * 1'000'000'000;
      bool idle = e.idle_timeout && now_ns >= last + uint64_t(e.idle_timeout) * 1'000'000'000;
      if (!hard && !idle) {
        ++it;
        continue;
      }
      const auto reason = hard ? of::FlowRemovedReason::kHardTimeout : of::FlowRemovedReason::kIdleTimeout;
      if (e.flags & of::flow_mod_flags::kSendFlowRem) out.push_back(make_flow_removed(e, reason, now_ns));
      note_change(of::FlowUpdateEvent::kRemoved, uint8_t(reason), *it);
      it = erase_flow(uint8_t(t), it);
    }
  }
  return out;
}

Result<std::vector<of::FlowRemoved>, of::OfError> DatapathImpl::apply_flow_mod(const of::FlowMod& fm,
                                                                               uint64_t now_ns) {
  const uint8_t n = uint8_t(tables.size());
  const auto cmd = fm.command;
  if (uint8_t(cmd) > uint8_t(FlowModCommand::kDeleteStrict))
    return unexpected(of::OfError::make(FlowModFailedCode::kBadCommand,
                                        fmt::format("unknown flow-mod command {}", uint8_t(cmd))));
  const bool is_delete = cmd == FlowModCommand::kDelete || cmd == FlowModCommand::kDeleteStrict;
  if (!(is_delete && fm.table_id == of::table::kAll) && fm.table_id >= n)
    return unexpected(
        of::OfError::make(FlowModFailedCode::kBadTableId,
                          fmt::format("table {} does not exist (tables 0..{})", fm.table_id, n - 1)));
  const of::Match of10_match = cfg.of10 ? of10_effective_match(fm.match) : of::Match{};
  const of::Match& match = cfg.of10 ? of10_match : fm.match;
  FLOWLAB_ASSIGN_OR_RETURN(MaskedKey mk, compile_match(match));
  const bool strict = cmd == FlowModCommand::kModifyStrict || cmd == FlowModCommand::kDeleteStrict;
  auto selected = [&](const FlowEntry& e) {
    if (strict ? !(e.priority == fm.priority && e.key == mk) : !e.key.covered_by(mk)) return false;
    return cookie_ok(e, fm.cookie, fm.cookie_mask);
  };

  if (is_delete) {
    auto pred = [&](const FlowEntry& e) {
      if (!selected(e)) return false;
      if (fm.out_port != of::port::kAny && !e.outputs_to(fm.out_port)) return false;
      if (fm.out_group != of::group::kAny && !e.uses_group(fm.out_group)) return false;
      return true;
    };
    std::vector<of::FlowRemoved> out;
    for (uint8_t t = 0; t < n; ++t) {
      if (fm.table_id != of::table::kAll && t != fm.table_id) continue;
      FlowSet& fs = tables[t].flows;
      if (strict) {  // at most one flow has this priority and match: found by the index
        auto it = fs.find(fm.priority, mk);
        if (it == fs.end() || !pred(**it)) continue;
        if ((*it)->flags & of::flow_mod_flags::kSendFlowRem)
          out.push_back(make_flow_removed(**it, of::FlowRemovedReason::kDelete, now_ns));
        note_change(of::FlowUpdateEvent::kRemoved, uint8_t(of::FlowRemovedReason::kDelete), *it);
        erase_flow(t, it);
        continue;
      }
      for (auto it = fs.begin(); it != fs.end();) {
        if (!pred(**it)) {
          ++it;
          continue;
        }
        if ((*it)->flags & of::flow_mod_flags::kSendFlowRem)
          out.push_back(make_flow_removed(**it, of::FlowRemovedReason::kDelete, now_ns));
        note_change(of::FlowUpdateEvent::kRemoved, uint8_t(of::FlowRemovedReason::kDelete), *it);
        it = erase_flow(t, it);
      }
    }
    return out;
  }

  ValidationContext vc;
  vc.n_tables = n;
  vc.table_id = fm.table_id;
  vc.groups = &groups;
  vc.meters = &meters;
  vc.match = &match;
  vc.of10 = cfg.of10;
  vc.first_egress = first_egress;
  FLOWLAB_TRY(validate_instructions(fm.instructions, vc));
  FlowSet& table = tables[fm.table_id].flows;

  if (cmd == FlowModCommand::kModify || cmd == FlowModCommand::kModifyStrict) {
    bool any = false;
    auto modify = [&](FlowSet::iterator it) {
      const FlowEntry& e = **it;
      any = true;
      std::shared_ptr<FlowCounters> counters = e.counters;
      if (fm.flags & of::flow_mod_flags::kResetCounts) {
        counters = std::make_shared<FlowCounters>();
        counters->last_used_ns.store(now_ns, std::memory_order_relaxed);
      }
      auto modified = e.copy_with(instruction_pool.intern(fm.instructions), std::move(counters));
      note_change(of::FlowUpdateEvent::kModified, 0, modified);
      replace_flow(fm.table_id, it, std::move(modified));
    };
    if (strict) {
      auto it = table.find(fm.priority, mk);
      if (it != table.end() && selected(**it)) modify(it);
    } else {
      for (auto it = table.begin(); it != table.end(); ++it)
        if (selected(**it)) modify(it);
    }
    if (any || !cfg.of10) return std::vector<of::FlowRemoved>{};
    // OF1.0: modify of nothing behaves like add.
  }

  // Add.
  auto ne =
      make_entry(fm, fm.match, instruction_pool.intern(fm.instructions), stored_key(fm.table_id, mk), now_ns);
  const FlowHashes h = FlowHashes::of(*ne);
  return add_entry(std::move(ne), fm.flags, h, now_ns);
}

Result<std::vector<of::FlowRemoved>, of::OfError> DatapathImpl::add_entry(std::shared_ptr<FlowEntry> ne,
                                                                          uint16_t flags, const FlowHashes& h,
                                                                          uint64_t now_ns) {
  const uint8_t t = ne->table_id;
  FlowSet& table = tables[t].flows;
  if (flags & of::flow_mod_flags::kCheckOverlap) {
    const MaskedKey mk = ne->key.masked();
    for (const auto& e : table)
      if (e->priority == ne->priority && e->key.overlaps(mk))
        return unexpected(of::OfError::make(
            FlowModFailedCode::kOverlap,
            fmt::format("flow overlaps an existing flow at priority {} in table {}", ne->priority, t)));
  }
  if (auto it = table.find(ne->priority, ne->key.value, *ne->key.mask, h.set); it != table.end()) {
    // OF1.3 re-add of an identical flow: a new entry (duration restarts), its
    // counters carried over unless RESET_COUNTS (OF1.0: cleared). They are
    // shared, not copied: hits still credited to the old entry's counters (a
    // batch in flight on the old snapshot, kernel cache entries folded
    // later) land in the flow that replaced it.
    if (!cfg.of10 && !(flags & of::flow_mod_flags::kResetCounts)) ne->counters = (*it)->counters;
    note_change(of::FlowUpdateEvent::kModified, 0, ne);
    replace_flow(t, it, std::move(ne), h);
    return std::vector<of::FlowRemoved>{};
  }
  std::vector<of::FlowRemoved> removed;
  if (table.size() >= cfg.table_size) {
    if (!(tables[t].config & of::table_config::kEviction))
      return unexpected(of::OfError::make(FlowModFailedCode::kTableFull,
                                          fmt::format("table {} is full ({} flows)", t, table.size())));
    auto victim = evict_one(t, now_ns);
    if (victim && (victim->flags & of::flow_mod_flags::kSendFlowRem))
      removed.push_back(make_flow_removed(*victim, of::FlowRemovedReason::kEviction, now_ns));
    if (victim) note_change(of::FlowUpdateEvent::kRemoved, uint8_t(of::FlowRemovedReason::kEviction), victim);
  }
  note_change(of::FlowUpdateEvent::kAdded, 0, ne);
  add_flow(t, std::move(ne), h);
  return removed;
}

}  // namespace flowlab::dp

// Atomic commit of many flow-mods (a bundle): all applied as one published
// version, or none.
//
// Idea. The flow-mods are applied one by one to the agent's master tables, as
// single flow-mods are, while DatapathImpl::journal records each change (flow
// added, replaced, erased). Nothing is published meanwhile (the caller holds
// the datapath mutex throughout, and apply_flow_mod never publishes), so
// forwarding threads keep seeing the version before the commit. When a
// flow-mod fails, the journal is undone newest first and the tables are as
// they were; on success the journal is dropped and one version is published.
//
// Undo puts back equal flows, not the same objects: the classifier still
// holds the replaced or erased entry (marked removed at the unpublished
// version), so a clone sharing its counters goes in instead. A flow's place
// in dump order is kept (an erased flow goes back before the flow that
// followed it). Rules added and removed at the same unpublished version were
// never visible to any reader and are reclaimed as usual.
//
// Prepared flow-mods (a bundle's adds, checked and built as they arrive,
// PreparedFlowMod in datapath.h) leave the commit only what depends on the
// tables' state: the groups and meters an entry names, the overlap check, and
// finding the flow it replaces; the entry itself was built at add time, so a
// big bundle's commit is mostly hash-table work.
//
// Costs: the journal is ~40 bytes per change; undo is O(changes).
#include <fmt/format.h>

#include "datapath/datapath_impl.h"
#include "datapath/validate.h"

namespace flowlab::dp {
namespace {

std::shared_ptr<FlowEntry> clone(const FlowEntry& e) { return e.copy_with(e.insts, e.counters); }

bool names_groups_or_meters(const FlowEntry& e) {
  if (e.meter_id != 0) return true;
  for (const of::Instruction& in : e.instructions())
    for (const of::Action& a : in.actions)
      if (a.type == of::ActionType::kGroup) return true;
  return false;
}

}  // namespace

PreparedFlowMod::PreparedFlowMod() = default;
PreparedFlowMod::~PreparedFlowMod() = default;
PreparedFlowMod::PreparedFlowMod(PreparedFlowMod&&) noexcept = default;
PreparedFlowMod& PreparedFlowMod::operator=(PreparedFlowMod&&) noexcept = default;

PreparedFlowMod DatapathImpl::prepare(of::FlowMod fm) {
  PreparedFlowMod p;
  const uint8_t n = uint8_t(tables.size());
  auto fail = [&](of::OfError e) {
    p.error_ = std::make_unique<of::OfError>(std::move(e));
    return std::move(p);
  };
  if (fm.command != of::FlowModCommand::kAdd || cfg.of10) {  // applied whole at commit
    p.fm_ = std::make_unique<of::FlowMod>(std::move(fm));
    return p;
  }
  // The checks apply_flow_mod makes, in its order, but for groups and meters.
  if (fm.table_id >= n)
    return fail(of::OfError::make(of::FlowModFailedCode::kBadTableId,
                                  fmt::format("table {} does not exist (tables 0..{})", fm.table_id, n - 1)));
  auto mk = compile_match(fm.match);
  if (!mk.ok()) return fail(std::move(mk.error()));
  ValidationContext vc;
  vc.n_tables = n;
  vc.table_id = fm.table_id;
  vc.match = &fm.match;
  if (auto st = validate_instructions(fm.instructions, vc); !st.ok()) return fail(st.error());
  p.entry_ = make_entry(fm, fm.match, instruction_pool.intern(std::move(fm.instructions)),
                        stored_key(fm.table_id, *mk), 0);
  p.names_groups_or_meters_ = names_groups_or_meters(*p.entry_);
  const FlowHashes h = FlowHashes::of(*p.entry_);
  p.set_hash_ = h.set;
  p.cls_hash_ = h.cls;
  p.mask_ = p.entry_->key.mask.get();
  p.flags_ = fm.flags;
  p.table_ = fm.table_id;
  return p;
}

Result<std::vector<of::FlowRemoved>, of::OfError> DatapathImpl::apply_prepared(PreparedFlowMod& p,
                                                                               uint64_t now_ns) {
  if (p.error_) return unexpected(std::move(*p.error_));
  if (!p.entry_) return apply_flow_mod(*p.fm_, now_ns);
  FlowEntry& e = *p.entry_;
  if (p.names_groups_or_meters_ || first_egress) {  // prepare() checked neither, nor the egress rules
    ValidationContext vc;
    vc.n_tables = uint8_t(tables.size());
    vc.table_id = e.table_id;
    vc.groups = &groups;
    vc.meters = &meters;
    vc.first_egress = first_egress;
    const of::Match match = e.match.unpack();
    vc.match = &match;
    FLOWLAB_TRY(validate_instructions(e.instructions(), vc));
  }
  e.created_ns = now_ns;  // its counters' last use stays 0: idle time counts from here
  return add_entry(std::move(p.entry_), p.flags_, FlowHashes{p.set_hash_, p.cls_hash_}, now_ns);
}

void DatapathImpl::prefetch(const PreparedFlowMod& p, int stage) const {
  if (!p.entry_) return;
  const TableState& ts = tables[p.table_];
  const auto* mask = static_cast<const FlowKey*>(p.mask_);
  ts.cls.prefetch(p.entry_.get(), mask, p.cls_hash_, stage);
  if (stage != 0) return;
  ts.flows.prefetch(p.set_hash_);
  const auto* e = reinterpret_cast<const char*>(p.entry_.get());
  for (size_t off = 0; off < sizeof(FlowEntry); off += 64) __builtin_prefetch(e + off);
}

void DatapathImpl::undo(std::vector<UndoStep>& steps) {
  for (auto s = steps.rbegin(); s != steps.rend(); ++s) {
    FlowSet& fs = tables[s->table].flows;
    const FlowEntry& e = *s->entry;
    switch (s->kind) {
      case UndoStep::Kind::kAdded:
        if (auto it = fs.find(e.priority, e.key); it != fs.end()) erase_flow(s->table, it);
        break;
      case UndoStep::Kind::kReplaced:
        if (auto it = fs.find(e.priority, e.key); it != fs.end()) replace_flow(s->table, it, clone(e));
        break;
      case UndoStep::Kind::kErased: {
        auto before = s->next ? fs.find(s->next->priority, s->next->key) : fs.end();
        insert_flow(s->table, before, clone(e));
        break;
      }
    }
  }
  steps.clear();
}

namespace {

// How far ahead of the add it applies a commit prefetches. An add touches
// ~4 random cache lines: its entry, its slots in the FlowSet index and in the
// classifier's owner map and subtable, and the rule the subtable slot may
// already hold, which can only be found once that slot is loaded: the slots
// go first (stage 0), that rule later (stage 1).
constexpr size_t kPrefetchSlots = 16;
constexpr size_t kPrefetchRules = 8;

// Applies next(0) .. next(n-1) (each a PreparedFlowMod&) as one version, or
// none. peek(j): the flow-mod j if it is known already (to prefetch), or nullptr.
template <typename Next, typename Peek>
Result<std::vector<of::FlowRemoved>, FlowModsFailure> commit_all(DatapathImpl& d, size_t n, Next next,
                                                                 Peek peek, uint64_t now_ns) {
  d.sync_stats();  // flow-removed messages of deletes count the kernel fast path's hits
  std::lock_guard lk(d.mu);
  std::vector<DatapathImpl::UndoStep> journal;
  journal.reserve(n);
  d.journal = &journal;
  const size_t changes_before = d.changes.size();  // a failed commit's records go with its undo
  std::vector<of::FlowRemoved> removed;
  for (size_t i = 0; i < n; ++i) {
    if (const PreparedFlowMod* ahead = peek(i + kPrefetchSlots)) d.prefetch(*ahead, 0);
    if (const PreparedFlowMod* ahead = peek(i + kPrefetchRules)) d.prefetch(*ahead, 1);
    auto r = d.apply_prepared(next(i), now_ns);
    if (!r.ok()) {
      d.journal = nullptr;
      d.undo(journal);
      d.changes.resize(changes_before);
      d.maybe_publish();  // no visible change; lets the classifier reclaim what the undo left
      return unexpected(FlowModsFailure{i, std::move(r.error())});
    }
    for (auto& fr : *r) removed.push_back(std::move(fr));
  }
  d.journal = nullptr;
  if (n > 0) d.maybe_publish();
  return removed;
}

}  // namespace

PreparedFlowMod Datapath::prepare_flow_mod(of::FlowMod fm) {
  std::lock_guard lk(impl_->mu);  // the mask and instruction pools
  return impl_->prepare(std::move(fm));
}

Result<std::vector<of::FlowRemoved>, FlowModsFailure> Datapath::commit_flow_mods(
    std::vector<PreparedFlowMod>& mods, uint64_t now_ns) {
  return commit_all(
      *impl_, mods.size(), [&](size_t i) -> PreparedFlowMod& { return mods[i]; },
      [&](size_t j) { return j < mods.size() ? &mods[j] : nullptr; }, now_ns);
}

Result<std::vector<of::FlowRemoved>, FlowModsFailure> Datapath::commit_flow_mods(size_t n,
                                                                                 const FlowModSource& at,
                                                                                 uint64_t now_ns) {
  DatapathImpl& d = *impl_;
  PreparedFlowMod p;
  return commit_all(
      d, n,
      [&](size_t i) -> PreparedFlowMod& {
        auto fm = at(i);  // under the lock: prepare's mask pool is the agent's
        if (fm.ok()) {
          p = d.prepare(std::move(*fm));
        } else {
          p = PreparedFlowMod();
          p.error_ = std::make_unique<of::OfError>(std::move(fm.error()));
        }
        return p;
      },
      [](size_t) -> const PreparedFlowMod* { return nullptr; }, now_ns);
}

}  // namespace flowlab::dp

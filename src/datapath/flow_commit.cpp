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
// Costs: the journal is ~40 bytes per change; undo is O(changes).
#include "datapath/datapath_impl.h"

namespace flowlab::dp {
namespace {

std::shared_ptr<FlowEntry> clone(const FlowEntry& e) { return e.copy_with(e.instructions, e.counters); }

}  // namespace

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

Result<std::vector<of::FlowRemoved>, FlowModsFailure> Datapath::commit_flow_mods(size_t n,
                                                                                 const FlowModSource& at,
                                                                                 uint64_t now_ns) {
  DatapathImpl& d = *impl_;
  d.sync_stats();  // flow-removed messages of deletes count the kernel fast path's hits
  std::lock_guard lk(d.mu);
  std::vector<DatapathImpl::UndoStep> journal;
  d.journal = &journal;
  std::vector<of::FlowRemoved> removed;
  for (size_t i = 0; i < n; ++i) {
    auto fm = at(i);
    auto r = fm.ok() ? d.apply_flow_mod(*fm, now_ns)
                     : Result<std::vector<of::FlowRemoved>, of::OfError>(unexpected(std::move(fm.error())));
    if (!r.ok()) {
      d.journal = nullptr;
      d.undo(journal);
      d.maybe_publish();  // no visible change; lets the classifier reclaim what the undo left
      return unexpected(FlowModsFailure{i, std::move(r.error())});
    }
    for (auto& fr : *r) removed.push_back(std::move(fr));
  }
  d.journal = nullptr;
  if (n > 0) d.maybe_publish();
  return removed;
}

}  // namespace flowlab::dp

// Flow monitoring: selectors, updates, and the datapath's change records
// (design in flow_monitor.h).
#include "datapath/flow_monitor.h"

#include "datapath/datapath.h"
#include "datapath/datapath_impl.h"
#include "datapath/flow_entry.h"

namespace flowlab::dp {

Result<FlowSelector, of::OfError> FlowSelector::compile(const of::FlowMonitorRequest& r) {
  FlowSelector s;
  FLOWLAB_ASSIGN_OR_RETURN(s.key_, compile_match(r.match));
  s.table_id_ = r.table_id;
  s.out_port_ = r.out_port;
  s.out_group_ = r.out_group;
  return s;
}

bool FlowSelector::selects(const FlowEntry& e) const {
  if (table_id_ != of::table::kAll && e.table_id != table_id_) return false;
  if (out_port_ != of::port::kAny && !e.outputs_to(out_port_)) return false;
  if (out_group_ != of::group::kAny && !e.uses_group(out_group_)) return false;
  return e.key.covered_by(key_);
}

of::FlowUpdate flow_update(const FlowEntry& e, of::FlowUpdateEvent event, uint8_t reason, bool instructions) {
  of::FlowUpdate u;
  u.event = event;
  u.table_id = e.table_id;
  u.reason = reason;
  u.idle_timeout = e.idle_timeout;
  u.hard_timeout = e.hard_timeout;
  u.priority = e.priority;
  u.cookie = e.cookie;
  u.match = e.match.unpack();
  if (instructions) u.instructions = e.instructions();
  return u;
}

void Datapath::set_record_flow_changes(bool on) {
  std::lock_guard lk(impl_->mu);
  impl_->record_changes = on;
  if (!on) impl_->changes.clear();
}

std::vector<FlowChange> Datapath::take_flow_changes() {
  std::lock_guard lk(impl_->mu);
  return std::exchange(impl_->changes, {});
}

std::vector<of::FlowUpdate> Datapath::monitor_initial(const FlowSelector& sel, bool instructions) const {
  std::lock_guard lk(impl_->mu);
  std::vector<of::FlowUpdate> out;
  for (const TableState& t : impl_->tables)
    for (const auto& e : t.flows)
      if (sel.selects(*e)) out.push_back(flow_update(*e, of::FlowUpdateEvent::kInitial, 0, instructions));
  return out;
}

}  // namespace flowlab::dp

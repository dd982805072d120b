// Datapath: the agent-facing calls (locking, publication) and forwarding contexts.
// Design of version publication: datapath_impl.h.
#include "datapath/datapath.h"

#include "datapath/datapath_impl.h"
#include "datapath/validate.h"

namespace flowlab::dp {

of::Match PacketInInfo::match() const {
  of::Match m;
  m.add(of::OxmField::basic(of::OxmId::kInPort, in_port));
  if (metadata) m.add(of::OxmField::basic(of::OxmId::kMetadata, metadata));
  if (tunnel_id) m.add(of::OxmField::basic(of::OxmId::kTunnelId, tunnel_id));
  return m;
}

void CounterTotals::add(const CounterShard& s) {
  if (lookups.size() < s.lookups.size()) {
    lookups.resize(s.lookups.size());
    matches.resize(s.matches.size());
  }
  for (size_t i = 0; i < s.lookups.size(); ++i) {
    lookups[i] += s.lookups[i].load(std::memory_order_relaxed);
    matches[i] += s.matches[i].load(std::memory_order_relaxed);
  }
  auto ld = [](const std::atomic<uint64_t>& a) { return a.load(std::memory_order_relaxed); };
  dp.packets += ld(s.packets);
  dp.table_miss_drops += ld(s.table_miss_drops);
  dp.to_controller += ld(s.to_controller);
  dp.invalid_ttl += ld(s.invalid_ttl);
  dp.meter_drops += ld(s.meter_drops);
  dp.action_drops += ld(s.action_drops);
  dp.cache_hits += ld(s.cache_hits);
  dp.cache_misses += ld(s.cache_misses);
  dp.frag_drops += ld(s.frag_drops);
}

ForwardingState::ForwardingState(DatapathImpl& d, OutputSink& o, ControllerSink& c)
    : dp(d), out(o), ctl(c), cache(d.cfg.flow_cache_entries), counters(d.cfg.n_tables), clones(8) {
  port_list.reserve(64);
}

DatapathImpl::DatapathImpl(DatapathConfig c, const PortView* p) : cfg(c), ports(p) {
  if (cfg.of10) cfg.n_tables = 1;
  if (cfg.n_tables == 0) cfg.n_tables = 1;
  if (cfg.n_tables > of::table::kMax) cfg.n_tables = of::table::kMax;
  if (cfg.table_size == 0) cfg.table_size = 1;
  tables = std::vector<TableState>(cfg.n_tables);
  retired.lookups.assign(cfg.n_tables, 0);
  retired.matches.assign(cfg.n_tables, 0);
  std::lock_guard lk(mu);
  publish();
}

void DatapathImpl::publish() {
  auto s = std::make_shared<Snapshot>();
  s->version = next_version();
  s->tables.resize(tables.size());
  for (size_t t = 0; t < tables.size(); ++t) {
    if (tables[t].dirty || !last) {
      auto ts = std::make_shared<TableSnapshot>();
      ts->view = tables[t].cls.publish();
      s->tables[t] = std::move(ts);
      tables[t].dirty = false;
    } else {
      s->tables[t] = last->tables[t];
    }
  }
  s->groups = (groups_dirty || !last) ? std::make_shared<const GroupTable>(groups) : last->groups;
  s->meters = (meters_dirty || !last) ? std::make_shared<const MeterTable>(meters) : last->meters;
  s->first_egress = first_egress;
  groups_dirty = meters_dirty = false;
  last = s;
  current.store(s, std::memory_order_release);
  version.store(s->version, std::memory_order_release);
  if (publish_hook) publish_hook(s->version);
  reclaim();
}

uint64_t DatapathImpl::oldest_reader() const {
  std::lock_guard lk(reg_mu);
  uint64_t oldest = Classifier::kNever;
  for (const ForwardingState* st : states) {
    const uint64_t v = st->active.load(std::memory_order_acquire);
    if (v && v < oldest) oldest = v;
  }
  return oldest;
}

void DatapathImpl::reclaim() {
  bool any = false;
  for (const TableState& t : tables) any = any || t.cls.has_garbage();
  if (!any) return;
  const uint64_t published = last->version;
  uint64_t oldest = oldest_reader();
  for (TableState& t : tables) t.cls.unlink_invisible(oldest, published);
  // Pairs with the fence after a reader's announcement: either we see it, or it sees the unlinks.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  oldest = oldest_reader();
  for (TableState& t : tables) t.cls.free_unreachable(oldest);
}

StoredKey DatapathImpl::stored_key(uint8_t t, const MaskedKey& mk) {
  TableState& ts = tables[t];
  if (ts.last_mask && *ts.last_mask == mk.mask)
    return StoredKey(mk.value, ts.last_mask);  // a run of one mask
  auto& m = ts.masks[mk.mask];
  if (!m) {
    m = std::make_shared<const FlowKey>(mk.mask);
    if (ts.masks.size() >= ts.masks_sweep_at) {
      // use_count() only falls behind our back (snapshots released by forwarding
      // threads); 1 means the pool holds the last reference and only we hand out new ones.
      for (auto it = ts.masks.begin(); it != ts.masks.end();)
        it = it->second.use_count() == 1 && it->first != mk.mask ? ts.masks.erase(it) : std::next(it);
      ts.masks_sweep_at = std::max<size_t>(64, ts.masks.size() * 2);
    }
  }
  ts.last_mask = m;
  return StoredKey(mk.value, m);  // erasing others leaves references to m valid
}

void DatapathImpl::add_flow(uint8_t t, FlowEntryPtr e, const FlowHashes& h) {
  insert_flow(t, tables[t].flows.end(), std::move(e), h);
}

void DatapathImpl::insert_flow(uint8_t t, FlowSet::iterator before, FlowEntryPtr e) {
  const FlowHashes h = FlowHashes::of(*e);
  insert_flow(t, before, std::move(e), h);
}

void DatapathImpl::insert_flow(uint8_t t, FlowSet::iterator before, FlowEntryPtr e, const FlowHashes& h) {
  TableState& ts = tables[t];
  if (e->idle_timeout || e->hard_timeout) ++ts.timed;
  ts.cls.insert(e, next_version(), h.cls);
  if (journal) journal->push_back({UndoStep::Kind::kAdded, t, e, nullptr});
  ts.flows.insert(before, std::move(e), h.set);
  ts.dirty = true;
}

void DatapathImpl::replace_flow(uint8_t t, FlowSet::iterator it, FlowEntryPtr e) {
  const FlowHashes h = FlowHashes::of(*e);
  replace_flow(t, it, std::move(e), h);
}

void DatapathImpl::replace_flow(uint8_t t, FlowSet::iterator it, FlowEntryPtr e, const FlowHashes& h) {
  TableState& ts = tables[t];
  const uint64_t v = next_version();
  if ((*it)->idle_timeout || (*it)->hard_timeout) --ts.timed;
  if (e->idle_timeout || e->hard_timeout) ++ts.timed;
  ts.cls.remove(**it, v);
  ts.cls.insert(e, v, h.cls);
  if (journal) journal->push_back({UndoStep::Kind::kReplaced, t, *it, nullptr});
  ts.flows.replace(it, std::move(e));
  ts.dirty = true;
}

FlowSet::iterator DatapathImpl::erase_flow(uint8_t t, FlowSet::iterator it) {
  TableState& ts = tables[t];
  if ((*it)->idle_timeout || (*it)->hard_timeout) --ts.timed;
  ts.cls.remove(**it, next_version());
  ts.dirty = true;
  if (journal)
    journal->push_back(
        {UndoStep::Kind::kErased, t, *it, std::next(it) == ts.flows.end() ? nullptr : *std::next(it)});
  return ts.flows.erase(it);
}

void DatapathImpl::maybe_publish() {
  if (defer_depth > 0) {
    publish_pending = true;
    return;
  }
  publish();
}

DeferredPublish::DeferredPublish(Datapath& dp) : dp_(dp) {
  std::lock_guard lk(dp_.impl().mu);
  ++dp_.impl().defer_depth;
}

DeferredPublish::~DeferredPublish() {
  DatapathImpl& d = dp_.impl();
  std::lock_guard lk(d.mu);
  if (--d.defer_depth == 0 && d.publish_pending) {
    d.publish_pending = false;
    d.publish();
  }
}

size_t DatapathImpl::flow_count_locked() const {
  size_t n = 0;
  for (const TableState& t : tables) n += t.flows.size();
  return n;
}

ForwardingContext::ForwardingContext(Datapath& dp, OutputSink& out, ControllerSink& ctl)
    : dp_(dp), state_(std::make_unique<ForwardingState>(dp.impl(), out, ctl)) {
  std::lock_guard lk(dp_.impl().reg_mu);
  dp_.impl().states.push_back(state_.get());
}

ForwardingContext::~ForwardingContext() {
  DatapathImpl& d = dp_.impl();
  std::lock_guard lk(d.reg_mu);
  d.retired.add(state_->counters);
  std::erase(d.states, state_.get());
}

Datapath::Datapath(DatapathConfig cfg, const PortView* ports)
    : impl_(std::make_unique<DatapathImpl>(cfg, ports)) {}
Datapath::~Datapath() = default;

Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::flow_mod(const of::FlowMod& fm, uint64_t now_ns) {
  // Flow-removed messages of a delete count the kernel fast path's hits too.
  if (fm.command == of::FlowModCommand::kDelete || fm.command == of::FlowModCommand::kDeleteStrict)
    impl_->sync_stats();
  std::lock_guard lk(impl_->mu);
  auto r = impl_->apply_flow_mod(fm, now_ns);
  if (r.ok()) impl_->maybe_publish();
  return r;
}

Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::group_mod(const of::GroupMod& gm,
                                                                      uint64_t now_ns) {
  DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  FLOWLAB_TRY(apply_group_mod(d.groups, gm, now_ns));
  d.groups_dirty = true;
  std::vector<of::FlowRemoved> removed;
  if (gm.command == of::GroupModCommand::kDelete) {
    const uint32_t id = gm.group_id;
    removed = d.remove_flows_if(
        [&](const FlowEntry& e) {
          for (const of::Instruction& in : e.instructions())
            for (const of::Action& a : in.actions)
              if (a.type == of::ActionType::kGroup && (id == of::group::kAll || a.group_id == id))
                return true;
          return false;
        },
        of::FlowRemovedReason::kGroupDelete, now_ns);
  }
  d.maybe_publish();
  return removed;
}

Result<std::vector<of::FlowRemoved>, of::OfError> Datapath::meter_mod(const of::MeterMod& mm,
                                                                      uint64_t now_ns) {
  DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  FLOWLAB_TRY(apply_meter_mod(d.meters, mm, now_ns));
  d.meters_dirty = true;
  std::vector<of::FlowRemoved> removed;
  if (mm.command == of::MeterModCommand::kDelete) {
    const uint32_t id = mm.meter_id;
    removed = d.remove_flows_if(
        [&](const FlowEntry& e) { return e.meter_id && (id == of::meter::kAll || e.meter_id == id); },
        of::FlowRemovedReason::kDelete, now_ns);
  }
  d.maybe_publish();
  return removed;
}

std::vector<of::FlowRemoved> Datapath::expire(uint64_t now_ns) {
  impl_->sync_stats();  // idle timeouts see kernel fast-path hits
  std::lock_guard lk(impl_->mu);
  auto out = impl_->expire_locked(now_ns);
  for (const TableState& t : impl_->tables)
    if (t.dirty) {
      impl_->maybe_publish();
      break;
    }
  impl_->reclaim();  // what the last publish could not free yet
  return out;
}

void Datapath::set_switch_config(const of::SwitchConfig& cfg) {
  impl_->config_flags.store(cfg.flags, std::memory_order_relaxed);
  impl_->miss_send_len.store(cfg.miss_send_len, std::memory_order_relaxed);
}

void Datapath::set_of10_controllers(bool connected) {
  impl_->of10_miss.store(connected, std::memory_order_relaxed);
}

of::SwitchConfig Datapath::switch_config() const {
  of::SwitchConfig c;
  c.flags = impl_->config_flags.load(std::memory_order_relaxed);
  c.miss_send_len = impl_->miss_send_len.load(std::memory_order_relaxed);
  return c;
}

OfStatus Datapath::validate_packet_out(const of::ActionList& actions) const {
  std::lock_guard lk(impl_->mu);
  ValidationContext vc;
  vc.n_tables = impl_->cfg.n_tables;
  vc.groups = &impl_->groups;
  vc.meters = &impl_->meters;
  vc.packet_out = true;
  return validate_actions(actions, vc);
}

uint8_t Datapath::n_tables() const { return impl_->cfg.n_tables; }

size_t Datapath::flow_count() const {
  std::lock_guard lk(impl_->mu);
  return impl_->flow_count_locked();
}

void Datapath::set_publish_hook(std::function<void(uint64_t)> fn) {
  std::lock_guard lk(impl_->mu);
  impl_->publish_hook = std::move(fn);
}

void Datapath::set_stats_sync_hook(std::function<void()> fn) { impl_->stats_sync_hook = std::move(fn); }

uint64_t Datapath::version() const { return impl_->version.load(std::memory_order_acquire); }

DatapathCounters Datapath::counters() const {
  std::lock_guard lk(impl_->reg_mu);
  CounterTotals t = impl_->retired;
  for (const ForwardingState* s : impl_->states) t.add(s->counters);
  return t.dp;
}

}  // namespace flowlab::dp

// OF1.4 table configuration: table-mod's config bits and vacancy thresholds,
// table descriptions, vacancy events (table status) and eviction from a full
// table. Vacancy is a table's free share, (size - flows) * 100 / size, with
// DatapathConfig::table_size as the size. Costs: vacancy_events is O(tables)
// when any table has vacancy events on, nothing otherwise; an eviction scans
// the full table once, O(flows).
#include <fmt/format.h>

#include <limits>

#include "datapath/datapath_impl.h"

namespace flowlab::dp {
namespace {

constexpr uint32_t kEvictionOrder = of::eviction_flag::kImportance | of::eviction_flag::kLifetime;

// Nanoseconds until the first of e's timeouts ends; no timeout: the maximum.
uint64_t remaining_life(const FlowEntry& e, uint64_t now_ns) {
  uint64_t left = std::numeric_limits<uint64_t>::max();
  auto until = [&](uint64_t end) { left = std::min(left, end > now_ns ? end - now_ns : 0); };
  if (e.hard_timeout) until(e.created_ns + uint64_t(e.hard_timeout) * 1'000'000'000);
  if (e.idle_timeout) {
    const uint64_t last = std::max(e.created_ns, e.counters->last_used_ns.load(std::memory_order_relaxed));
    until(last + uint64_t(e.idle_timeout) * 1'000'000'000);
  }
  return left;
}

}  // namespace

uint8_t DatapathImpl::vacancy_of(size_t t) const {
  const size_t used = std::min(tables[t].flows.size(), cfg.table_size);
  return uint8_t((cfg.table_size - used) * 100 / cfg.table_size);
}

of::TableDesc DatapathImpl::table_desc_locked(size_t t) const {
  of::TableDesc d;
  d.table_id = uint8_t(t);
  d.config = tables[t].config;
  d.eviction_flags = kEvictionOrder;
  d.vacancy = tables[t].vacancy;
  d.vacancy->vacancy = vacancy_of(t);
  return d;
}

std::shared_ptr<const FlowEntry> DatapathImpl::evict_one(uint8_t t, uint64_t now_ns) {
  FlowSet& fs = tables[t].flows;
  auto victim = fs.end();
  uint16_t best_importance = 0;
  uint64_t best_life = 0;
  for (auto it = fs.begin(); it != fs.end(); ++it) {
    const uint16_t imp = (*it)->importance;
    if (victim != fs.end() && imp > best_importance) continue;
    const uint64_t life = remaining_life(**it, now_ns);
    if (victim == fs.end() || imp < best_importance || life < best_life) {
      victim = it;
      best_importance = imp;
      best_life = life;
    }
  }
  if (victim == fs.end()) return nullptr;
  std::shared_ptr<const FlowEntry> e = *victim;
  erase_flow(t, victim);
  return e;
}

OfStatus Datapath::table_mod(const of::TableMod& tm) {
  DatapathImpl& d = *impl_;
  if (tm.table_id != of::table::kAll && tm.table_id >= d.cfg.n_tables)
    return unexpected(of::OfError::make(of::TableModFailedCode::kBadTable,
                                        fmt::format("table {} does not exist", tm.table_id)));
  const uint32_t bits = of::table_config::kEviction | of::table_config::kVacancyEvents;
  std::lock_guard lk(d.mu);
  for (size_t t = 0; t < d.tables.size(); ++t) {
    if (tm.table_id != of::table::kAll && t != tm.table_id) continue;
    TableState& ts = d.tables[t];
    const bool had_events = ts.config & of::table_config::kVacancyEvents;
    ts.config = tm.config & bits;
    if (tm.vacancy) ts.vacancy = of::TableVacancy{tm.vacancy->down, tm.vacancy->up, 0};
    const bool events = ts.config & of::table_config::kVacancyEvents;
    if (events && (!had_events || tm.vacancy))
      ts.vacancy_next = d.vacancy_of(t) < ts.vacancy.down ? of::TableStatusReason::kVacancyUp
                                                          : of::TableStatusReason::kVacancyDown;
    d.vacancy_tables += size_t(events) - size_t(had_events);
  }
  return {};
}

of::TableDescReply Datapath::table_desc() const {
  const DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  of::TableDescReply r;
  for (size_t t = 0; t < d.tables.size(); ++t) r.tables.push_back(d.table_desc_locked(t));
  return r;
}

std::vector<VacancyEvent> Datapath::vacancy_events() {
  DatapathImpl& d = *impl_;
  std::vector<VacancyEvent> out;
  std::lock_guard lk(d.mu);
  if (d.vacancy_tables == 0) return out;
  for (size_t t = 0; t < d.tables.size(); ++t) {
    TableState& ts = d.tables[t];
    if (!(ts.config & of::table_config::kVacancyEvents)) continue;
    const uint8_t v = d.vacancy_of(t);
    const bool down = ts.vacancy_next == of::TableStatusReason::kVacancyDown;
    if (down ? v >= ts.vacancy.down : v <= ts.vacancy.up) continue;
    out.push_back({ts.vacancy_next, d.table_desc_locked(t)});
    ts.vacancy_next = down ? of::TableStatusReason::kVacancyUp : of::TableStatusReason::kVacancyDown;
  }
  return out;
}

OfStatus Datapath::set_first_egress(uint8_t table) {
  DatapathImpl& d = *impl_;
  auto fail = [](of::TableFeaturesFailedCode c, std::string msg) {
    return unexpected(of::OfError::make(c, std::move(msg)));
  };
  const size_t n = d.cfg.n_tables;
  if (table >= n)
    return fail(of::TableFeaturesFailedCode::kBadTable, fmt::format("table {} does not exist", table));
  std::lock_guard lk(d.mu);
  if (table == d.first_egress) return {};
  // Tables [lo, hi) change sides (0 stands for "past the last table").
  const size_t old_end = d.first_egress ? d.first_egress : n, new_end = table ? table : n;
  for (size_t t = std::min(old_end, new_end); t < std::max(old_end, new_end); ++t)
    if (!d.tables[t].flows.empty())
      return fail(of::TableFeaturesFailedCode::kEperm,
                  fmt::format("table {} holds {} flows and would become an {} table: delete them first", t,
                              d.tables[t].flows.size(), t >= new_end ? "egress" : "ingress"));
  for (size_t t = 0; t < std::min(old_end, new_end); ++t)
    for (const auto& e : d.tables[t].flows)
      if (e->goto_table >= 0 && size_t(e->goto_table) >= new_end)
        return fail(of::TableFeaturesFailedCode::kEperm,
                    fmt::format("a flow of ingress table {} goes to table {}, which would be an egress table",
                                t, e->goto_table));
  d.first_egress = table;
  d.publish();
  return {};
}

uint8_t Datapath::first_egress() const {
  std::lock_guard lk(impl_->mu);
  return impl_->first_egress;
}

}  // namespace flowlab::dp

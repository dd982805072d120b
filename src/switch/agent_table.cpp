// Agent: OF1.4 table configuration. Table-mods, and the vacancy events the
// datapath reports after a change to the flows, sent as table status to the
// 1.4 peers whose async config asks for their reason. OF1.5: a table features
// request with a body sets the first egress table (its only part applied).
#include "core/log.h"
#include "openflow/of14/of14.h"
#include "switch/agent.h"

namespace flowlab::sw {

namespace {

of::OfError tf_error(of::TableFeaturesFailedCode c, std::string msg) {
  return of::OfError::make(c, "table_features: " + std::move(msg));
}

}  // namespace

// The first egress table a 1.5 table features request asks for. The
// request's entries carry OFPTFF_FIRST_EGRESS on at most one table (not table
// 0): with OFPTFC_REPLACE the pipeline is the request's, so no such table means
// no egress tables; with OFPTFC_MODIFY only the listed tables change (listing
// the current first egress table without the flag ends egress processing).
// The entries' other fields and properties are not applied: the tables keep
// their match fields, instructions and actions. ENABLE / DISABLE are
// OFPTFFC_BAD_COMMAND (every table is always enabled).
Result<uint8_t, of::OfError> Agent::requested_first_egress(const of::TableFeaturesRequest& req) const {
  using namespace of::table_features;
  const uint8_t cmd = req.tables.front().command;
  const uint8_t current = dp_.first_egress();
  std::optional<uint8_t> first;
  bool lists_current = false;
  for (const of::TableFeatures& t : req.tables) {
    if (t.command != cmd)
      return unexpected(tf_error(of::TableFeaturesFailedCode::kBadCommand,
                                 fmt::format("commands {} and {} in one request", cmd, t.command)));
    if (cmd != kReplace && cmd != kModify)
      return unexpected(tf_error(of::TableFeaturesFailedCode::kBadCommand,
                                 fmt::format("command {} (only OFPTFC_REPLACE and OFPTFC_MODIFY)", cmd)));
    if (t.table_id >= dp_.n_tables())
      return unexpected(tf_error(of::TableFeaturesFailedCode::kBadTable,
                                 fmt::format("table {} does not exist", t.table_id)));
    if (t.features & ~(kIngressTable | kEgressTable | kFirstEgress))
      return unexpected(
          tf_error(of::TableFeaturesFailedCode::kBadFeatures,
                   fmt::format("table {}: unknown features flags {:#x}", t.table_id, t.features)));
    lists_current |= current && t.table_id == current;
    if (!(t.features & kFirstEgress)) continue;
    if (t.table_id == 0)
      return unexpected(tf_error(of::TableFeaturesFailedCode::kBadFeatures,
                                 "table 0 cannot be the first egress table (the pipeline starts there)"));
    if (first)
      return unexpected(
          tf_error(of::TableFeaturesFailedCode::kBadFeatures,
                   fmt::format("tables {} and {} both marked first egress", *first, t.table_id)));
    first = t.table_id;
  }
  if (first) return *first;
  return cmd == kReplace || lists_current ? uint8_t(0) : current;
}

bool Agent::on_table_features(Peer& p, const of::TableFeaturesRequest& req, ByteSpan raw) {
  if (req.tables.empty()) return true;
  if (p.version < of::kOf15) {
    send_error(
        p,
        tf_error(of::TableFeaturesFailedCode::kEperm,
                 "changing table features is not supported (OpenFlow 1.5 sets the first egress table)"),
        raw);
    return false;
  }
  if (!writable(p, raw)) return false;
  auto first = requested_first_egress(req);
  if (!first.ok()) {
    send_error(p, first.error(), raw);
    return false;
  }
  if (auto st = dp_.set_first_egress(*first); !st.ok()) {
    send_error(p, st.error(), raw);
    return false;
  }
  log::info("switch", "{}: first egress table {}", p.name, *first ? fmt::format("{}", *first) : "none");
  return true;
}

void Agent::on_table_mod(Peer& p, const of::TableMod& tm, ByteSpan raw) {
  if (!writable(p, raw)) return;
  if (p.version < of::kOf14) {
    // OF1.3 has no table config left: only the table is checked, a 1.4 config stays.
    if (tm.table_id != of::table::kAll && tm.table_id >= dp_.n_tables())
      send_error(p,
                 of::OfError::make(of::TableModFailedCode::kBadTable,
                                   fmt::format("table {} does not exist", tm.table_id)),
                 raw);
    return;
  }
  if (auto st = dp_.table_mod(tm); !st.ok()) return send_error(p, st.error(), raw);
  log::info("switch", "{}: table {} config {:#x}", p.name, tm.table_id, tm.config);
  send_table_status();
}

void Agent::send_table_status() {
  for (dp::VacancyEvent& ev : dp_.vacancy_events()) {
    of::TableStatus ts;
    ts.reason = ev.reason;
    ts.table_id = ev.desc.table_id;
    ts.config = ev.desc.config;
    ts.properties = of::of14::table_desc_properties(ev.desc);
    for (auto& [id, p] : peers_) {
      if (p.version < of::kOf14 || !wants(p, 4, uint8_t(ev.reason))) continue;
      reply(p, 0, ts);
      ++counters_.table_status_sent;
    }
  }
}

}  // namespace flowlab::sw

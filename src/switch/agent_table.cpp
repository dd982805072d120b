// Agent: OF1.4 table configuration. Table-mods, and the vacancy events the
// datapath reports after a change to the flows, sent as table status to the
// 1.4 peers whose async config asks for their reason.
#include "core/log.h"
#include "openflow/of14/of14.h"
#include "switch/agent.h"

namespace flowlab::sw {

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

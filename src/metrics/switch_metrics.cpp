// Switch families (see switch_metrics.h).
#include "metrics/switch_metrics.h"

#include <fmt/format.h>

#include "core/clock.h"
#include "metrics/metrics_server.h"
#include "metrics/registry.h"
#include "openflow/text/flow_text.h"
#include "switch/agent.h"
#include "switch/kernel_datapath.h"
#include "switch/switch_ports.h"

namespace flowlab::metrics {

namespace {

Labels with(const Labels& base, Labels more) {
  Labels l = base;
  l.insert(l.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return l;
}

}  // namespace

void collect_switch_state(const sw::Switch::AgentState& st, size_t peers, std::vector<Family>& out) {
  const Labels dp{{"dp_id", fmt::format("{:#x}", st.opts.dpid)}, {"dp_name", st.opts.name}};
  const uint64_t now = monotonic_ns();

  // Ports, named as Gauge names them (of_port_*), counters as OpenFlow port stats give them.
  struct PortField {
    const char* name;
    const char* help;
    uint64_t of::PortStats::*field;
  };
  static constexpr PortField kPortFields[] = {
      {"of_port_rx_packets", "packets received on the port", &of::PortStats::rx_packets},
      {"of_port_tx_packets", "packets sent on the port", &of::PortStats::tx_packets},
      {"of_port_rx_bytes", "bytes received on the port", &of::PortStats::rx_bytes},
      {"of_port_tx_bytes", "bytes sent on the port", &of::PortStats::tx_bytes},
      {"of_port_rx_dropped", "received packets dropped (ring full, port config)", &of::PortStats::rx_dropped},
      {"of_port_tx_dropped", "packets not sent (ring full)", &of::PortStats::tx_dropped},
      {"of_port_rx_errors", "receive errors", &of::PortStats::rx_errors},
      {"of_port_tx_errors", "send errors", &of::PortStats::tx_errors},
  };
  std::vector<of::PortStats> stats;
  std::vector<Labels> port_labels;
  for (size_t i = 0; i < st.ports.size(); ++i) {
    const sw::SwitchPort& sp = st.ports.at(i);
    stats.push_back(st.ports.stats(sp, now));
    port_labels.push_back(
        with(dp, {{"port", std::string(sp.port->name())}, {"port_no", of::format_port(sp.port_no)}}));
  }
  for (const PortField& f : kPortFields) {
    Family fam = counter(f.name, f.help);
    for (size_t i = 0; i < stats.size(); ++i) fam.add(port_labels[i], double(stats[i].*f.field));
    out.push_back(std::move(fam));
  }
  Family status = gauge("port_status", "1 when the port's link is up and it is not administratively down");
  for (size_t i = 0; i < st.ports.size(); ++i) {
    const sw::SwitchPort& sp = st.ports.at(i);
    bool up = sp.link_up.load() && !(sp.config.load() & of::port_config::kPortDown);
    status.add(port_labels[i], up ? 1 : 0);
  }
  out.push_back(std::move(status));

  // Flow tables.
  of::TableStatsReply tables = st.datapath.table_stats();
  Family flows = gauge("flowlab_table_flows", "flows in the table (OpenFlow table stats active_count)");
  Family lookups = counter("flowlab_table_lookups_total", "packets looked up in the table");
  Family matches = counter("flowlab_table_matches_total", "packets that matched a flow in the table");
  for (const of::TableStats& t : tables.stats) {
    Labels l = with(dp, {{"table_id", std::to_string(t.table_id)}});
    flows.add(l, t.active_count);
    lookups.add(l, double(t.lookup_count));
    matches.add(std::move(l), double(t.matched_count));
  }
  out.push_back(std::move(flows));
  out.push_back(std::move(lookups));
  out.push_back(std::move(matches));

  // The user-space pipeline.
  dp::DatapathCounters c = st.datapath.counters();
  out.push_back(
      std::move(counter("flowlab_pipeline_packets_total", "packets that entered the user-space pipeline")
                    .add(dp, double(c.packets))));
  Family drops = counter("flowlab_pipeline_drops_total", "packets the pipeline dropped, by reason");
  drops.add(with(dp, {{"reason", "table_miss"}}), double(c.table_miss_drops));
  drops.add(with(dp, {{"reason", "action"}}), double(c.action_drops));
  drops.add(with(dp, {{"reason", "meter"}}), double(c.meter_drops));
  drops.add(with(dp, {{"reason", "invalid_ttl"}}), double(c.invalid_ttl));
  drops.add(with(dp, {{"reason", "fragment"}}), double(c.frag_drops));
  out.push_back(std::move(drops));
  out.push_back(std::move(
      counter("flowlab_flow_cache_hits_total", "exact-match flow cache hits").add(dp, double(c.cache_hits))));
  out.push_back(
      std::move(counter("flowlab_flow_cache_misses_total", "exact-match flow cache misses (classifier)")
                    .add(dp, double(c.cache_misses))));

  // The kernel fast path: hits forwarded in the kernel, upcalls to user space.
  std::string kind = st.kernel ? "tc" : "af-packet";
  out.push_back(std::move(
      gauge("flowlab_datapath_info", "the datapath in use (tc: eBPF fast path; af-packet: user space only)")
          .add(with(dp, {{"datapath", kind}}), 1)));
  kernel::FastPathStats k;
  size_t entries = 0, masks = 0;
  uint64_t installs = 0;
  if (st.kernel) {
    k = st.kernel->kernel_stats();
    entries = st.kernel->entries();
    masks = st.kernel->mask_count();
    installs = st.kernel->counters().installs.load();
  } else {
    k.upcalls = c.packets;  // every packet goes to user space
  }
  out.push_back(std::move(counter("flowlab_fast_path_hits_total", "packets forwarded by the kernel fast path")
                              .add(dp, double(k.hits))));
  out.push_back(std::move(
      counter("flowlab_fast_path_upcalls_total", "packets the fast path handed to the user-space pipeline")
          .add(dp, double(k.upcalls))));
  out.push_back(
      std::move(counter("flowlab_fast_path_drops_total", "packets the fast path dropped (a cached drop)")
                    .add(dp, double(k.drops))));
  out.push_back(
      std::move(counter("flowlab_fast_path_errors_total", "fast path errors (packet sent up instead)")
                    .add(dp, double(k.errors))));
  out.push_back(std::move(counter("flowlab_fast_path_installs_total", "cache entries installed in the kernel")
                              .add(dp, double(installs))));
  out.push_back(std::move(
      gauge("flowlab_fast_path_entries", "cache entries in the kernel now").add(dp, double(entries))));
  out.push_back(std::move(gauge("flowlab_fast_path_masks", "megaflow masks in use").add(dp, double(masks))));

  // The OpenFlow agent and the to-controller path.
  const sw::AgentCounters& a = st.agent.counters();
  out.push_back(std::move(
      counter("of_packet_ins_total", "packet-ins sent to controllers").add(dp, double(a.packet_ins_sent))));
  Family shed = counter("flowlab_packet_ins_not_sent_total", "packet-ins not sent, by reason");
  shed.add(with(dp, {{"reason", "no_peer"}}), double(a.packet_ins_unsent));
  shed.add(with(dp, {{"reason", "congested"}}), double(a.packet_ins_congested));
  shed.add(with(dp, {{"reason", "queue_full"}}), double(st.to_controller_dropped));
  out.push_back(std::move(shed));
  out.push_back(std::move(counter("flowlab_to_controller_queued_total",
                                  "packets the forwarding threads queued for the controller")
                              .add(dp, double(st.to_controller_queued))));
  out.push_back(
      std::move(counter("flowlab_packet_outs_total", "packet-outs run").add(dp, double(a.packet_outs))));
  out.push_back(std::move(
      counter("flowlab_of_requests_total", "OpenFlow requests handled").add(dp, double(a.requests))));
  out.push_back(std::move(
      counter("flowlab_of_errors_sent_total", "OpenFlow error replies sent").add(dp, double(a.errors_sent))));
  out.push_back(std::move(counter("flowlab_flow_removed_sent_total", "flow-removed messages sent")
                              .add(dp, double(a.flow_removed_sent))));
  out.push_back(std::move(counter("flowlab_port_status_sent_total", "port-status messages sent")
                              .add(dp, double(a.port_status_sent))));
  out.push_back(std::move(gauge("flowlab_buffers_in_use", "packets held for buffer ids (packet-in buffers)")
                              .add(dp, double(st.agent.buffers().in_use()))));
  out.push_back(std::move(
      gauge("flowlab_of_peers_connected", "OpenFlow peers connected (controllers and management clients)")
          .add(dp, double(peers))));
  out.push_back(std::move(
      gauge("dp_status", "1 when a controller is connected").add(dp, st.agent.has_controller() ? 1 : 0)));
}

bool collect_switch(sw::Switch& s, std::vector<Family>& out, std::chrono::milliseconds timeout) {
  std::vector<Family> got;
  size_t peers = s.connected_peers();
  if (!s.run_on_agent([&](const sw::Switch::AgentState& st) { collect_switch_state(st, peers, got); },
                      timeout))
    return false;
  for (auto& f : got) out.push_back(std::move(f));
  return true;
}

void add_switch_collector(Registry& r, sw::Switch& s) {
  r.add([&s](std::vector<Family>& out) {
    if (!collect_switch(s, out)) throw CollectTimeout("the switch's agent thread did not answer in 2 s");
  });
}

}  // namespace flowlab::metrics

// Controller families (see controller_metrics.h).
#include "metrics/controller_metrics.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "metrics/registry.h"

namespace flowlab::metrics {

namespace {

std::string dp_id(uint64_t dpid) { return fmt::format("{:#x}", dpid); }

uint64_t mac_value(const MacAddr& m) {
  uint64_t v = 0;
  for (uint8_t b : m.b) v = v << 8 | b;
  return v;
}

}  // namespace

HistogramSample histogram_seconds(const controller::LatencyHistogram& h, Labels labels) {
  constexpr int kFirst = 10, kLast = 34;
  HistogramSample s;
  s.labels = std::move(labels);
  uint64_t below = 0;  // observations in buckets 0..k-1, i.e. < 2^k ns
  for (int i = 0; i < controller::LatencyHistogram::kBuckets; ++i) {
    int k = i;  // bucket i holds [2^i, 2^(i+1)); before adding it, `below` counts < 2^i
    if (k >= kFirst && k <= kLast) s.buckets.emplace_back(std::ldexp(1.0, k) * 1e-9, below);
    below += h.bucket(i);
  }
  s.count = below;
  s.sum = double(h.sum_ns()) * 1e-9;
  return s;
}

void collect_controller(const controller::ControllerStats& st, const controller::topology::TopologyView& topo,
                        const std::string& role, std::vector<Family>& out) {
  auto total = [&](const char* name, const char* help, const std::atomic<uint64_t>& v) {
    out.push_back(std::move(counter(name, help).add({}, double(v.load()))));
  };
  out.push_back(std::move(counter("of_packet_ins_total", "packet-ins received from switches (LLDP included)")
                              .add({}, double(st.packet_in_received.load() + st.packet_in_lldp.load()))));
  out.push_back(std::move(counter("of_flowmsgs_sent_total", "flow-mods and packet-outs sent to switches")
                              .add({}, double(st.flow_mod_sent.load() + st.packet_out_sent.load()))));
  out.push_back(std::move(counter("of_dp_connections_total", "switch connections (features received)")
                              .add({}, double(st.switches_seen.load()))));
  uint64_t seen = st.switches_seen.load(), now = st.switches_connected.load();
  out.push_back(std::move(counter("of_dp_disconnections_total", "switch connections that ended")
                              .add({}, double(seen > now ? seen - now : 0))));
  Family pin = counter("flowlab_packet_ins_total", "packet-ins by outcome");
  pin.add({{"outcome", "answered"}}, double(st.packet_in_answered.load()));
  pin.add({{"outcome", "unanswered"}}, double(st.packet_in_dropped.load()));
  pin.add({{"outcome", "lldp"}}, double(st.packet_in_lldp.load()));
  out.push_back(std::move(pin));
  total("flowlab_flow_mods_sent_total", "flow-mods sent", st.flow_mod_sent);
  total("flowlab_packet_outs_sent_total", "packet-outs sent", st.packet_out_sent);
  total("flowlab_messages_sent_total", "OpenFlow messages sent", st.messages_sent);
  total("flowlab_send_refused_total", "sends refused (connection gone or output full)", st.send_refused);
  total("flowlab_slave_refused_total", "state-changing sends not made as a slave", st.slave_refused);
  total("flowlab_role_refused_total", "role requests a switch refused", st.role_refused);
  total("flowlab_is_slave_errors_total", "OFPBRC_IS_SLAVE errors received", st.is_slave_errors);
  out.push_back(std::move(gauge("flowlab_switches_connected", "switches connected now")
                              .add({}, double(st.switches_connected.load()))));
  out.push_back(std::move(gauge("flowlab_switches_master", "switches where this controller is master now")
                              .add({}, double(st.switches_master.load()))));
  out.push_back(std::move(
      gauge("flowlab_controller_role_info", "the OF1.3 role asked for with --role (none: not asked)")
          .add({{"role", role.empty() ? "none" : role}}, 1)));

  // Handling time: packet-ins as Faucet names it, every event kind in one family.
  using controller::EventKind;
  Family pin_secs{"faucet_packet_in_secs",
                  "packet-in handling time by the apps, seconds",
                  MetricType::kHistogram,
                  {},
                  {}};
  pin_secs.histograms.push_back(histogram_seconds(st.handling[size_t(EventKind::kPacketIn)], {}));
  out.push_back(std::move(pin_secs));
  Family ev{"flowlab_event_handling_seconds",
            "event handling time by the apps, seconds",
            MetricType::kHistogram,
            {},
            {}};
  for (size_t i = 0; i < size_t(EventKind::kCount); ++i)
    ev.histograms.push_back(histogram_seconds(st.handling[i], {{"event", to_string(EventKind(i))}}));
  out.push_back(std::move(ev));

  // Per switch, from the topology service (when it runs).
  std::vector<controller::topology::SwitchView> switches = topo.switches();
  Family status = gauge("dp_status", "1 for a switch connected now");
  Family ports = gauge("port_status", "1 when the port is up (neither link nor administratively down)");
  for (const auto& s : switches) {
    status.add({{"dp_id", dp_id(s.dpid)}}, 1);
    for (const auto& p : s.ports)
      ports.add({{"dp_id", dp_id(s.dpid)}, {"port", p.name}, {"port_no", std::to_string(p.port_no)}},
                p.up ? 1 : 0);
  }
  out.push_back(std::move(status));
  out.push_back(std::move(ports));
  std::vector<controller::topology::HostView> hosts = topo.hosts();
  Family macs =
      gauge("learned_macs", "MAC address learned (as a 64-bit number) per dp_id, port and n (index)");
  std::map<std::pair<uint64_t, uint32_t>, int> index;
  for (const auto& h : hosts) {
    int n = index[{h.dpid, h.port_no}]++;
    macs.add({{"dp_id", dp_id(h.dpid)}, {"port", std::to_string(h.port_no)}, {"n", std::to_string(n)}},
             double(mac_value(h.mac)));
  }
  out.push_back(std::move(macs));
  out.push_back(std::move(
      gauge("flowlab_hosts_learned", "hosts the topology service knows").add({}, double(hosts.size()))));
  out.push_back(std::move(
      gauge("flowlab_topology_links", "switch-to-switch links (one per direction) discovered by LLDP")
          .add({}, double(topo.links().size()))));
}

}  // namespace flowlab::metrics

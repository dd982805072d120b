// Explanations beside the figures: what the counters say about each result and the
// bound they imply ("TCP limited by controller round trip: window 64 KB / RTT 1.6 ms
// = 0.33 Gbit/s", "receiver dropped segments with bad checksums", ...).
#include "lab/explain/explain.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "lab/explain/verdict.h"
#include "lab/format/json_access.h"
#include "lab/report/report.h"
#include "lab/report/report_parts.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

std::string human_bytes(double b) {
  if (b >= 1024 * 1024) return fmt::format("{:.1f} MB", b / (1024 * 1024));
  if (b >= 1024) return fmt::format("{:.0f} KB", b / 1024);
  return fmt::format("{:.0f} B", b);
}

// Sums "rx pkts=/drop=" and "tx pkts=/drop=" over ovs-ofctl-style dump-ports output.
struct PortSums {
  long long rx = 0, tx = 0, rx_drop = 0, tx_drop = 0, rx_err = 0;
  bool any = false;
};
PortSums sum_ports(const std::string& text) {
  PortSums s;
  std::istringstream in(text);
  std::string line;
  bool local = false;  // OVS's bridge-internal LOCAL port: a FLOOD to it while it is down counts as a tx drop
  while (std::getline(in, line)) {
    if (line.find("port ") != std::string::npos && line.find("rx pkts=") != std::string::npos)
      local = line.find("LOCAL") != std::string::npos;
    if (local) continue;
    bool rx = line.find("rx pkts=") != std::string::npos, tx = line.find("tx pkts=") != std::string::npos;
    if (!rx && !tx) continue;
    auto field = [&](const char* k) -> long long {
      auto p = line.find(k);
      if (p == std::string::npos) return 0;
      return std::strtoll(line.c_str() + p + std::strlen(k), nullptr, 10);  // "?" parses as 0
    };
    s.any = true;
    if (rx) {
      s.rx += field("pkts=");
      s.rx_drop += field("drop=");
      s.rx_err += field("errs=");
    } else {
      s.tx += field("pkts=");
      s.tx_drop += field("drop=");
    }
  }
  return s;
}

// Packets that went to the controller through the table-miss flow, flow count.
void flow_facts(const std::string& text, long long& to_controller, int& flows) {
  std::istringstream in(text);
  std::string line;
  to_controller = -1;
  flows = 0;
  while (std::getline(in, line)) {
    if (line.find("actions=") == std::string::npos) continue;
    ++flows;
    if (line.find("priority=0") != std::string::npos && line.find("CONTROLLER") != std::string::npos) {
      auto p = line.find("n_packets=");
      if (p != std::string::npos) to_controller = std::strtoll(line.c_str() + p + 10, nullptr, 10);
    }
  }
}

// Packets dropped by the security-group chains (iptables -L -v -n -x).
long long sg_drops(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool in_sg = false;
  long long drops = 0;
  while (std::getline(in, line)) {
    if (line.rfind("Chain ", 0) == 0) {
      in_sg = line.rfind("Chain flsg-", 0) == 0;
      continue;
    }
    if (!in_sg) continue;
    std::istringstream ls(line);
    long long pkts = 0, bytes = 0;
    std::string target;
    if (ls >> pkts >> bytes >> target && target == "DROP") drops += pkts;
  }
  return drops;
}

// Mean ping RTT of a case (its first successful ping test), 0 when there is none.
double case_ping_rtt_ms(const json& doc, const std::string& case_name) {
  for (const auto& o : array_member(doc, "results"))
    if (o.value("case", "") == case_name && o.value("type", "") == "ping" && o.value("status", "") == "ok")
      return num(member(o, "metrics"), "rtt_avg_ms");
  return 0;
}

}  // namespace

std::vector<std::string> explain_case(const json& c) {
  std::vector<std::string> out;
  if (c.contains("offload_state") && !c["offload_state"].empty()) {
    int on = 0, total = 0;
    for (const auto& [k, v] : c["offload_state"].items()) {
      ++total;
      if (v.value("tx-checksumming", "") == "on") ++on;
    }
    out.push_back(
        fmt::format("veth offloads: tx checksum/TSO on for {} of {} veth ends{}", on, total,
                    on ? " (the kernel hands partial checksums and 64 KB super-frames to the switch)" : ""));
  }
  for (const auto& [n, s] : member(c, "switch_counters").items()) {
    auto p = sum_ports(s.value("dump_ports", ""));
    if (p.any)
      out.push_back(
          fmt::format("switch {}: ports received {} and sent {} packets; drops rx {} / tx {}, rx errors {} "
                      "(OpenFlow ports; LOCAL not counted)",
                      n, p.rx, p.tx, p.rx_drop, p.tx_drop, p.rx_err));
    long long to_ctl;
    int flows;
    flow_facts(s.value("dump_flows", ""), to_ctl, flows);
    if (to_ctl >= 0)
      out.push_back(
          fmt::format("switch {}: {} packets went to the controller through the table-miss flow; {} flow(s) "
                      "in the table",
                      n, to_ctl, flows));
    if (const json& st = member(s, "stats"); st.is_object()) {
      const json& q = member(st, "to_controller");
      const json& pin = member(st, "packet_ins");
      const json& buf = member(st, "buffers");
      if (num(q, "queued") > 0 || num(q, "dropped") > 0)
        out.push_back(fmt::format(
            "switch {}: {:.0f} packets queued for the controller, {:.0f} dropped because the queue was full; "
            "{:.0f} packet-ins sent, {:.0f} packet-outs run",
            n, num(q, "queued"), num(q, "dropped"), num(pin, "sent"), num(st, "packet_outs")));
      const json& dpc = member(st, "datapath");
      std::string drops;
      for (const auto& [key, what] :
           {std::pair<const char*, const char*>{"action_drops", "by flows that output nothing"},
            {"table_miss_drops", "by table misses (no flow matched)"},
            {"meter_drops", "by meter bands"},
            {"invalid_ttl", "for an invalid TTL"},
            {"frag_drops", "as IP fragments (OFPC_FRAG_DROP)"}}) {
        if (num(dpc, key) > 0)
          drops += fmt::format("{}{:.0f} {}", drops.empty() ? "" : ", ", num(dpc, key), what);
      }
      if (!drops.empty())
        out.push_back(fmt::format("switch {}: of {:.0f} packets its pipeline took, it dropped {}", n,
                                  num(dpc, "packets"), drops));
      if (num(buf, "evicted") > 0 || num(buf, "expired") > 0)
        out.push_back(fmt::format(
            "switch {}: {:.0f} buffered packet-ins were evicted (all {:.0f} buffers in use) and {:.0f} timed "
            "out before the controller answered: their packets were lost",
            n, num(buf, "evicted"), num(buf, "capacity"), num(buf, "expired")));
    }
    if (s.contains("iptables"))
      out.push_back(fmt::format("switch {}: the security group dropped {} packets; conntrack held {} entries",
                                n, sg_drops(s.value("iptables", "")),
                                std::strtoll(s.value("conntrack_count", "0").c_str(), nullptr, 10)));
  }
  for (const auto& [n, st] : member(c, "controller_stats").items())
    if (auto line = controller_sentence(n, st); !line.empty()) out.push_back(line);
  if (every_packet_via_controller(c))
    out.push_back(
        "every packet crosses the controller (hub: packet-in, then packet-out FLOOD); no flows installed");
  return out;
}

std::vector<std::string> explain_test(const json& r, const json& c, const json& doc) {
  std::vector<std::string> out;
  std::string type = r.value("type", "");
  const json m = r.value("metrics", json::object());
  const json rx = r.value("receiver_stack", json::object());
  long long csum = (long long)(num(rx, "Tcp.InCsumErrors") + num(rx, "Udp.InCsumErrors"));
  bool via_ctl = every_packet_via_controller(c);
  if (csum > 0)
    out.push_back(
        fmt::format("receiver dropped {} segments with bad checksums (InCsumErrors in {}'s stack): offloads "
                    "are on and the "
                    "switch forwarded partial checksums without completing them",
                    csum, r.value("to", "?")));
  if (r.value("status", "") != "ok") return out;
  if (type == "iperf3-tcp") {
    double gbps = num(m, "gbps"), rtt = num(m, "rtt_ms");
    bool fixed_window = m.contains("window_bytes");
    double window = num(m, "window_bytes", num(m, "max_cwnd_bytes"));
    if (rtt > 0 && window > 0) {
      double bound = window * 8 / (rtt / 1000) / 1e9;
      std::string what = fmt::format("{} {} / {}RTT {:.3g} ms = {:.3g} Gbit/s (measured {:.3g})",
                                     fixed_window ? "window" : "max cwnd", human_bytes(window),
                                     fixed_window ? "" : "mean ", rtt, bound, gbps);
      // iperf3's RTT is the mean smoothed RTT under load, so it includes the queues the
      // stream itself builds. When it is far above the idle ping RTT of the same case,
      // window/RTT is only Little's law restated: the limit is the forwarding rate of
      // whatever queues (switch or controller path), not the round trip.
      double idle = case_ping_rtt_ms(doc, r.value("case", ""));
      bool queueing = idle > 0 && rtt > 3 * idle;
      bool near = gbps >= 0.5 * bound && gbps <= 1.3 * bound;
      if (gbps > 1.3 * bound)
        out.push_back(
            fmt::format("{}: above the window/RTT estimate, the mean RTT overstates the RTT at the largest "
                        "window, so this is no bound",
                        what));
      else if (near && queueing)
        out.push_back(
            fmt::format("{}: the RTT under load is {:.0f}x the idle ping RTT ({:.3g} ms), so it is queueing; "
                        "TCP is limited by the packet rate of the {}, not by the round trip",
                        what, rtt / idle, idle,
                        via_ctl ? "controller path (packet-in + packet-out per packet)" : "switch"));
      else if (near)
        out.push_back(fmt::format(
            "{}: {}", via_ctl ? "TCP limited by controller round trip" : "TCP limited by round trip", what));
      else
        out.push_back(fmt::format("round-trip bound: {}", what));
    }
    if (double re = num(m, "retransmits"); re > 0)
      out.push_back(fmt::format("{:.0f} TCP retransmits: segments were lost on the way{}", re,
                                r.value("path", "") == "direct"
                                    ? " (no switch on this path: the veth between the hosts or their stacks)"
                                : via_ctl ? " (the controller path drops what it cannot keep up with)"
                                          : " (switch or veth queue drops; see the switch counters)"));
  } else if (type == "iperf3-udp") {
    double loss = num(m, "loss_pct");
    if (loss > 1)
      out.push_back(fmt::format(
          "{:.1f}% of the offered {:.3g} Gbit/s lost (jitter {:.3g} ms){}", loss, num(m, "offered_gbps"),
          num(m, "jitter_ms"),
          via_ctl ? ": the controller path (packet-in + packet-out per packet) cannot keep up" : ""));
    // Datagrams the receiver's own socket buffer dropped were forwarded by the switch:
    // the receiving iperf3 did not read fast enough (a loaded CPU), not the switch.
    double lost = num(m, "lost_packets"), rcvbuf = num(rx, "Udp.RcvbufErrors");
    if (loss > 1 && lost > 0 && rcvbuf > 0)
      out.push_back(fmt::format(
          "{:.0f} of the {:.0f} lost datagrams ({:.0f}%) reached {} and were dropped by its socket "
          "buffer (Udp.RcvbufErrors): the receiving iperf3 did not keep up; the rest were lost "
          "before it",
          std::min(rcvbuf, lost), lost, 100 * std::min(rcvbuf, lost) / lost, r.value("to", "?")));
  } else if (type == "ping") {
    if (via_ctl)
      out.push_back("each echo and reply crosses the controller: RTT includes two controller round trips");
  } else if (type == "iperf2-window") {
    double rtt = case_ping_rtt_ms(doc, r.value("case", ""));
    if (rtt > 0)
      for (const auto& [k, v] : m.items()) {
        if (k.rfind("gbps_", 0) != 0 || !v.is_number()) continue;
        double w = double(parse_size(k.substr(5)));  // "gbps_16K"
        if (w <= 0) continue;
        double bound = w * 8 / (rtt / 1000) / 1e9, got = v.get<double>();
        // iperf -w sets the socket buffer; Linux doubles it, so the window in flight can
        // exceed W and the measurement can pass the W/RTT figure.
        out.push_back(
            fmt::format("window {} / ping RTT {:.3g} ms = {:.3g} Gbit/s {}(measured {:.3g}){}", k.substr(5),
                        rtt, bound, got > 1.3 * bound ? "" : "bound ", got,
                        got > 1.3 * bound ? ": above it, since Linux doubles the -w socket buffer" : ""));
      }
  } else if (type == "tcp-rr") {
    out.push_back(fmt::format("{:.0f} transactions/s: one request/response per {:.3g} us round trip",
                              num(m, "transactions_per_s"), num(m, "rtt_avg_us")));
  }
  return out;
}

void annotate_explanations(json& doc) {
  std::map<std::string, json*> cases;
  for (auto& c : doc["cases"]) {
    c["explain"] = explain_case(c);
    cases[c.value("name", "")] = &c;
  }
  json empty = json::object();
  for (auto& r : doc["results"]) {
    auto it = cases.find(r.value("case", ""));
    r["explain"] = explain_test(r, it == cases.end() ? empty : *it->second, doc);
    for (const auto& e : r.value("probe_explain", json::array())) r["explain"].push_back(e);
  }
  annotate_verdicts(doc);
}

}  // namespace flowlab::lab

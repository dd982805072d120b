// Gathering the facts the verdict rules read (see verdict_facts.h).
#include "lab/explain/verdict_facts.h"

#include <algorithm>
#include <cstdlib>

#include "lab/explain/verdict.h"
#include "lab/format/json_access.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab::verdict_detail {

namespace {

double case_ping_rtt_ms(const json& doc, const std::string& case_name) {
  for (const auto& o : array_member(doc, "results"))
    if (o.value("case", "") == case_name && o.value("type", "") == "ping" && o.value("status", "") == "ok")
      return num(member(o, "metrics"), "rtt_avg_ms");
  return 0;
}

}  // namespace

// Delta of a cumulative series (last - first), 0 when absent.
double series_delta(const json& a) {
  if (!a.is_array() || a.size() < 2) return 0;
  double first = 0, last = 0;
  bool seen = false;
  for (const auto& v : a)
    if (v.is_number()) {  // null: the file did not exist yet
      if (!seen) first = v.get<double>();
      seen = true;
      last = v.get<double>();
    }
  return last - first;
}

Facts gather(const json& r, const json& c, const json& doc) {
  Facts f;
  f.type = r.value("type", "");
  f.status = r.value("status", "");
  f.from = r.value("from", "?");
  f.to = r.value("to", "?");
  f.machine = str(r, "machine");
  f.crossing = str(r, "crossing");
  f.case_rec = c.is_object() ? c : json::object();
  f.tcp = f.type == "iperf3-tcp" || f.type == "iperf2-window";
  f.udp = f.type == "iperf3-udp";
  f.via_ctl = every_packet_via_controller(c);
  const json& m = member(r, "metrics");
  const json& rx = member(r, "receiver_stack");
  const json& s = member(r, "samples");
  const json& tx_ext = member(member(s, "tcp_ext"), "sender");
  const json& rx_ext = member(member(s, "tcp_ext"), "receiver");
  const json& tsum = member(member(s, "tcp"), "summary");
  f.measured_bps = num(m, "gbps") * 1e9;
  if (f.type == "iperf2-window") {  // judge the largest window of the sweep
    for (const auto& [k, v] : m.items()) {
      if (k.rfind("gbps_", 0) != 0 || !v.is_number()) continue;
      double w = double(parse_size(k.substr(5)));
      if (w > f.window) {
        f.window = w;
        f.measured_bps = v.get<double>() * 1e9;
      }
    }
  } else {
    f.window = num(m, "window_bytes");
  }
  f.offered_bps = num(m, "offered_gbps") * 1e9;
  f.loss_pct = num(m, "loss_pct");
  f.lost = num(m, "lost_packets");
  if (f.udp) {
    // iperf3 counts as lost only the gaps before the last datagram that arrived; what
    // the controller path still held when the test ended is missing from it. What
    // the sender sent (offered rate x duration / datagram size) minus what arrived
    // counts it all.
    const std::string cmd = r.value("command", "");
    auto l = cmd.find(" -l ");
    double size = l == std::string::npos ? 0 : std::strtod(cmd.c_str() + l + 4, nullptr);
    const json& iv = array_member(member(member(r, "samples"), "intervals"), "t_s");
    double dur = !iv.empty() && iv.back().is_number() ? iv.back().get<double>() : 0;
    if (size > 0 && dur > 0 && f.offered_bps > 0) {
      f.sent = f.offered_bps * dur / (8 * size);
      f.lost = std::max(f.lost, f.sent - num(m, "packets"));
    }
  }
  const json& ts = array_member(s, "t_s");
  f.duration_s = !ts.empty() && ts.back().is_number() ? ts.back().get<double>() : num(r, "elapsed_s");
  f.inflight = num(tsum, "inflight_mean_bytes");
  f.idle_rtt_ms = f.ping_rtt_ms = case_ping_rtt_ms(doc, r.value("case", ""));
  if (double mr = num(tsum, "min_rtt_ms"); mr > 0 && (f.idle_rtt_ms <= 0 || mr < f.idle_rtt_ms))
    f.idle_rtt_ms = mr;
  f.retrans = std::max({num(m, "retransmits"), num(tsum, "retrans"), num(tx_ext, "Tcp.RetransSegs"),
                        num(member(r, "sender_stack"), "Tcp.RetransSegs")});
  f.csum = num(rx, "Tcp.InCsumErrors") + num(rx, "Udp.InCsumErrors");
  f.rcvbuf = num(rx, "Udp.RcvbufErrors");
  f.pruned =
      num(rx_ext, "TcpExt.RcvPruned") + num(rx_ext, "TcpExt.OfoPruned") + num(rx_ext, "TcpExt.TCPRcvQDrop");
  f.timeouts = num(tx_ext, "TcpExt.TCPTimeouts");
  f.rto_ms = num(tsum, "rto_mean_ms", 200);
  if (f.rto_ms <= 0) f.rto_ms = 200;  // Linux's minimum RTO
  f.delivery_max_bps = num(tsum, "delivery_max_mbps") * 1e6;
  f.rwnd_limited_pct = num(tsum, "rwnd_limited_pct");
  f.window_rate_bps = num(tsum, "window_rate_mean_mbps") * 1e6;
  if (f.window_rate_bps <= 0) {  // results.json written before the summary had it
    const json& t = member(s, "tcp");
    const json& w = array_member(t, "inflight_bytes");
    const json& rt = array_member(t, "rtt_ms");
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < w.size() && i < rt.size(); ++i)
      if (w[i].is_number() && rt[i].is_number() && w[i].get<double>() > 0 && rt[i].get<double>() > 0) {
        sum += w[i].get<double>() * 8 / (rt[i].get<double>() / 1000);
        ++n;
      }
    if (n) f.window_rate_bps = sum / n;
  }
  f.rtt_mean_ms = num(tsum, "rtt_mean_ms");
  f.zero_windows = num(rx_ext, "TcpExt.TCPToZeroWindowAdv");
  f.cores = member(s, "cores");
  f.procs = member(s, "procs");
  // CPU while the stream ran (the ss samples' time span), not over the sampler's
  // whole window: the tools start before and linger after it.
  const json& tt = array_member(member(s, "tcp"), "t_s");
  const json& st = array_member(s, "t_s");
  if (tt.size() >= 2 && tt.front().is_number() && tt.back().is_number()) {
    double from = tt.front().get<double>(), to = tt.back().get<double>();
    for (auto& [label, p] : f.procs.items()) {
      const json& u = array_member(p, "user_pct");
      const json& y = array_member(p, "system_pct");
      double su = 0, sy = 0;
      int n = 0;
      for (size_t i = 0; i < st.size() && i < u.size() && i < y.size(); ++i) {
        if (!st[i].is_number() || st[i].get<double>() < from || st[i].get<double>() > to) continue;
        su += u[i].is_number() ? u[i].get<double>() : 0;
        sy += y[i].is_number() ? y[i].get<double>() : 0;
        ++n;
      }
      if (n == 0) continue;
      p["user_mean_pct"] = su / n;
      p["system_mean_pct"] = sy / n;
      p["mean_pct"] = (su + sy) / n;
    }
  }
  // The cores over the same span.
  if (tt.size() >= 2 && tt.front().is_number() && tt.back().is_number()) {
    double from = tt.front().get<double>(), to = tt.back().get<double>();
    for (auto& [name, c] : f.cores.items())
      for (const char* k : {"busy", "user", "system", "softirq"}) {
        const json& a = array_member(c, (std::string(k) + "_pct").c_str());
        double sum = 0;
        int n = 0;
        for (size_t i = 0; i < st.size() && i < a.size(); ++i) {
          if (!st[i].is_number() || st[i].get<double>() < from || st[i].get<double>() > to) continue;
          sum += a[i].is_number() ? a[i].get<double>() : 0;
          ++n;
        }
        if (n) c[std::string(k) + "_mean_pct"] = sum / n;
      }
  }
  f.qdiscs = array_member(s, "qdiscs");
  f.counters = member(s, "counters");
  f.ovs = member(s, "ovs");
  f.packet_drops = array_member(s, "packet_drops");
  for (const auto& d : array_member(s, "iface_drops"))  // the control channel's losses are retransmitted
    if (d.value("ns", "") != "ctl" && d.value("dev", "") != "ctl-link") f.iface_drops.push_back(d);
  f.ctl_delay_ms = num(member(f.case_rec, "controller_link"), "delay_ms");
  f.packet_ins_per_s = packet_in_rate(r);
  return f;
}

double packet_in_rate(const json& r) {
  const json& s = member(r, "samples");
  const json& ts = array_member(s, "t_s");
  double dur = !ts.empty() && ts.back().is_number() ? ts.back().get<double>() : 0;
  if (dur <= 0) return 0;
  double rate = 0;
  for (const auto& [k, a] : member(s, "counters").items()) {
    if (k.find("packet_in.received") == std::string::npos && k.find("packet_ins.sent") == std::string::npos)
      continue;
    rate = std::max(rate, series_delta(a) / dur);
  }
  if (double sent = num(member(s, "ovs"), "coverage.rconn_sent"); rate <= 0 && sent > 0)
    rate = sent / dur;  // OVS: messages to the controller, the packet-ins of a hub
  return rate;
}

// The controller process of the case and its mean CPU during the test.
std::pair<std::string, double> controller_cpu(const Facts& f) {
  std::pair<std::string, double> best{"", -1};
  for (const auto& [label, p] : f.procs.items())
    if (label.rfind("flowlab controller", 0) == 0 || label == "os-ken")
      if (num(p, "mean_pct") > best.second) best = {label, num(p, "mean_pct")};
  return best;
}

// Median packet-in handling time of the case's controller, in us (0: unknown).
double controller_handling_us(const json& c) {
  for (const auto& [n, st] : member(c, "controller_stats").items())
    if (double p50 = num(member(member(st, "handling_time"), "packet_in"), "p50_ns"); p50 > 0)
      return p50 / 1e3;
  return 0;
}

}  // namespace flowlab::lab::verdict_detail

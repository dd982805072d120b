// Summary, per-test line charts and sentences for the report (see report_parts.h).
#include "lab/report/report_parts.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

#include "lab/format/json_access.h"
#include "lab/format/svg_chart.h"
#include "lab/report/report.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

std::vector<double> numbers(const json& a) {
  std::vector<double> v;
  if (a.is_array())
    for (const auto& x : a) v.push_back(x.is_number() ? x.get<double>() : NAN);
  return v;
}

std::string figure(const json& r) {
  const json& m = member(r, "metrics");
  std::string type = r.value("type", "");
  if (r.value("status", "") != "ok") return r.value("status", "?");
  // " [min-max]" of a repeated metric, in the unit of its figure (rates: in Mbit/s when below 1 Gbit/s).
  auto spread = [&](const char* k) {
    const json& s = member(member(r, "spread"), k);
    if (!s.contains("min")) return std::string();
    double lo = num(s, "min"), hi = num(s, "max"), med = num(m, k);
    if (std::string(k).rfind("gbps", 0) == 0 && med < 1) lo *= 1e3, hi *= 1e3;
    return fmt::format(" [{:.3g}-{:.3g}]", lo, hi);
  };
  if (type == "ping") return fmt::format("{:.3g} ms{}", num(m, "rtt_avg_ms"), spread("rtt_avg_ms"));
  if (type == "tcp-rr") return fmt::format("{:.3g} us{}", num(m, "rtt_avg_us"), spread("rtt_avg_us"));
  auto rate = [&](double g) {
    return g < 1 ? fmt::format("{:.3g} Mbit/s", g * 1e3) : fmt::format("{:.3g} Gbit/s", g);
  };
  if (type == "iperf3-udp")
    return fmt::format("{}{}, {:.2g}% lost", rate(num(m, "gbps")), spread("gbps"), num(m, "loss_pct"));
  if (type == "iperf3-tcp") return fmt::format("{}{}", rate(num(m, "gbps")), spread("gbps"));
  std::string s;  // iperf2-window: "16K 15.4 Mbit/s"
  for (const auto& k : headline_metrics(r)) {
    double g = num(m, k.c_str());
    std::string v = g < 1 ? fmt::format("{:.3g} Mbit/s", g * 1e3) : fmt::format("{:.3g} Gbit/s", g);
    s += fmt::format("{}{} {}{}", s.empty() ? "" : ", ", k.rfind("gbps_", 0) == 0 ? k.substr(5) : k, v,
                     spread(k.c_str()));
  }
  return s;
}

std::string rate_words(double gbps) {
  return gbps < 1 ? fmt::format("{:.3g} Mbit/s", gbps * 1e3) : fmt::format("{:.3g} Gbit/s", gbps);
}

}  // namespace

std::string metrics_sentence(const json& r) {
  const json& m = member(r, "metrics");
  std::string type = r.value("type", "");
  if (m.empty()) return {};
  if (type == "ping")
    return fmt::format(
        "{:.0f} of {:.0f} echoes answered ({:.2g}% lost); round trip {:.3g} ms on average "
        "(min {:.3g}, max {:.3g}, mdev {:.3g} ms)",
        num(m, "received"), num(m, "sent"), num(m, "loss_pct"), num(m, "rtt_avg_ms"), num(m, "rtt_min_ms"),
        num(m, "rtt_max_ms"), num(m, "rtt_mdev_ms"));
  if (type == "iperf3-udp")
    return fmt::format(
        "{} arrived of {} offered; {:.0f} of {:.0f} datagrams lost ({:.2g}%), jitter {:.3g} ms",
        rate_words(num(m, "gbps")), rate_words(num(m, "offered_gbps")), num(m, "lost_packets"),
        num(m, "packets"), num(m, "loss_pct"), num(m, "jitter_ms"));
  if (type == "iperf3-tcp") {
    std::string s =
        fmt::format("{} received ({} sent), {:.0f} segments retransmitted", rate_words(num(m, "gbps")),
                    rate_words(num(m, "sender_gbps", num(m, "gbps"))), num(m, "retransmits"));
    if (num(m, "rtt_ms") > 0) s += fmt::format("; mean RTT {:.3g} ms", num(m, "rtt_ms"));
    if (num(m, "max_cwnd_bytes") > 0)
      s += fmt::format(", largest cwnd {:.0f} KB", num(m, "max_cwnd_bytes") / 1024);
    return s;
  }
  if (type == "iperf2-window") {
    std::string s;
    for (const auto& [k, v] : m.items())
      if (k.rfind("gbps_", 0) == 0 && v.is_number())
        s += fmt::format("{}window {}: {}", s.empty() ? "" : "; ", k.substr(5), rate_words(v.get<double>()));
    return s;
  }
  if (type == "tcp-rr")
    return fmt::format("{:.0f} transactions/s, {:.3g} us per request/response on average",
                       num(m, "transactions_per_s"), num(m, "rtt_avg_us"));
  if (type == "probe") {
    std::string s = fmt::format("{:.0f} of {:.0f} probes delivered ({:.0f} lost, {:.2g}%)",
                                num(m, "delivered"), num(m, "sent"), num(m, "lost"), num(m, "loss_pct"));
    if (m.contains("owd_p50_ms"))
      s += fmt::format("; one-way delay median {:.3g} ms, p99 {:.3g} ms", num(m, "owd_p50_ms"),
                       num(m, "owd_p99_ms"));
    if (num(m, "duplicates") + num(m, "reordered") > 0)
      s += fmt::format("; {:.0f} duplicated, {:.0f} reordered", num(m, "duplicates"), num(m, "reordered"));
    return s;
  }
  if (type == "pingall") {
    std::string s = fmt::format("{:.0f} of {:.0f} host pairs reached ({:.2g}% of the echoes lost)",
                                num(m, "pairs_reached"), num(m, "pairs"), num(m, "dropped_pct"));
    if (m.contains("rtt_avg_ms"))
      s += fmt::format("; round trip {:.3g} ms on average, {:.3g} ms at most", num(m, "rtt_avg_ms"),
                       num(m, "rtt_max_ms"));
    if (num(m, "retried_pairs") > 0)
      s += fmt::format("; {:.0f} pairs got no echo at first, {:.0f} of them got one on a retry",
                       num(m, "retried_pairs"), num(m, "reached_on_retry"));
    return s;
  }
  std::string s;  // a test type without its own sentence: its figures, named
  for (const auto& [k, v] : m.items())
    if (v.is_number()) s += fmt::format("{}{} {:.4g}", s.empty() ? "" : ", ", k, v.get<double>());
  return s;
}

std::string verdict_label(const json& r) {
  const json& v = member(r, "verdict");
  return v.value("label", "-");
}

std::string controller_sentence(const std::string& name, const json& st) {
  if (!st.is_object()) return {};
  const json& pin = member(st, "packet_in");
  const json& sent = member(st, "sent");
  const json& h = member(member(st, "handling_time"), "packet_in");
  double dropped = num(pin, "dropped");
  std::string s = fmt::format("controller {} handled {:.0f} packet-ins", name, num(pin, "received"));
  if (num(h, "count") > 0)
    s += fmt::format(", median {:.3g} us (p99 {:.3g} us)", num(h, "p50_ns") / 1e3, num(h, "p99_ns") / 1e3);
  s += dropped > 0 ? fmt::format(", {:.0f} dropped", dropped) : ", none dropped";
  s += fmt::format("; sent {:.0f} packet-outs and {:.0f} flow-mods", num(sent, "packet_out"),
                   num(sent, "flow_mod"));
  if (num(sent, "refused") > 0) s += fmt::format(" ({:.0f} sends refused)", num(sent, "refused"));
  return s;
}

// The hub cases' answer in a few rows, before the full summary: TCP's and UDP's
// figure and bound, and the controller's load in each (the comparison's last line).
std::string render_hub_answer(const json& doc) {
  std::string rows;
  for (const auto& c : array_member(doc, "cases")) {
    const json& cmp = array_member(c, "comparison");
    if (cmp.empty()) continue;
    std::string name = c.value("name", ""), tcp, udp;
    for (const auto& r : array_member(doc, "results")) {
      if (r.value("case", "") != name || r.value("status", "") != "ok") continue;
      std::string t = r.value("type", ""), cell = markup_escape(figure(r)) + " — <b>" +
                                                  markup_escape(member(r, "verdict").value("bound", "-")) +
                                                  "</b>";
      if (tcp.empty() && (t == "iperf3-tcp" || t == "iperf2-window")) tcp = cell;
      if (udp.empty() && t == "iperf3-udp") udp = cell;
    }
    std::string ctl = cmp.size() > 1 ? cmp.back().get<std::string>() : "";
    rows += fmt::format("<tr><td><b>{}</b></td><td>{}</td><td>{}</td><td class=\"cmp\">{}</td></tr>",
                        markup_escape(name), tcp, udp, markup_escape(ctl));
  }
  if (rows.empty()) return {};
  return "<h2 id=\"hub\">Through the hub controller: TCP vs UDP</h2><table class=\"hub\"><tr><th>case</th>"
         "<th>TCP</th><th>UDP</th><th>the controller during TCP and UDP</th></tr>" +
         rows + "</table>";
}

std::string render_summary(const json& doc) {
  std::string h =
      render_hub_answer(doc) +
      "<h2 id=\"summary\">Summary</h2><table class=\"summary\"><tr><th>case</th><th>status</th><th>test</th>"
      "<th>figure</th><th>verdict</th></tr>";
  for (const auto& c : array_member(doc, "cases")) {
    std::string name = c.value("name", "");
    std::vector<const json*> rs;
    for (const auto& r : array_member(doc, "results"))
      if (r.value("case", "") == name) rs.push_back(&r);
    size_t rows = std::max<size_t>(1, rs.size());
    std::string st = c.value("status", "?");
    h += fmt::format("<tr><td rowspan=\"{}\"><b>{}</b></td><td rowspan=\"{}\" class=\"{}\">{}</td>", rows,
                     markup_escape(name), rows, markup_escape(st), markup_escape(st));
    if (rs.empty()) h += "<td colspan=\"3\">" + markup_escape(c.value("reason", "")) + "</td></tr>";
    for (size_t i = 0; i < rs.size(); ++i) {
      const json& r = *rs[i];
      const json& v = member(r, "verdict");
      if (i) h += "<tr>";
      std::string bound = v.value("bound", "-"), sentence = v.value("sentence", r.value("reason", ""));
      if (sentence.rfind(bound + ": ", 0) == 0) sentence = sentence.substr(bound.size() + 2);
      std::string test = r.value("test", "");
      if (std::string m = str(r, "machine"); !m.empty()) {  // across machines: where, and the CPU each used
        std::vector<std::string> cpu;
        for (const auto& it : member(r, "cpu_by_machine").items())
          if (it.value().is_number())
            cpu.push_back(fmt::format("{} {:.0f}%", it.key(), it.value().get<double>()));
        test += " (" + m + (cpu.empty() ? "" : fmt::format("; CPU {}", fmt::join(cpu, ", "))) + ")";
      }
      h += fmt::format("<td>{}</td><td>{}</td><td class=\"verdict\"><b>{}</b> — {}</td></tr>",
                       markup_escape(test), markup_escape(figure(r)), markup_escape(bound),
                       markup_escape(sentence));
    }
    std::vector<std::string> notes;
    for (const auto& line : array_member(c, "comparison"))
      if (line.is_string()) notes.push_back(line.get<std::string>());
    for (const auto& it : member(c, "lost_machines").items())  // across machines: what was lost
      if (it.value().is_string())
        notes.push_back("machine " + it.key() + " was lost: " + it.value().get<std::string>());
    if (std::string e = str(c, "etcd_lost"); !e.empty()) notes.push_back(e);
    for (const auto& f : array_member(c, "capture")) {  // each capture file, and who captured it
      if (!f.is_object()) continue;
      std::string file = str(f, "file"), at;
      for (const auto& e : array_member(f, "captured_at"))
        if (e.is_string()) at += (at.empty() ? "" : ", ") + e.get<std::string>();
      std::string by =
          str(f, "machine").empty() ? "" : fmt::format(" by machine {} ({})", str(f, "machine"), at);
      std::string err = str(f, "error").empty() ? "" : ": " + str(f, "error");
      if (!file.empty() || !err.empty())
        notes.push_back(fmt::format("capture {}{}: {} packets{}", file.empty() ? str(f, "link") : file, by,
                                    f.value("packets", uint64_t(0)), err));
    }
    for (const auto& line : notes)
      h += fmt::format("<tr><td></td><td colspan=\"4\" class=\"cmp\">{}</td></tr>", markup_escape(line));
  }
  return h + "</table>";
}

namespace {

// A chart goes into the report only when it has something to draw: a test too
// short for the sampler, or whose processes all idled, gets no empty frame.
void add_chart(std::string& out, const LineChart& chart) {
  if (chart_has_points(chart)) out += render_line_chart(chart);
}

}  // namespace

std::string render_test_charts(const json& r) {
  const json& s = member(r, "samples");
  if (s.empty()) return {};
  std::string label = r.value("case", "") + " / " + r.value("test", "");
  std::vector<ChartEvent> events;
  for (const auto& e : array_member(r, "events"))
    events.push_back({num(e, "t_s"), e.value("label", e.value("what", "event"))});
  std::string out = "<div class=\"charts\">";
  // Throughput: iperf3 intervals and the stream's delivery rate (ss).
  LineChart tp;
  tp.title = "throughput — " + label;
  tp.y_label = "Mbit/s";
  tp.events = events;
  const json& iv = member(s, "intervals");
  if (!iv.empty()) {
    LineSeries a{"iperf3 interval", numbers(iv["t_s"]), numbers(iv["mbps"])};
    tp.series.push_back(a);
  }
  const json& t = member(s, "tcp");
  if (!t.empty()) tp.series.push_back({"ss delivery rate", numbers(t["t_s"]), numbers(t["delivery_mbps"])});
  add_chart(out, tp);
  // The ping and probe streams (sampler.h add_stream_series).
  const json& ping = member(s, "ping");
  if (!ping.empty()) {
    LineChart pc;
    pc.title = "ping RTT per echo — " + label;
    pc.y_label = "RTT (ms)";
    pc.events = events;
    pc.series.push_back({"rtt", numbers(ping["t_s"]), numbers(ping["rtt_ms"])});
    add_chart(out, pc);
  }
  const json& probe = member(s, "probe");
  if (!probe.empty()) {
    LineChart pr;
    pr.title = "probe delivered rate — " + label;
    pr.y_label = "packets/s";
    pr.events = events;
    pr.series.push_back({"delivered", numbers(probe["t_s"]), numbers(probe["delivered_pps"])});
    add_chart(out, pr);
  }
  if (!t.empty()) {
    LineChart cw;
    cw.title = "cwnd and RTT — " + label;
    cw.y_label = "cwnd (segments)";
    cw.y2_label = "RTT (ms)";
    cw.events = events;
    cw.series.push_back({"cwnd", numbers(t["t_s"]), numbers(t["cwnd"])});
    LineSeries rtt{"rtt", numbers(t["t_s"]), numbers(t["rtt_ms"]), true};
    cw.series.push_back(rtt);
    add_chart(out, cw);
  }
  const json& procs = member(s, "procs");
  if (!procs.empty()) {
    LineChart cpu;
    cpu.title = "CPU per process — " + label;
    cpu.y_label = "% of a core";
    cpu.events = events;
    auto ts = numbers(s["t_s"]);
    for (const auto& [name, p] : procs.items()) {
      if (num(p, "max_pct") < 1) continue;  // idle helpers clutter the legend
      auto u = numbers(p["user_pct"]), y = numbers(p["system_pct"]);
      std::vector<double> tot(std::min(u.size(), y.size()));
      for (size_t i = 0; i < tot.size(); ++i) tot[i] = u[i] + y[i];
      cpu.series.push_back({name, ts, tot});
    }
    add_chart(out, cpu);
  }
  return out + "</div>";
}

std::string render_metrics_charts(const json& c) {
  const json& m = member(c, "metrics");
  const json& series = member(m, "series");
  if (series.empty()) return {};
  std::string label = c.value("name", "");
  std::string out = "<div class=\"charts\">";
  const std::pair<const char*, std::vector<std::pair<const char*, const char*>>> charts[] = {
      {"packets/s through each switch (Prometheus)",
       {{"switch_rx_pps", "received"}, {"switch_tx_pps", "sent"}}},
      {"packet-ins/s (Prometheus)",
       {{"switch_packet_ins_per_s", "sent by"}, {"controller_packet_ins_per_s", "handled by"}}},
  };
  for (const auto& [title, parts] : charts) {
    LineChart ch;
    ch.title = std::string(title) + " — " + label;
    ch.y_label = "per second";
    for (const auto& [key, verb] : parts)
      for (const auto& [node, s] : member(series, key).items())
        ch.series.push_back(
            {std::string(verb) + " " + node, numbers(array_member(s, "t_s")), numbers(array_member(s, "v"))});
    add_chart(out, ch);
  }
  out += "</div><p>Prometheus TSDB: <code>" + markup_escape(str(m, "tsdb")) +
         "</code> (browse it: <code>prometheus --storage.tsdb.path=" + markup_escape(str(m, "tsdb")) +
         " --config.file=" + markup_escape(str(m, "config")) + "</code>)</p>";
  for (const auto& e : array_member(m, "errors"))
    if (e.is_string()) out += "<p>metrics: " + markup_escape(e.get<std::string>()) + "</p>";
  return out;
}

}  // namespace flowlab::lab

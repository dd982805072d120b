// Terminal table and self-contained HTML report (inline CSS and SVG bar charts, no
// scripts, no network) rendered from the results.json document.
#include "lab/report/report.h"

#include <fmt/ranges.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include "lab/format/json_access.h"
#include "lab/format/svg_chart.h"
#include "lab/report/repeat.h"
#include "lab/report/report_parts.h"
#include "lab/report/topology_svg.h"
#include "lab/traffic/pingall.h"
#include "lab/traffic/probe_test.h"

namespace flowlab::lab {

using nlohmann::json;

std::vector<std::string> headline_metrics(const json& r) {
  std::string type = r.value("type", "");
  if (type == "ping") return {"rtt_avg_ms", "loss_pct"};
  if (type == "pingall") return {"pairs_reached", "dropped_pct", "rtt_avg_ms"};
  if (type == "iperf3-tcp") return {"gbps", "retransmits", "rtt_ms"};
  if (type == "iperf3-udp") return {"gbps", "loss_pct", "jitter_ms"};
  if (type == "tcp-rr") return {"rtt_avg_us", "transactions_per_s"};
  if (type == "probe") return {"loss_pct", "lost", "max_recovery_s", "owd_avg_ms"};
  if (type == "iperf2-window") {
    std::vector<std::string> m;
    for (const auto& [k, v] : member(r, "metrics").items())
      if (k.rfind("gbps_", 0) == 0) m.push_back(k);
    return m;
  }
  return {};
}

namespace {

// Test names in scenario order, case names in run order.
std::vector<std::string> ordered(const json& doc, const char* field) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  if (std::string(field) == "case")
    for (const auto& c : array_member(doc, "cases"))
      if (seen.insert(c.value("name", "")).second) out.push_back(c.value("name", ""));
  for (const auto& r : array_member(doc, "results"))
    if (seen.insert(r.value(field, "")).second) out.push_back(r.value(field, ""));
  return out;
}

const json* find_result(const json& doc, const std::string& cs, const std::string& test) {
  for (const auto& r : array_member(doc, "results"))
    if (r.value("case", "") == cs && r.value("test", "") == test) return &r;
  return nullptr;
}

std::optional<double> metric(const json* r, const std::string& m) {
  if (!r || r->value("status", "") != "ok") return std::nullopt;
  const json& ms = member(*r, "metrics");
  if (!ms.contains(m) || !ms[m].is_number()) return std::nullopt;
  return ms[m].get<double>();
}

std::string fmt_value(double v) {
  if (v == 0) return "0";
  if (v == std::floor(v) && std::abs(v) < 1e12) return fmt::format("{:.0f}", v);
  if (std::abs(v) >= 100) return fmt::format("{:.0f}", v);
  if (std::abs(v) >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

// Headline metrics of a test, from whichever case produced them.
std::vector<std::string> test_metrics(const json& doc, const std::string& test) {
  std::vector<std::string> ms;
  for (const auto& r : array_member(doc, "results")) {
    if (r.value("test", "") != test) continue;
    for (const auto& m : headline_metrics(r))
      if (std::find(ms.begin(), ms.end(), m) == ms.end()) ms.push_back(m);
  }
  if (ms.empty())
    for (const auto& r : array_member(doc, "results"))
      if (r.value("test", "") == test) return headline_metrics(r);
  return ms;
}

std::string status_cell(const json* r) {
  if (!r) return "-";
  return r->value("status", "?");
}

// One horizontal bar chart: a bar per case.
std::string svg_chart(const json& doc, const std::string& test, const std::string& m,
                      const std::vector<std::string>& cases) {
  double mx = 0;
  for (const auto& c : cases)
    if (auto v = metric(find_result(doc, c, test), m)) mx = std::max(mx, *v);
  const int row = 26, label_w = 190, bar_w = 420;
  int h = int(cases.size()) * row + 30;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"{} "
      "{}\">"
      "<text x=\"0\" y=\"14\" class=\"t\">{} — {}</text>",
      label_w + bar_w + 110, h, markup_escape(test), markup_escape(m), markup_escape(test), markup_escape(m));
  int y = 24;
  int i = 0;
  static const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759",
                                  "#76b7b2", "#edc948", "#b07aa1"};
  for (const auto& c : cases) {
    const json* r = find_result(doc, c, test);
    auto v = metric(r, m);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" class=\"l\">{}</text>", label_w - 6, y + 15,
                     markup_escape(c));
    if (v) {
      int w = mx > 0 ? std::max(1, int(*v / mx * bar_w)) : 1;
      s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", label_w, y + 2, w,
                       row - 6, kColors[i % 7]);
      s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"v\">{}</text>", label_w + w + 5, y + 15,
                       fmt_value(*v));
    } else {
      s += fmt::format("<text x=\"{}\" y=\"{}\" class=\"na\">{}</text>", label_w + 4, y + 15,
                       markup_escape(status_cell(r)));
    }
    y += row;
    ++i;
  }
  return s + "</svg>";
}

}  // namespace

std::string render_table(const json& doc) {
  auto cases = ordered(doc, "case");
  auto tests = ordered(doc, "test");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"test / metric"};
  head.insert(head.end(), cases.begin(), cases.end());
  rows.push_back(head);
  for (const auto& t : tests) {
    for (const auto& m : test_metrics(doc, t)) {
      std::vector<std::string> row = {t + " " + m};
      std::optional<double> base;
      for (size_t i = 0; i < cases.size(); ++i) {
        const json* r = find_result(doc, cases[i], t);
        auto v = metric(r, m);
        if (i == 0) base = v;
        if (!v) {
          row.push_back(status_cell(r));
        } else {
          std::string cell = fmt_value(*v);
          if (auto rg = metric_range(*r, m); rg && rg->first != rg->second)
            cell += fmt::format(" [{}-{}]", fmt_value(rg->first), fmt_value(rg->second));
          const json* r0 = find_result(doc, cases[0], t);
          if (i > 0 && base && *base != 0)
            cell += fmt::format(" (x{:.2f}{})", *v / *base,
                                r0 && within_spread(*r0, *r, m) ? ", within spread" : "");
          row.push_back(cell);
        }
      }
      rows.push_back(row);
    }
    std::vector<std::string> vrow = {t + " verdict"};
    for (const auto& c : cases) {
      const json* r = find_result(doc, c, t);
      vrow.push_back(r ? verdict_label(*r) : "-");
    }
    rows.push_back(vrow);
    std::vector<std::string> mrow = {t + " machine"};  // across machines: where its ends ran
    bool placed = false;
    for (const auto& c : cases) {
      const json* r = find_result(doc, c, t);
      std::string m = r ? str(*r, "machine") : "";
      placed = placed || !m.empty();
      mrow.push_back(m.empty() ? "-" : m);
    }
    if (placed) rows.push_back(mrow);
    std::vector<std::string> crow = {t + " cpu/machine"};  // across machines: % of a core on each
    bool sampled = false;
    for (const auto& c : cases) {
      const json* r = find_result(doc, c, t);
      std::vector<std::string> parts;
      if (r)
        for (const auto& it : member(*r, "cpu_by_machine").items())
          if (it.value().is_number())
            parts.push_back(fmt::format("{} {:.0f}%", it.key(), it.value().get<double>()));
      sampled = sampled || !parts.empty();
      crow.push_back(parts.empty() ? "-" : fmt::format("{}", fmt::join(parts, " ")));
    }
    if (sampled) rows.push_back(crow);
  }
  std::vector<size_t> width(head.size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::string out = fmt::format("\n{} — ratios against the first case ({})\n",
                                member(doc, "scenario").value("name", "?"), cases.empty() ? "-" : cases[0]);
  for (size_t k = 0; k < rows.size(); ++k) {
    for (size_t i = 0; i < rows[k].size(); ++i)
      out += fmt::format("{:<{}}{}", rows[k][i], width[i], i + 1 < rows[k].size() ? "  " : "\n");
    if (k == 0) {
      size_t total = 0;
      for (auto w : width) total += w + 2;
      out += std::string(total - 2, '-') + "\n";
    }
  }
  // Why: skipped/failed cases and the explanations, short.
  for (const auto& c : array_member(doc, "cases")) {
    std::string st = c.value("status", "?");
    if (st != "ok")
      out += fmt::format("case {}: {}{}{}\n", c.value("name", ""), st, c.contains("reason") ? ": " : "",
                         c.value("reason", ""));
    for (const auto& e : c.value("explain", json::array()))
      out += fmt::format("{}: {}\n", c.value("name", ""), e.get<std::string>());
  }
  for (const auto& r : array_member(doc, "results")) out += render_pingall_text(r);
  for (const auto& r : array_member(doc, "results")) {
    if (r.value("status", "") == "failed" && r.contains("reason") &&
        r.value("reason", "").rfind("setup:", 0) != 0)
      out += fmt::format("{} / {}: failed: {}\n", r.value("case", ""), r.value("test", ""),
                         r.value("reason", ""));
    for (const auto& e : r.value("explain", json::array()))
      out += fmt::format("{} / {}: {}\n", r.value("case", ""), r.value("test", ""), e.get<std::string>());
  }
  return out;
}

std::string render_html(const json& doc) {
  auto cases = ordered(doc, "case");
  auto tests = ordered(doc, "test");
  const json& sc = member(doc, "scenario");  // operator[] on a const json: undefined when missing
  std::string h =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>flowlab lab: " +
      markup_escape(sc.value("name", "")) +
      "</title><style>"
      "body{font-family:system-ui,sans-serif;margin:2em;max-width:1100px;color:#222}"
      "table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:3px 8px;"
      "text-align:left;vertical-align:top;font-size:14px}th{background:#f3f3f3}"
      "svg .t{font:bold 13px sans-serif}svg .l,svg .v{font:12px sans-serif}svg .na{font:italic 12px "
      "sans-serif;"
      "fill:#a33}.ok{color:#275}.failed{color:#a33}.skipped{color:#888}ul.ex{margin:.2em 0 1em;color:#333}"
      "div.charts{display:flex;flex-wrap:wrap;gap:8px;margin:.5em 0 1em}td.cmp{color:#225;background:#f4f7ff}"
      "pre{background:#f7f7f7;padding:.5em;overflow:auto;max-height:300px;font-size:12px}"
      "svg.topo .l{font:12px sans-serif}svg.topo .lp{font:10px sans-serif;fill:#555}"
      "table.pingall td,table.pingall th{font-size:11px;padding:1px 4px}"
      "</style></head><body>";
  h += fmt::format("<h1>{}</h1><p>{}</p><p>file <code>{}</code>, run <code>{}</code>, {} → {}{}</p>",
                   markup_escape(sc.value("name", "")), markup_escape(sc.value("description", "")),
                   markup_escape(sc.value("file", "")), markup_escape(doc.value("run_id", "")),
                   markup_escape(doc.value("started_at", "")), markup_escape(doc.value("finished_at", "")),
                   doc.value("quick", false) ? " (quick mode)" : "");
  h += render_summary(doc);
  h += "<h2>Cases</h2><table><tr><th>case</th><th>status</th><th>switches</th><th>controllers</"
       "th><th>offloads</th>"
       "<th>explanation</th></tr>";
  for (const auto& c : array_member(doc, "cases")) {
    std::string sw, ct, ex;
    for (const auto& [n, s] : member(c, "switches").items())
      sw += fmt::format("{}: {}{}<br>", n, s.value("kind", ""),
                        s.value("security_group", false) ? " + iptables SG" : "");
    for (const auto& [n, s] : member(c, "controllers").items()) {
      bool used = false;  // a case shows only the controllers its switches use
      for (const auto& [sn, sw] : member(c, "switches").items())
        used |= sw.value("controller", "") == n && sw.value("kind", "") != "linux-bridge";
      if (!used) continue;
      std::string what = s.value("kind", "");
      for (const auto& a : s.value("apps", json::array())) what += " " + a.get<std::string>();
      if (!s.value("app_file", "").empty()) what += " " + s.value("app_file", "");
      ct += markup_escape(n + ": " + what) + "<br>";
    }
    for (const auto& e : c.value("explain", json::array()))
      ex += "<li>" + markup_escape(e.get<std::string>()) + "</li>";
    std::string st = c.value("status", "?");
    h += fmt::format(
        "<tr><td>{}</td><td class=\"{}\">{}{}</td><td>{}</td><td>{}</td><td>{}</td><td><ul class=\"ex\">{}"
        "</ul></td></tr>",
        markup_escape(c.value("name", "")), st, st,
        c.contains("reason") ? ": " + markup_escape(c.value("reason", "")) : "", sw, ct,
        c.value("offloads", true) ? "on" : "off", ex);
  }
  h += "</table>";
  if (doc.contains("topology")) {
    // One picture per case: the same network, its switch kinds and measured link load.
    h += "<h2>Topology</h2>";
    bool first = true;
    for (const auto& c : array_member(doc, "cases")) {
      json topo = doc["topology"];
      for (auto& sw : topo["switches"])
        if (c.contains("switches") && c["switches"].contains(sw.value("name", "")))
          sw["kind"] = c["switches"][sw.value("name", "")].value("kind", "");
      std::string svg = render_topology_svg(topo, c);
      if (svg.empty()) continue;
      h += first ? "<p>case " + markup_escape(c.value("name", "")) + "</p>" + svg
                 : "<details><summary>case " + markup_escape(c.value("name", "")) + "</summary>" + svg +
                       "</details>";
      first = false;
    }
  }
  std::string metrics_html;
  for (const auto& c : array_member(doc, "cases")) metrics_html += render_metrics_charts(c);
  if (!metrics_html.empty()) h += "<h2>Metrics</h2>" + metrics_html;
  for (const auto& t : tests) {
    h += "<h2>" + markup_escape(t) + "</h2>";
    for (const auto& m : test_metrics(doc, t)) h += svg_chart(doc, t, m, cases) + "<br>";
    h += "<table><tr><th>case</th><th>status</th><th>measured</th><th>explanation</th></tr>";
    for (const auto& c : cases) {
      const json* r = find_result(doc, c, t);
      if (!r) continue;
      std::string ms, ex;
      std::string matrix = render_pingall_html(*r);
      ms = markup_escape(metrics_sentence(*r));
      for (const auto& e : r->value("explain", json::array()))
        ex += "<li>" + markup_escape(e.get<std::string>()) + "</li>";
      std::string st = r->value("status", "?");
      h += fmt::format("<tr><td>{}</td><td class=\"{}\">{}{}</td><td>{}</td><td><ul class=\"ex\">{}</ul>",
                       markup_escape(c), st, st,
                       r->contains("reason") ? ": " + markup_escape(r->value("reason", "")) : "", ms, ex);
      h += probe_report_html(*r);  // timeline SVG + events with recovery times
      if (!r->value("raw", "").empty())
        h += "<details><summary>raw output</summary><pre>" + markup_escape(r->value("command", "")) + "\n\n" +
             markup_escape(r->value("raw", "").substr(0, 20000)) + "</pre></details>";
      if (!matrix.empty())
        h += "<details open><summary>loss and RTT per pair</summary>" + matrix + "</details>";
      h += "</td></tr>";
    }
    h += "</table>";
    for (const auto& c : cases)
      if (const json* r = find_result(doc, c, t)) h += render_test_charts(*r);
  }
  // The raw dumps behind the sentences above, folded: for whoever wants to check them.
  h += "<h2>Raw counters</h2><p>What the sentences above were made from, as the switches and "
       "controllers reported it.</p>";
  for (const auto& c : array_member(doc, "cases")) {
    if (!c.contains("switch_counters") && !c.contains("offload_state")) continue;
    h += "<details><summary>" + markup_escape(c.value("name", "")) + "</summary>";
    for (const auto& [n, st] : member(c, "controller_stats").items())
      h += "<p>" + markup_escape(controller_sentence(n, st)) + "</p>";
    for (const auto& [n, s] : member(c, "switch_counters").items())
      for (const auto& [k, v] : s.items())
        if (v.is_string() && k != "kind")
          h += "<p>" + markup_escape(n + " " + k) + "</p><pre>" + markup_escape(v.get<std::string>()) +
               "</pre>";
    if (c.contains("controller_stats"))
      h += "<p>controller stats</p><pre>" + markup_escape(c["controller_stats"].dump(2)) + "</pre>";
    if (c.contains("offload_state"))
      h += "<p>offload state (ethtool -k)</p><pre>" + markup_escape(c["offload_state"].dump(2)) + "</pre>";
    h += "</details>";
  }
  return h + "</body></html>\n";
}

Status write_html_report(const std::string& dir, const json& doc) {
  std::ofstream out(dir + "/report.html");
  if (!out) return fail("cannot write {}/report.html", dir);
  out << render_html(doc);
  return ok_status();
}

}  // namespace flowlab::lab

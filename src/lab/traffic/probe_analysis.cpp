// Probe analysis and its timeline chart (see probe_analysis.h).
#include "lab/traffic/probe_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "lab/format/svg_chart.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

double pct_of(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

std::string link_name(const json& e) {
  if (!e.contains("link")) return e.value("node", "?");
  return e["link"][0].get<std::string>() + "-" + e["link"][1].get<std::string>();
}

}  // namespace

json analyze_probe(const ProbeRun& run, const json& events) {
  const uint64_t n = run.sent;
  const double iv = double(run.interval_ns);
  std::vector<int64_t> recv_at(n, -1);  // first arrival per sequence number
  uint64_t dup = 0, reordered = 0;
  int64_t max_seq = -1;
  std::vector<double> owd;
  for (const auto& a : run.arrivals) {
    if (a.seq >= n) continue;
    if (recv_at[a.seq] >= 0) {
      ++dup;
      continue;
    }
    recv_at[a.seq] = int64_t(a.recv_ns);
    if (int64_t(a.seq) < max_seq) ++reordered;
    max_seq = std::max<int64_t>(max_seq, a.seq);
    owd.push_back(double(a.recv_ns - a.send_ns) / 1e6);
  }
  uint64_t delivered =
      uint64_t(std::count_if(recv_at.begin(), recv_at.end(), [](int64_t t) { return t >= 0; }));
  double owd_sum = 0;
  for (double d : owd) owd_sum += d;
  json out;
  out["offered_pps"] = 1e9 / iv;
  auto& m = out["metrics"];
  m["sent"] = n;
  m["delivered"] = delivered;
  m["lost"] = n - delivered;
  m["loss_pct"] = n ? 100.0 * double(n - delivered) / double(n) : 0.0;
  m["duplicates"] = dup;
  m["reordered"] = reordered;
  if (!owd.empty()) {
    m["owd_avg_ms"] = owd_sum / double(owd.size());
    m["owd_p50_ms"] = pct_of(owd, 0.5);
    m["owd_p99_ms"] = pct_of(owd, 0.99);
    m["owd_min_ms"] = owd.front();
    m["owd_max_ms"] = owd.back();
  }
  // Sequence number due at monotonic time t (the first sent at or after t).
  auto seq_at = [&](int64_t t) -> uint64_t {
    if (t <= int64_t(run.start_ns)) return 0;
    return std::min<uint64_t>(n, uint64_t(std::ceil(double(t - int64_t(run.start_ns)) / iv)));
  };
  auto rel_s = [&](int64_t t) { return double(t - int64_t(run.start_ns)) / 1e9; };
  // A packet sent shortly before an event may still be on its way when it fires.
  int64_t lookback = int64_t(m.value("owd_p50_ms", 0.0) * 1e6 + 2 * iv);
  std::vector<json> evs;
  if (events.is_array())
    for (const auto& e : events)
      if (e.is_object() && e.value("status", "") != "not fired" && e.contains("fired_ns")) evs.push_back(e);
  out["events"] = json::array();
  for (size_t i = 0; i < evs.size(); ++i) {
    const json& e = evs[i];
    int64_t t = e["fired_ns"].get<int64_t>();
    int64_t t_next = i + 1 < evs.size() ? evs[i + 1]["fired_ns"].get<int64_t>()
                                        : int64_t(run.start_ns + uint64_t(double(n) * iv));
    uint64_t from = seq_at(t - lookback), to = std::max(from, seq_at(t_next));
    json r = e;
    r.erase("fired_ns");
    uint64_t lost_window = 0;
    int64_t first_lost = -1;
    for (uint64_t s = from; s < to; ++s)
      if (recv_at[s] < 0) {
        ++lost_window;
        if (first_lost < 0) first_lost = int64_t(s);
      }
    r["lost_in_window"] = lost_window;
    r["loss_pct_in_window"] = to > from ? 100.0 * double(lost_window) / double(to - from) : 0.0;
    r["window_packets"] = to - from;
    auto first_delivered_from = [&](uint64_t s0) -> int64_t {
      for (uint64_t s = s0; s < n; ++s)
        if (recv_at[s] >= 0) return int64_t(s);
      return -1;
    };
    std::string what = e.value("do", "");
    if (what == "up" || what == "start") {
      // A repair: how long until a packet sent after it arrives.
      uint64_t s0 = seq_at(t);
      int64_t fd = first_delivered_from(s0);
      r["recovered"] = fd >= 0;
      r["lost"] = (fd < 0 ? int64_t(n) : fd) - int64_t(s0);
      if (fd >= 0) {
        r["first_delivered_seq"] = fd;
        r["first_delivered_at_s"] = rel_s(recv_at[size_t(fd)]);
        r["recovery_s"] = double(recv_at[size_t(fd)] - t) / 1e9;
      }
    } else if (first_lost < 0) {
      r["lost"] = 0;
      r["recovery_s"] = 0.0;
      r["recovered"] = true;
    } else {
      // A fault: the first packet it cost, and the first delivered after that.
      r["first_lost_seq"] = first_lost;
      r["first_lost_at_s"] = double(first_lost) * iv / 1e9;
      int64_t fd = first_delivered_from(uint64_t(first_lost) + 1);
      r["lost"] = (fd < 0 ? int64_t(n) : fd) - first_lost;
      r["recovered"] = fd >= 0;
      if (fd >= 0) {
        r["first_delivered_seq"] = fd;
        r["first_delivered_at_s"] = rel_s(recv_at[size_t(fd)]);
        r["recovery_s"] = double(recv_at[size_t(fd)] - t) / 1e9;
      }
    }
    out["events"].push_back(r);
  }
  // Delivered rate: arrivals per bin (about 200 bins over the run, at least 10 packets' worth).
  double dur_s = double(n) * iv / 1e9;
  double bin = std::max({dur_s / 200, 10 * iv / 1e9, 0.001});
  size_t bins = size_t(std::ceil(dur_s / bin)) + 1;
  std::vector<uint64_t> count(bins, 0);
  for (int64_t ta : recv_at)
    if (ta >= 0) {
      double x = rel_s(ta);
      if (x >= 0) count[std::min(bins - 1, size_t(x / bin))]++;
    }
  json ts = json::array(), pps = json::array();
  for (size_t b = 0; b < bins; ++b) {
    ts.push_back(double(b) * bin);
    pps.push_back(double(count[b]) / bin);
  }
  out["series"] = {{"bin_s", bin}, {"t_s", ts}, {"delivered_pps", pps}};
  out["duration_s"] = dur_s;
  return out;
}

std::vector<std::string> explain_probe(const json& a,
                                       const std::map<std::string, std::vector<std::string>>& cs) {
  std::vector<std::string> out;
  const auto& evs = a.value("events", json::array());
  for (size_t i = 0; i < evs.size(); ++i) {
    const json& e = evs[i];
    std::string what = e.value("do", ""), label = e.value("label", "");
    std::string when = fmt::format("{:.3f} s", e.value("fired_at_s", 0.0));
    if (e.value("status", "") == "failed") {
      out.push_back(fmt::format("{} (fired at {}) failed: {}", label, when, e.value("error", "")));
      continue;
    }
    int64_t lost = e.value("lost_in_window", int64_t(0));
    std::string next = i + 1 < evs.size() ? evs[i + 1].value("label", "") : "the end of the probe";
    if (what == "kill") {
      std::string node = e.value("node", "");
      auto it = cs.find(node);
      std::string sw;
      if (it != cs.end())
        for (const auto& s : it->second) sw += (sw.empty() ? "" : ", ") + s;
      if (lost == 0 && it != cs.end())
        out.push_back(
            fmt::format("{} kept forwarding on its flows while {} was down (fail-secure): 0 of {} "
                        "packets lost between {} and {}",
                        sw, node, e.value("window_packets", 0), label, next));
      else if (lost == 0)
        out.push_back(fmt::format("{}: no packet lost until {}", label, next));
      else
        out.push_back(fmt::format(
            "{}: {} packets lost until {} ({:.1f}%){}", label, lost, next, e.value("loss_pct_in_window", 0.0),
            e.value("recovered", false)
                ? fmt::format("; delivery resumed {:.3f} s after the kill", e.value("recovery_s", 0.0))
                : "; delivery did not resume before the end"));
      continue;
    }
    if (what == "set") {
      double want = e.contains("set") ? e["set"].value("loss_pct", -1.0) : -1.0;
      out.push_back(fmt::format("{}: {:.2f}% of the {} packets after it lost{}", label,
                                e.value("loss_pct_in_window", 0.0), e.value("window_packets", 0),
                                want >= 0 ? fmt::format(" (loss set to {:g}%)", want) : ""));
      continue;
    }
    if (what == "up" || what == "start") {
      std::string back = what == "up" ? fmt::format("link {} carried traffic again", link_name(e))
                                      : fmt::format("{} was back", e.value("node", ""));
      out.push_back(
          e.value("recovered", false)
              ? fmt::format("{} (fired at {}): {} {:.3f} s later: first packet sent after it to arrive "
                            "#{} at {:.3f} s ({} lost in between)",
                            label, when, back, e.value("recovery_s", 0.0), e.value("first_delivered_seq", 0),
                            e.value("first_delivered_at_s", 0.0), e.value("lost", 0))
              : fmt::format("{} (fired at {}): no packet sent after it arrived before the end", label, when));
      continue;
    }
    if (!e.contains("first_lost_seq")) {
      out.push_back(fmt::format("{} (fired at {}): no packet lost until {}", label, when, next));
      continue;
    }
    std::string tail =
        e.value("recovered", false)
            ? fmt::format("first delivered after it #{} at {:.3f} s: recovery {:.3f} s after the event",
                          e.value("first_delivered_seq", 0), e.value("first_delivered_at_s", 0.0),
                          e.value("recovery_s", 0.0))
            : std::string("no packet delivered after it before the end");
    out.push_back(fmt::format("{} (fired at {}): first lost packet #{} (due at {:.3f} s), {} lost; {}", label,
                              when, e.value("first_lost_seq", 0), e.value("first_lost_at_s", 0.0),
                              e.value("lost", 0), tail));
  }
  return out;
}

std::string probe_timeline_svg(const json& a, const std::string& title) {
  constexpr double W = 760, H = 230, L = 60, R = 20, T = 28, B = 36;
  const auto& ser = a.value("series", json::object());
  auto ts = ser.value("t_s", json::array());
  auto pps = ser.value("delivered_pps", json::array());
  double dur = std::max(a.value("duration_s", 1.0), 1e-3);
  double ymax = a.value("offered_pps", 1.0);
  for (const auto& v : pps) ymax = std::max(ymax, v.get<double>());
  ymax *= 1.1;
  auto x = [&](double t) { return L + (W - L - R) * std::clamp(t / dur, 0.0, 1.0); };
  auto y = [&](double v) { return T + (H - T - B) * (1 - v / ymax); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" role=\"img\" "
      "aria-label=\"{}\"><text class=\"t\" x=\"{}\" y=\"16\">{}</text>",
      W, H, markup_escape(title), L, markup_escape(title));
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", L, T, H - B);
  s += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>", L, H - B, W - R);
  for (int k = 0; k <= 4; ++k) {
    double v = ymax / 1.1 * k / 4;
    s += fmt::format("<text class=\"l\" x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"end\">{:.0f}</text>", L - 4,
                     y(v) + 4, v);
    double t = dur * k / 4;
    s += fmt::format("<text class=\"l\" x=\"{:.0f}\" y=\"{:.0f}\" text-anchor=\"middle\">{:.3g} s</text>",
                     x(t), H - B + 16, t);
  }
  s += fmt::format("<text class=\"l\" x=\"4\" y=\"{}\">pkt/s</text>", T - 6);
  std::string pts;
  for (size_t i = 0; i < ts.size() && i < pps.size(); ++i)
    pts += fmt::format("{:.1f},{:.1f} ", x(ts[i].get<double>()), y(pps[i].get<double>()));
  s += "<polyline fill=\"none\" stroke=\"#2a6\" stroke-width=\"1.5\" points=\"" + pts + "\"/>";
  int k = 0;
  for (const auto& e : a.value("events", json::array())) {
    double t = e.value("fired_at_s", e.value("at_s", 0.0));
    double ex = x(t);
    s += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c33\" "
        "stroke-dasharray=\"4,3\"/>",
        ex, T, H - B);
    std::string lab = e.value("do", "") + " " + link_name(e);
    if (e.contains("recovery_s") && e.value("lost", 0) > 0)
      lab += fmt::format(" ({:.3g} s)", e.value("recovery_s", 0.0));
    s += fmt::format("<text class=\"l\" x=\"{:.1f}\" y=\"{}\" fill=\"#c33\">{}</text>", ex + 3,
                     T + 12 + 13 * (k++ % 4), markup_escape(lab));
  }
  return s + "</svg>";
}

}  // namespace flowlab::lab

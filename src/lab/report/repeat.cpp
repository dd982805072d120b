// Aggregating repeats and diffing runs (see repeat.h).
#include "lab/report/repeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "lab/format/json_access.h"
#include "lab/report/report.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string key_of(const json& r) { return r.value("case", "") + "\x1f" + r.value("test", ""); }

std::string fmt_num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

json aggregate_repeats(const json& results) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<const json*>> groups;
  static const json kNone = json::array();
  const json& all = results.is_array() ? results : kNone;  // a reference: groups point into it
  for (const auto& r : all) {
    auto k = key_of(r);
    if (!groups.count(k)) order.push_back(k);
    groups[k].push_back(&r);
  }
  json out = json::array();
  for (const auto& k : order) {
    const auto& g = groups[k];
    std::vector<const json*> ok;
    for (const json* r : g)
      if (r->value("status", "") == "ok") ok.push_back(r);
    if (ok.empty()) {  // every repeat failed or was skipped: keep the first as it is
      json r = *g.front();
      r["repeats"] = g.size();
      r.erase("repeat");
      out.push_back(r);
      continue;
    }
    // Medians and spread of every numeric metric the ok repeats share.
    json metrics = json::object(), spread = json::object();
    for (const auto& [m, v] : member(*ok.front(), "metrics").items()) {
      if (!v.is_number()) {
        metrics[m] = v;
        continue;
      }
      std::vector<double> vals;
      for (const json* r : ok)
        if (const json& mm = member(*r, "metrics"); mm.contains(m) && mm[m].is_number())
          vals.push_back(mm[m].get<double>());
      metrics[m] = median(vals);
      spread[m] = {{"min", *std::min_element(vals.begin(), vals.end())},
                   {"max", *std::max_element(vals.begin(), vals.end())},
                   {"values", vals}};
    }
    // The representative repeat: closest to the median of the first headline metric.
    auto heads = headline_metrics(*ok.front());
    const json* rep = ok.front();
    if (!heads.empty() && metrics.contains(heads[0]) && metrics[heads[0]].is_number()) {
      double med = metrics[heads[0]].get<double>(), best = INFINITY;
      for (const json* r : ok) {
        double d = std::abs(num(member(*r, "metrics"), heads[0].c_str()) - med);
        if (d < best) {
          best = d;
          rep = r;
        }
      }
    }
    json r = *rep;
    r.erase("repeat");
    r["metrics"] = metrics;
    r["spread"] = spread;
    r["repeats"] = g.size();
    r["repeats_ok"] = ok.size();
    r["representative_repeat"] = rep->value("repeat", 0);
    out.push_back(r);
  }
  return out;
}

std::optional<std::pair<double, double>> metric_range(const json& r, const std::string& m) {
  const json& s = member(member(r, "spread"), m.c_str());
  if (s.contains("min") && s.contains("max")) return std::make_pair(num(s, "min"), num(s, "max"));
  const json& mm = member(r, "metrics");
  if (mm.contains(m) && mm[m].is_number()) return std::make_pair(mm[m].get<double>(), mm[m].get<double>());
  return std::nullopt;
}

bool within_spread(const json& a, const json& b, const std::string& m) {
  if (!member(a, "spread").contains(m) && !member(b, "spread").contains(m)) return false;
  auto ra = metric_range(a, m), rb = metric_range(b, m);
  return ra && rb && ra->first <= rb->second && rb->first <= ra->second;
}

std::string diff_results(const json& o, const json& n) {
  std::map<std::string, const json*> old_by;
  for (const auto& r : array_member(o, "results")) old_by[key_of(r)] = &r;
  std::string out, same;
  int moved = 0, changed = 0, steady = 0;
  bool any_spread = false;
  for (const auto& r : array_member(n, "results")) {
    auto it = old_by.find(key_of(r));
    std::string label = r.value("case", "") + " / " + r.value("test", "");
    if (it == old_by.end()) {
      out += fmt::format("{}: new (not in the old run)\n", label);
      continue;
    }
    const json& a = *it->second;
    if (a.value("status", "") != r.value("status", ""))
      out += fmt::format("{}: status {} -> {}\n", label, a.value("status", "?"), r.value("status", "?"));
    for (const auto& m : headline_metrics(r)) {
      auto ra = metric_range(a, m), rb = metric_range(r, m);
      if (!ra || !rb) continue;
      any_spread |= member(a, "spread").contains(m) || member(r, "spread").contains(m);
      double va = num(member(a, "metrics"), m.c_str()), vb = num(member(r, "metrics"), m.c_str());
      bool overlap = ra->first <= rb->second && rb->first <= ra->second;
      std::string ranges = fmt::format("[{}-{}] -> [{}-{}]", fmt_num(ra->first), fmt_num(ra->second),
                                       fmt_num(rb->first), fmt_num(rb->second));
      if (overlap) {
        ++steady;
        continue;
      }
      ++moved;
      out += fmt::format("{} {}: {} -> {} ({}{:.0f}%), beyond the spread {}\n", label, m, fmt_num(va),
                         fmt_num(vb), vb >= va ? "+" : "", va != 0 ? (vb - va) / std::abs(va) * 100 : 0.0,
                         ranges);
    }
    std::string vo = member(a, "verdict").value("bound", ""), vn = member(r, "verdict").value("bound", "");
    if (vo != vn) {
      ++changed;
      out += fmt::format("{}: verdict {} -> {}: {}\n", label, vo.empty() ? "none" : vo,
                         vn.empty() ? "none" : vn, member(r, "verdict").value("sentence", ""));
    }
  }
  for (const auto& [k, a] : old_by) {
    bool found = false;
    for (const auto& r : array_member(n, "results")) found |= key_of(r) == k;
    if (!found)
      out += fmt::format("{} / {}: gone (only in the old run)\n", a->value("case", ""), a->value("test", ""));
  }
  out += fmt::format(
      "{} figure(s) moved beyond their spread, {} within it; {} verdict(s) changed{}\n", moved, steady,
      changed, any_spread ? "" : " (no spread recorded: single runs, so any change counts; use --repeat N)");
  return out;
}

Result<json> load_results(const std::string& path) {
  std::string file = std::filesystem::is_directory(path) ? path + "/results.json" : path;
  std::ifstream in(file);
  if (!in) return fail("{}: cannot open", file);
  json j = json::parse(in, nullptr, false);
  if (!j.is_object() || !j.contains("results") || !j["results"].is_array())
    return fail("{}: not a flowlab lab results.json (no results[])", file);
  return j;
}

}  // namespace flowlab::lab

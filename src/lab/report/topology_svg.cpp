// Layered SVG drawing of a lab topology (see topology_svg.h).
#include "lab/report/topology_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>

#include "lab/format/json_access.h"
#include "lab/format/svg_chart.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

constexpr double kMinColouredGbps = 0.001;

std::string node_of(const std::string& endpoint) { return endpoint.substr(0, endpoint.find(':')); }

struct Graph {
  std::vector<std::string> names;
  std::map<std::string, size_t> index;
  std::vector<bool> is_switch;
  std::vector<std::vector<size_t>> adj;

  size_t add(const std::string& n, bool sw) {
    auto [it, fresh] = index.emplace(n, names.size());
    if (fresh) {
      names.push_back(n);
      is_switch.push_back(sw);
      adj.emplace_back();
    }
    return it->second;
  }
};

// BFS distances from `from`; -1 where unreachable. `switches_only` walks switch links only.
std::vector<int> bfs(const Graph& g, size_t from, bool switches_only, std::vector<size_t>* order = nullptr) {
  std::vector<int> d(g.names.size(), -1);
  std::deque<size_t> q{from};
  d[from] = 0;
  while (!q.empty()) {
    size_t u = q.front();
    q.pop_front();
    if (order) order->push_back(u);
    for (size_t v : g.adj[u]) {
      if (d[v] >= 0 || (switches_only && !g.is_switch[v])) continue;
      d[v] = d[u] + 1;
      q.push_back(v);
    }
  }
  return d;
}

// Colour from blue (light load) to red (the busiest link of the case).
std::string load_colour(double frac) {
  frac = std::clamp(frac, 0.0, 1.0);
  int r = int(0x4e + (0xe1 - 0x4e) * frac), g = int(0x79 + (0x57 - 0x79) * frac),
      b = int(0xa7 + (0x59 - 0xa7) * frac);
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

}  // namespace

std::string render_topology_svg(const json& topo, const json& case_rec) {
  if (!topo.is_object() || !topo.contains("links")) return {};
  Graph g;
  std::map<std::string, std::string> label;  // second line under a node
  for (const auto& s : topo.value("switches", json::array())) {
    label[s.value("name", "")] = s.value("kind", "");
    g.add(s.value("name", ""), true);
  }
  for (const auto& h : topo.value("hosts", json::array())) {
    label[h.value("name", "")] = h.value("addr", "");
    g.add(h.value("name", ""), false);
  }
  const json& links = topo["links"];
  for (const auto& l : links) {
    size_t a = g.add(node_of(l.value("a", "")), false), b = g.add(node_of(l.value("b", "")), false);
    g.adj[a].push_back(b);
    g.adj[b].push_back(a);
  }
  size_t n = g.names.size();
  if (n == 0) return {};
  // Root: the most central switch; other components hang from their own centre.
  std::vector<int> level(n, -1);
  std::vector<size_t> order;
  for (;;) {
    size_t best = n;
    int best_ecc = 0;
    for (size_t i = 0; i < n; ++i) {
      if (level[i] >= 0 || !g.is_switch[i]) continue;
      auto d = bfs(g, i, true);
      int ecc = *std::max_element(d.begin(), d.end());
      if (best == n || ecc < best_ecc) best = i, best_ecc = ecc;
      if (n > 300) break;  // big graphs: the first switch is central enough, keep it linear
    }
    if (best == n)
      for (size_t i = 0; i < n && best == n; ++i)
        if (level[i] < 0) best = i;
    if (best == n) break;
    std::vector<size_t> o;
    auto d = bfs(g, best, false, &o);
    for (size_t u : o) {
      level[u] = d[u];
      order.push_back(u);
    }
  }
  int rows = 0;
  for (int l : level) rows = std::max(rows, l + 1);
  std::vector<std::vector<size_t>> row(static_cast<size_t>(rows));
  for (size_t u : order) row[size_t(level[u])].push_back(u);
  size_t widest = 1;
  for (const auto& r : row) widest = std::max(widest, r.size());
  const double slot = std::clamp(900.0 / double(widest), 8.0, 90.0);
  const bool labels = slot >= 40;
  const double width = std::max(600.0, slot * double(widest) + 40), row_h = labels ? 90 : 40;
  std::vector<double> x(n), y(n);
  for (size_t r = 0; r < row.size(); ++r)
    for (size_t k = 0; k < row[r].size(); ++k) {
      size_t u = row[r][k];
      x[u] = width / 2 + (double(k) - double(row[r].size() - 1) / 2) * slot;
      y[u] = 40 + double(r) * row_h;
    }

  // Measured load: bytes through the switch-side interface over the tests' time.
  std::map<size_t, double> gbps;
  double max_gbps = 0;
  double elapsed = case_rec.is_object() ? case_rec.value("tests_elapsed_s", 0.0) : 0.0;
  if (elapsed > 0 && case_rec.contains("link_bytes")) {
    const json& bytes = case_rec["link_bytes"];
    for (size_t i = 0; i < links.size(); ++i) {
      double best = -1;
      for (const char* k : {"a_if", "b_if"}) {
        std::string ifn = links[i].value(k, "");
        if (!ifn.empty() && bytes.contains(ifn) && bytes[ifn].is_number())
          best = std::max(best, bytes[ifn].get<double>() * 8 / elapsed / 1e9);
      }
      if (best >= 0) {
        gbps[i] = best;
        max_gbps = std::max(max_gbps, best);
      }
    }
  }

  double height = 40 + double(rows) * row_h + 40;
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" "
      "aria-label=\"topology\" class=\"topo\">",
      width, height);
  for (size_t i = 0; i < links.size(); ++i) {
    const json& l = links[i];
    size_t a = g.index[node_of(l.value("a", ""))], b = g.index[node_of(l.value("b", ""))];
    std::string params;
    // A results.json read back may hold any number here: only an MTU is printed.
    if (double mtu = num(l, "mtu"); mtu > 0 && mtu <= 65535) params += fmt::format("mtu {:.0f} ", mtu);
    json link_params = l.value("params", json::object());
    for (const auto& [k, v] : link_params.items())
      params += k + " " + (v.is_string() ? v.get<std::string>() : v.dump()) + " ";
    std::string colour = "#999";
    double w = 1.5;
    std::string load;
    if (auto it = gbps.find(i); it != gbps.end()) {
      // Below 1 Mbit/s on the busiest link (pings only) colours would only show noise.
      double frac = max_gbps >= kMinColouredGbps ? it->second / max_gbps : 0;
      if (frac > 0) {
        colour = load_colour(frac);
        w = 1.5 + 3.5 * frac;
      }
      load = fmt::format(", load {:.3g} Gbit/s", it->second);
    }
    s += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{:.1f}\">"
        "<title>{} — {}{}{}</title></line>",
        x[a], y[a], x[b], y[b], colour, w, markup_escape(l.value("a", "")), markup_escape(l.value("b", "")),
        params.empty() ? "" : " (" + markup_escape(params.substr(0, params.size() - 1)) + ")", load);
    if (labels && !params.empty() && g.is_switch[a] && g.is_switch[b] && links.size() <= 80)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"lp\">{}</text>", (x[a] + x[b]) / 2 + 4,
                       (y[a] + y[b]) / 2 - 3, markup_escape(params));
  }
  for (size_t u = 0; u < n; ++u) {
    const std::string& nm = g.names[u];
    std::string title = "<title>" + markup_escape(nm + " " + label[nm]) + "</title>";
    if (g.is_switch[u]) {
      double r = labels ? 14 : std::max(3.0, slot / 3);
      s += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#4e79a7\" "
          "rx=\"3\">{}</rect>",
          x[u] - r, y[u] - r, 2 * r, 2 * r, title);
    } else {
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"#59a14f\">{}</circle>", x[u],
                       y[u], labels ? 9.0 : std::max(2.0, slot / 4), title);
    }
    if (labels)
      s += fmt::format(
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"l\">{}</text>"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"lp\">{}</text>",
          x[u], y[u] + 28, markup_escape(nm), x[u], y[u] + 40, markup_escape(label[nm]));
  }
  std::string legend =
      fmt::format("{} switches, {} hosts, {} links", topo.value("switches", json::array()).size(),
                  topo.value("hosts", json::array()).size(), links.size());
  if (topo.contains("generator")) legend = topo.value("generator", "") + ": " + legend;
  std::string load =
      max_gbps >= kMinColouredGbps
          ? fmt::format("link colour and width: mean load over the tests (busiest {:.3g} Gbit/s)", max_gbps)
      : max_gbps > 0 ? "link load below 1 Mbit/s (not coloured)"
                     : "no load measured";
  s += fmt::format("<text x=\"8\" y=\"{:.0f}\" class=\"l\">{}</text>", height - 24, markup_escape(legend));
  s += fmt::format("<text x=\"8\" y=\"{:.0f}\" class=\"l\">{}</text>", height - 8, markup_escape(load));
  return s + "</svg>";
}

}  // namespace flowlab::lab

// Where a test ran across machines, and the machines it lost.
#include "lab/run/test_machines.h"

#include <fmt/format.h>

#include <vector>

namespace flowlab::lab {

std::string test_machines(const CaseTopology& topo, const TestSpec& t) {
  if (t.type == TestType::kPingall) return "all";
  auto at = [&](const std::string& n) { return topo.placement.count(n) ? topo.placement.at(n) : ""; };
  return at(t.from) + (at(t.from) == at(t.to) ? "" : "->" + at(t.to));
}

std::string test_crossing(const Scenario& sc, const CaseTopology& topo, const TestSpec& t) {
  if (t.type == TestType::kPingall || topo.placement.empty()) return {};
  std::string to = t.to.substr(0, t.to.find(':'));
  // Breadth-first from the sender's host; the first link that leaves a machine on
  // the way to the receiver says how the test crosses.
  std::map<std::string, std::string> crossing_at;  // node -> how its path crossed ("" : not yet)
  std::vector<std::string> frontier = {t.from};
  crossing_at[t.from] = "";
  while (!frontier.empty()) {
    std::vector<std::string> next;
    for (const auto& n : frontier)
      for (const auto& l : sc.links) {
        if (l.a.node != n && l.b.node != n) continue;
        const std::string& m = l.a.node == n ? l.b.node : l.a.node;
        if (crossing_at.count(m)) continue;
        std::string how = crossing_at[n];
        auto pa = topo.placement.find(l.a.node), pb = topo.placement.find(l.b.node);
        if (how.empty() && pa != topo.placement.end() && pb != topo.placement.end() &&
            pa->second != pb->second)
          how = l.underlay ? "vlan" : "vxlan";
        crossing_at[m] = how;
        if (m == to) return how;
        next.push_back(m);
      }
    frontier = std::move(next);
  }
  return {};
}

std::string lost_reason(const Scenario& sc, const CaseTopology& topo, const TestSpec& t,
                        const std::map<std::string, std::string>& lost) {
  if (lost.empty()) return {};
  std::vector<std::string> nodes = {t.from, t.to};
  if (t.type == TestType::kPingall)
    for (const auto& h : sc.hosts) nodes.push_back(h.name);
  for (const auto& n : nodes) {
    auto m = topo.placement.find(n);
    if (m == topo.placement.end() || !lost.count(m->second)) continue;
    return fmt::format("machine {} (host {}) was lost: {}", m->second, n, lost.at(m->second));
  }
  return {};
}

}  // namespace flowlab::lab

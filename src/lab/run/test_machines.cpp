// Where a test ran across machines, and the machines it lost.
#include "lab/run/test_machines.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

#include "lab/format/json_access.h"

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

std::string machine_core_role(const std::string& machine) { return "core@" + machine; }

nlohmann::json cpu_by_machine(const CaseTopology& topo, const nlohmann::json& r) {
  std::map<std::string, double> by;
  const std::string core = machine_core_role("");
  for (const auto& it : member(member(r, "samples"), "procs").items()) {
    std::string role = str(it.value(), "ns");
    std::string m = role.rfind(core, 0) == 0     ? role.substr(core.size())
                    : topo.placement.count(role) ? topo.placement.at(role)
                                                 : "";
    if (!m.empty()) by[m] += num(it.value(), "mean_pct");
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [m, pct] : by) out[m] = std::round(pct * 10) / 10;
  return out;
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

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

// The plan's JSON, the placement of nodes on machines, and a machine's part.
#include "lab/machines/plan.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "lab/net/vxlan.h"
#include "lab/run/case_events.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

constexpr uint32_t kMaxVni = (1u << 24) - 1;

}  // namespace

std::string control_address(int index) { return fmt::format("198.51.100.{}", index + 1); }

std::string encode_plan(const CasePlan& p) {
  json j = {{"run", p.run},
            {"case", p.case_name},
            {"file", p.file},
            {"scenario", p.scenario},
            {"placement", p.placement},
            {"controllers_on", p.controllers_on},
            {"vxlan_port", p.vxlan_port},
            {"vni_base", p.vni_base},
            {"underlay_mtu", p.underlay_mtu},
            {"capture", p.capture},
            {"capture_max_bytes", p.capture_max_bytes},
            {"machines", json::object()}};
  for (const auto& [n, m] : p.machines) j["machines"][n] = {{"underlay", m.underlay}, {"index", m.index}};
  return j.dump();
}

Result<CasePlan> decode_plan(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("lab plan: not a JSON object");
  CasePlan p;
  try {
    p.run = j.at("run").get<std::string>();
    p.case_name = j.at("case").get<std::string>();
    p.file = j.value("file", std::string());
    p.scenario = j.at("scenario").get<std::string>();
    p.controllers_on = j.value("controllers_on", std::string());
    p.vxlan_port = j.value("vxlan_port", 4789);
    p.vni_base = j.value("vni_base", uint32_t(1000));
    p.underlay_mtu = j.value("underlay_mtu", 1500);
    p.capture = j.value("capture", std::vector<size_t>());
    p.capture_max_bytes = j.value("capture_max_bytes", uint64_t(0));
    for (const auto& [n, m] : j.at("machines").items())
      p.machines[n] = {m.at("underlay").get<std::string>(), m.at("index").get<int>()};
    for (const auto& [node, m] : j.at("placement").items()) p.placement[node] = m.get<std::string>();
  } catch (const json::exception& e) {
    return fail("lab plan: {}", e.what());
  }
  if (p.run.empty() || p.machines.empty()) return fail("lab plan: no run id or no machines");
  if (p.vxlan_port < 1 || p.vxlan_port > 65535)
    return fail("lab plan: vxlan_port {} out of range", p.vxlan_port);
  if (p.vni_base == 0 || p.vni_base > kMaxVni - 8192)
    return fail("lab plan: vni_base {} out of range", p.vni_base);
  if (p.underlay_mtu < 576 + kVxlanOverhead || p.underlay_mtu > 65535)
    return fail("lab plan: underlay MTU {} leaves too little for a tunnel", p.underlay_mtu);
  std::set<int> indices;
  for (const auto& [n, m] : p.machines)
    if (m.index < 0 || m.index > 252 || !indices.insert(m.index).second)
      return fail("lab plan: machine {} has a bad or repeated index {}", n, m.index);
  for (const auto& [node, m] : p.placement)
    if (!p.machines.count(m)) return fail("lab plan: node {} is placed on {}, which the plan lacks", node, m);
  if (!p.controllers_on.empty() && !p.machines.count(p.controllers_on))
    return fail("lab plan: the controllers' machine {} is not in the plan", p.controllers_on);
  return p;
}

Result<std::map<std::string, std::string>> place_nodes(const Scenario& sc, const CaseSpec& cs,
                                                       const std::vector<std::string>& machines) {
  if (machines.empty()) return fail("no machines to place the lab on");
  std::map<std::string, std::string> placed;
  std::map<std::string, double> load;
  for (const auto& m : machines) load[m] = 0;
  auto fix = [&](const std::string& node, const std::string& m, int line) -> Status {
    if (m.empty()) return ok_status();
    if (!load.count(m))
      return fail("{}:{}: node {} is on machine '{}', which is not one of the run's machines ({})", sc.path,
                  line, node, m, fmt::join(machines, ", "));
    placed[node] = m;
    load[m] += 1;
    return ok_status();
  };
  for (const auto& h : sc.hosts) FLOWLAB_TRY(fix(h.name, h.machine, h.line));
  for (const auto& [n, s] : cs.switches) FLOWLAB_TRY(fix(n, s.machine, s.line));
  // Each host's home: the first switch it is linked to.
  std::map<std::string, std::vector<std::string>> sw_adj;
  std::map<std::string, std::string> home;
  std::map<std::string, int> hosts_of;
  for (const auto& l : sc.links) {
    bool a_sw = cs.switches.count(l.a.node), b_sw = cs.switches.count(l.b.node);
    if (a_sw && b_sw) {
      sw_adj[l.a.node].push_back(l.b.node);
      sw_adj[l.b.node].push_back(l.a.node);
    } else if (a_sw != b_sw) {
      const std::string& h = a_sw ? l.b.node : l.a.node;
      const std::string& s = a_sw ? l.a.node : l.b.node;
      if (home.emplace(h, s).second && !placed.count(h)) ++hosts_of[s];
    }
  }
  // Switches breadth-first from the best-connected one, each weighing itself and
  // its unplaced hosts; machines filled in turn up to an equal share.
  std::vector<std::string> order;
  std::set<std::string> seen;
  std::vector<std::string> names;
  for (const auto& [n, s] : cs.switches) names.push_back(n);
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return sw_adj[a].size() > sw_adj[b].size();
  });
  for (const auto& start : names) {
    if (!seen.insert(start).second) continue;
    std::deque<std::string> q{start};
    while (!q.empty()) {
      std::string s = q.front();
      q.pop_front();
      order.push_back(s);
      for (const auto& n : sw_adj[s])
        if (seen.insert(n).second) q.push_back(n);
    }
  }
  double total = double(sc.hosts.size() + cs.switches.size());
  double share = total / double(machines.size());
  size_t k = 0;
  for (const auto& s : order) {
    if (placed.count(s)) continue;
    while (k + 1 < machines.size() && load[machines[k]] + 0.5 >= share) ++k;
    placed[s] = machines[k];
    load[machines[k]] += 1 + hosts_of[s];
  }
  auto least = [&] {
    return std::min_element(load.begin(), load.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  };
  for (const auto& h : sc.hosts) {
    if (placed.count(h.name)) continue;
    auto it = home.find(h.name);
    std::string m = it != home.end() && placed.count(it->second) ? placed[it->second] : least();
    placed[h.name] = m;
    if (it == home.end()) load[m] += 1;
  }
  return placed;
}

std::vector<size_t> cut_links(const Scenario& sc, const std::map<std::string, std::string>& placement) {
  std::vector<size_t> cut;
  for (size_t i = 0; i < sc.links.size(); ++i) {
    auto a = placement.find(sc.links[i].a.node), b = placement.find(sc.links[i].b.node);
    if (a != placement.end() && b != placement.end() && a->second != b->second) cut.push_back(i);
  }
  return cut;
}

Result<MachinePart> part_for(const Scenario& sc, const CaseSpec& cs, const CasePlan& plan,
                             const std::string& name) {
  auto me = plan.machines.find(name);
  if (me == plan.machines.end()) return fail("machine {} has no part in run {}", name, plan.run);
  auto ci =
      std::find_if(sc.cases.begin(), sc.cases.end(), [&](const CaseSpec& c) { return c.name == cs.name; });
  MachinePart part;
  part.machine = name;
  part.ns_prefix = fmt::format("fl{}-{}m{}", plan.run, ci - sc.cases.begin(), me->second.index);
  part.underlay_addr = me->second.underlay;
  part.vxlan_port = plan.vxlan_port;
  part.tunnel_mtu = plan.underlay_mtu - kVxlanOverhead;
  part.controllers = plan.controllers_on == name;
  auto machine_of = [&](const std::string& node) -> Result<std::string> {
    auto it = plan.placement.find(node);
    if (it == plan.placement.end())
      return fail("run {}: node {} is not placed on any machine", plan.run, node);
    return it->second;
  };
  for (const auto& h : sc.hosts) {
    FLOWLAB_ASSIGN_OR_RETURN(auto m, machine_of(h.name));
    if (m == name) part.nodes.insert(h.name);
    for (const auto& i : h.interfaces)
      if (i.mtu > part.tunnel_mtu)
        return fail(
            "{}:{}: host {} {} has MTU {}, more than the tunnels between machines carry ({}: the "
            "underlay's {} less VXLAN's {})",
            sc.path, h.line, h.name, i.name, i.mtu, part.tunnel_mtu, plan.underlay_mtu, kVxlanOverhead);
  }
  for (const auto& [n, s] : cs.switches) {
    FLOWLAB_ASSIGN_OR_RETURN(auto m, machine_of(n));
    if (m == name) part.nodes.insert(n);
  }
  for (size_t li : cut_links(sc, plan.placement)) {
    const LinkSpec& l = sc.links[li];
    // A shaped link between machines is shaped in halves, each machine the
    // direction leaving it (shaped_link.h); a provider link has no wire to do it in.
    if (l.underlay && link_needs_wire(sc, li))
      return fail(
          "{}:{}: link {}-{} is `type: underlay` (a provider link) and shaped (or re-shaped by a `set` "
          "event): a provider link between machines is the NIC itself and is not shaped; shape a VXLAN "
          "link instead, or leave the shaping out",
          sc.path, l.line, l.a.node, l.b.node);
    if (l.mtu > part.tunnel_mtu)
      return fail("{}:{}: link {}-{} has MTU {}, more than a tunnel carries ({})", sc.path, l.line, l.a.node,
                  l.b.node, l.mtu, part.tunnel_mtu);
    bool a_here = part.here(l.a.node), b_here = part.here(l.b.node);
    if (!a_here && !b_here) continue;
    FLOWLAB_ASSIGN_OR_RETURN(auto other, machine_of(a_here ? l.b.node : l.a.node));
    if (l.underlay && !l.vlan)
      return fail(
          "{}:{}: link {}-{} is `type: underlay` between machines without a `vlan:`; an untagged "
          "provider link would need a NIC of its own on each machine: give it a VLAN id",
          sc.path, l.line, l.a.node, l.b.node);
    for (const auto& [lj, t] : part.tunnels)
      if (l.underlay && t.vlan == l.vlan)
        return fail(
            "{}:{}: links {}-{} and {}-{} both leave machine {} on VLAN {}: one VLAN is one end per "
            "machine's NIC",
            sc.path, l.line, sc.links[lj].a.node, sc.links[lj].b.node, l.a.node, l.b.node, name, l.vlan);
    part.tunnels[li] = {plan.machines.at(other).underlay, plan.vni_base + uint32_t(li),
                        l.underlay ? l.vlan : 0};
  }
  if (plan.machines.size() > 1) {
    part.control_addr = control_address(me->second.index) + "/24";
    part.control_vni = plan.vni_base + uint32_t(sc.links.size());
    if (part.control_vni > kMaxVni) return fail("run {}: too many links for its VNI range", plan.run);
    for (const auto& [n, m] : plan.machines)
      if (n != name) part.control_peers.push_back(m.underlay);
    auto ctl = plan.machines.find(plan.controllers_on);
    part.controller_host = control_address(ctl != plan.machines.end() ? ctl->second.index : 0);
  } else {
    part.controller_host = "127.0.0.1";
  }
  return part;
}

}  // namespace flowlab::lab

// Scenario YAML, the checks across nodes: unique names, links and their ports,
// tests, cases; and the loop warnings `validate` and `run` print (see scenario_yaml.h).
#include <fmt/ranges.h>

#include <functional>
#include <numeric>
#include <set>

#include "lab/scenario/scenario_yaml.h"

namespace flowlab::lab::yaml_parse {

namespace {

// "FILE:LINE: key 'K': msg" for a link, which may come from a generator (no node of its own).
Unexpected<Error> link_err(const Ctx& c, const LinkSpec& l, std::string_view msg) {
  return fail("{}:{}: key 'endpoints': {}", c.path, l.line, msg);
}

Status check_links(const Ctx& c, Scenario& s, const std::map<std::string, SwitchSpec>& base_sw) {
  std::set<std::string> used;
  for (const auto& l : s.links) {
    for (const Endpoint* e : {&l.a, &l.b}) {
      if (!s.host(e->node) && !base_sw.count(e->node))
        return link_err(c, l, fmt::format("unknown node '{}'", e->node));
      if (!used.insert(e->node + ":" + e->ifname).second)
        return link_err(c, l, fmt::format("'{}:{}' is used by two links", e->node, e->ifname));
      auto sw = base_sw.find(e->node);
      size_t len = sw != base_sw.end() ? e->node.size() + 1 + e->ifname.size() : e->ifname.size();
      if (len > kIfNameMax)
        return link_err(
            c, l, fmt::format("interface name for '{}:{}' would exceed 15 characters", e->node, e->ifname));
      if (sw != base_sw.end() && !sw->second.ports.empty() &&
          std::find(sw->second.ports.begin(), sw->second.ports.end(), e->ifname) == sw->second.ports.end())
        return link_err(c, l,
                        fmt::format("switch '{}' has no port '{}' (ports: {})", e->node, e->ifname,
                                    fmt::join(sw->second.ports, ", ")));
    }
    if (l.a.node == l.b.node) return link_err(c, l, fmt::format("a link from '{}' to itself", l.a.node));
  }
  for (const auto& [n, sw] : base_sw)
    for (const auto& p : sw.ports)
      if (!used.count(n + ":" + p))
        return fail("{}:{}: key 'ports': port '{}' of switch '{}' is on no link", c.path, sw.line, p, n);
  return ok_status();
}

// Switches that sit on a loop of switch-to-switch links (their connected component has
// at least as many links as switches), for the warnings.
std::set<std::string> switches_on_loops(const Scenario& s, const std::map<std::string, SwitchSpec>& sw) {
  std::map<std::string, std::string> parent;
  for (const auto& [n, x] : sw) parent[n] = n;
  std::function<std::string(const std::string&)> root = [&](const std::string& n) {
    return parent[n] == n ? n : parent[n] = root(parent[n]);
  };
  std::vector<std::pair<std::string, std::string>> edges;
  for (const auto& l : s.links)
    if (sw.count(l.a.node) && sw.count(l.b.node)) {
      edges.emplace_back(l.a.node, l.b.node);
      parent[root(l.a.node)] = root(l.b.node);
    }
  std::map<std::string, int> nodes, links;
  for (const auto& [n, x] : sw) ++nodes[root(n)];
  for (const auto& e : edges) ++links[root(e.first)];
  std::set<std::string> out;
  for (const auto& [n, x] : sw)
    if (links[root(n)] >= nodes[root(n)]) out.insert(n);
  return out;
}

// What cannot break a loop: a bridge without STP, OVS standalone (a plain learning
// bridge), a plain learning switch or hub in a controller.
void warn_loops(const Ctx& c, Scenario& s, const std::map<std::string, SwitchSpec>& base_sw) {
  auto loop = switches_on_loops(s, base_sw);
  if (loop.empty()) return;
  for (const auto& cs : s.cases) {
    std::set<std::string> said;
    for (const auto& n : loop) {
      const SwitchSpec& sw = cs.switches.at(n);
      std::string why;
      if (sw.kind == SwitchKind::kLinuxBridge && !sw.stp) {
        why = "linux-bridge without 'stp: true'";
      } else if (sw.kind != SwitchKind::kLinuxBridge) {
        auto ct = cs.controllers.find(sw.controller);
        if (ct == cs.controllers.end() || ct->second.kind == ControllerKind::kNone) {
          if (sw.kind != SwitchKind::kFlowlab)
            why = fmt::format("{} in standalone mode (a plain learning bridge)", to_string(sw.kind));
        } else if (ct->second.kind == ControllerKind::kFlowlab &&
                   std::all_of(ct->second.apps.begin(), ct->second.apps.end(),
                               [](const std::string& a) { return a == "learning-switch" || a == "hub"; })) {
          why = fmt::format("controller {} runs {} (floods without loop protection)", ct->first,
                            fmt::join(ct->second.apps, "+"));
        } else if (ct->second.kind == ControllerKind::kOsKen &&
                   ct->second.app_file.find("stp") == std::string::npos) {
          why =
              fmt::format("os-ken app {} may flood without loop protection (stp_switch_13.py handles loops)",
                          ct->second.app_file.substr(ct->second.app_file.rfind('/') + 1));
        }
      }
      if (why.empty() || !said.insert(why).second) continue;
      s.warnings.push_back(
          fmt::format("{}:{}: warning: case '{}': switch {} is on a loop and {}: broadcasts "
                      "will circulate (use stp: true, or a loop-safe controller app)",
                      c.path, sw.line, cs.name, n, why));
    }
  }
}

}  // namespace

Status semantic_checks(const Ctx& c, const YAML::Node& root, Scenario& s,
                       const std::map<std::string, SwitchSpec>& base_sw) {
  std::set<std::string> hosts;
  for (const auto& h : s.hosts) hosts.insert(h.name);
  for (const auto& [n, sw] : base_sw)
    if (hosts.count(n)) return c.err(root["switches"], n, "a host has the same name");
  FLOWLAB_TRY(check_links(c, s, base_sw));
  for (auto& h : s.hosts) {
    for (const auto& i : h.interfaces) {
      bool linked = std::any_of(s.links.begin(), s.links.end(), [&](const LinkSpec& l) {
        return (l.a.node == h.name && l.a.ifname == i.name) || (l.b.node == h.name && l.b.ifname == i.name);
      });
      if (!linked)
        return fail("{}:{}: key '{}': host '{}' interface '{}' is on no link", c.path, h.line, i.name, h.name,
                    i.name);
    }
    // Interfaces only named in links exist without an address.
    for (const auto& l : s.links)
      for (const Endpoint* e : {&l.a, &l.b})
        if (e->node == h.name && std::none_of(h.interfaces.begin(), h.interfaces.end(),
                                              [&](auto& i) { return i.name == e->ifname; }))
          h.interfaces.push_back(Interface{e->ifname, "", 0, ""});
  }
  std::set<std::string> tnames;
  for (size_t i = 0; i < s.tests.size(); ++i) {
    auto& t = s.tests[i];
    auto node = root["tests"][i];
    if (t.type == TestType::kPingall) {
      int addressed = int(std::count_if(s.hosts.begin(), s.hosts.end(),
                                        [&](const HostSpec& h) { return s.address_of(h.name).ok(); }));
      if (addressed < 2) return c.err(node, "type", "pingall needs at least two hosts with addresses");
    } else {
      if (!s.host(t.from)) return c.err(node["from"], "from", fmt::format("unknown host '{}'", t.from));
      auto addr = s.address_of(t.to);
      if (!addr.ok()) return c.err(node["to"], "to", addr.error().message);
      if (t.from == t.to.substr(0, t.to.find(':')))
        return c.err(node["to"], "to", "from and to are the same host");
    }
    std::string base = t.name;
    for (int k = 2; !tnames.insert(t.name).second; ++k) {
      if (node["name"]) return c.err(node["name"], "name", fmt::format("two tests named '{}'", t.name));
      t.name = fmt::format("{}-{}", base, k);
    }
  }
  for (size_t i = 0; i < s.cases.size(); ++i) {
    auto& cs = s.cases[i];
    auto node = root["cases"] ? root["cases"][i] : root;
    bool ovs = false, ovs_tso = false;
    for (const auto& [n, sw] : cs.switches) {
      ovs |= sw.kind == SwitchKind::kOvs;
      ovs_tso |= sw.kind == SwitchKind::kOvsTso;
      if (ovs && ovs_tso)
        return c.err(
            node, "switches",
            fmt::format("case '{}' mixes ovs and ovs-tso switches (one ovs-vswitchd per case; TSO is "
                        "a global setting)",
                        cs.name));
      if (!sw.controller.empty() && !cs.controllers.count(sw.controller))
        return c.err(node, "controller",
                     fmt::format("switch '{}' names unknown controller '{}'", n, sw.controller));
      for (const auto& more : sw.more_controllers) {
        auto ct = cs.controllers.find(more);
        if (ct == cs.controllers.end())
          return c.err(node, "controller", fmt::format("switch '{}' names unknown controller '{}'", n, more));
        if (ct->second.kind == ControllerKind::kNone)
          return c.err(node, "controller",
                       fmt::format("switch '{}': controller '{}' is kind none, not one of several", n, more));
      }
    }
    for (const auto& tn : cs.tests)
      if (!tnames.count(tn))
        return c.err(node["tests"], "tests", fmt::format("case names unknown test '{}'", tn));
  }
  warn_loops(c, s, base_sw);
  return ok_status();
}

}  // namespace flowlab::lab::yaml_parse

// Mininet-style arguments -> scenario YAML (see mininet_args.h).
#include "lab/generate/mininet_args.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <optional>

#include "lab/generate/custom_topo.h"
#include "lab/generate/generators.h"

namespace flowlab::lab {

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) return out;
    start = p + 1;
  }
}

}  // namespace

Result<MininetScenario> scenario_from_mininet_args(const MininetArgs& a, const MininetCustom& mc) {
  if (a.topo.empty()) return fail("--topo: give a topology, e.g. --topo tree,2,3 ({})", topology_types());
  YAML::Node root;
  YAML::Node topo;
  std::vector<std::string> hosts;
  std::string label = "--topo " + a.topo;
  std::optional<CustomTopology> custom;
  if (!mc.files.empty()) {
    label = "--custom " + mc.files + " " + label;
    auto link = parse_link_arg(mc.link);
    if (!link.ok()) return unexpected(link.error());
    auto t = load_custom_topology(mc.files, a.topo, *link);
    if (!t.ok()) return fail("{}: {}", label, t.error().message);
    custom = std::move(*t);
    std::string name;
    for (char ch : a.topo) name += std::isalnum(uint8_t(ch)) ? ch : '-';
    root["name"] = name;
    for (const auto& h : custom->hosts) hosts.push_back(h.name);
  } else {
    if (mc.link != "default")
      return fail("--link {}: only with --custom (generated links are unshaped)", mc.link);
    auto req = parse_topo_arg(a.topo);
    if (!req.ok()) return fail("--topo {}: {}", a.topo, req.error().message);
    auto gen = generate_topology(req->type, req->args);
    if (!gen.ok()) return fail("--topo {}: {}", a.topo, gen.error().message);
    root["name"] = req->type + "-" + [&] {
      std::string s;
      for (const auto& [k, v] : req->args) s += (s.empty() ? "" : "-") + std::to_string(v);
      return s.empty() ? std::string("default") : s;
    }();
    topo["type"] = req->type;
    for (const auto& [k, v] : req->args) topo[k] = v;
    hosts = natural_sorted(gen->hosts);
  }

  auto sw = split(a.switch_kind, ',');
  std::string kind = sw[0] == "lxbr" ? "linux-bridge" : sw[0] == "ovsk" ? "ovs" : sw[0];
  if (kind != "flowlab" && kind != "ovs" && kind != "ovs-tso" && kind != "linux-bridge")
    return fail("--switch {}: unknown switch kind '{}' (flowlab, ovs, ovs-tso, linux-bridge)", a.switch_kind,
                sw[0]);
  YAML::Node sw_node;
  sw_node["kind"] = kind;
  for (size_t i = 1; i < sw.size(); ++i) {
    if (sw[i] == "stp=1" || sw[i] == "stp=true" || sw[i] == "stp") {
      if (kind != "linux-bridge")
        return fail("--switch {}: stp is the Linux bridge's (use --switch linux-bridge,stp=1)",
                    a.switch_kind);
      sw_node["stp"] = true;
    } else if (sw[i] != "stp=0" && sw[i] != "stp=false") {
      return fail("--switch {}: unknown option '{}' (only stp=1)", a.switch_kind, sw[i]);
    }
  }

  std::string ctl =
      a.controller.empty() ? (kind == "linux-bridge" ? "none" : "flowlab:learning-switch") : a.controller;
  if (ctl != "none") {
    auto colon = ctl.find(':');
    std::string ckind = ctl.substr(0, colon), rest = colon == std::string::npos ? "" : ctl.substr(colon + 1);
    YAML::Node c;
    if (ckind == "flowlab") {
      if (rest.empty()) return fail("--controller {}: name the apps, e.g. flowlab:learning-switch", ctl);
      c["kind"] = "flowlab";
      for (const auto& app : split(rest, ','))
        if (app.empty())
          return fail("--controller {}: an empty app name", ctl);
        else
          c["apps"].push_back(app);
    } else if (ckind == "os-ken") {
      if (rest.empty()) return fail("--controller {}: name the app file, e.g. os-ken:stp_switch_13.py", ctl);
      // Relative to where the command runs (the scenario "file" has no directory).
      std::filesystem::path p(rest);
      if (std::filesystem::exists(p)) p = std::filesystem::absolute(p);
      c["kind"] = "os-ken";
      c["app"] = p.string();
    } else {
      return fail("--controller {}: expected none, flowlab:APP[,APP] or os-ken:FILE.py", ctl);
    }
    if (kind == "linux-bridge") return fail("--controller {}: a linux-bridge takes no controller", ctl);
    root["controllers"]["c0"] = c;
    sw_node["controller"] = "c0";
  }
  if (custom) {
    add_custom_topology(root, *custom, sw_node);
  } else {
    topo["switch"] = sw_node;
    root["topology"] = topo;
  }
  YAML::Node tests(YAML::NodeType::Sequence);
  if (a.test == "pingall") {
    YAML::Node t;
    t["type"] = "pingall";
    tests.push_back(t);
  } else if (a.test == "pingpair" || a.test == "iperf") {
    if (hosts.size() < 2) return fail("--test {}: the topology has fewer than two hosts", a.test);
    YAML::Node t;
    t["type"] = a.test == "iperf" ? "iperf3-tcp" : "ping";
    t["from"] = hosts.front();
    t["to"] = a.test == "iperf" ? hosts.back() : hosts[1];
    if (a.test == "iperf") t["duration"] = 5;
    tests.push_back(t);
  } else if (a.test != "none") {
    return fail("--test {}: expected none, pingall, pingpair or iperf", a.test);
  }
  root["tests"] = tests;
  YAML::Emitter out;
  out << root;
  return MininetScenario{std::string(out.c_str()) + "\n", label,
                         custom ? custom->notes : std::vector<std::string>{}};
}

}  // namespace flowlab::lab

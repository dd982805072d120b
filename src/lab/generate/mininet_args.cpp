// Mininet-style arguments -> scenario YAML (see mininet_args.h).
#include "lab/generate/mininet_args.h"

#include <arpa/inet.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
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

std::string lower(std::string s) {
  for (char& ch : s) ch = char(std::tolower(uint8_t(ch)));
  return s;
}

// "OpenFlow13" whatever its case (mn users write openflow13), or empty if not one.
std::string openflow_version(const std::string& v) {
  std::string l = lower(v);
  if (l.size() == 10 && l.rfind("openflow1", 0) == 0 && l[9] >= '0' && l[9] <= '5')
    return "OpenFlow1" + l.substr(9);
  return {};
}

// The switch template from --switch KIND[,stp=1][,protocols=...].
Result<YAML::Node> switch_node(const std::string& arg) {
  auto sw = split(arg, ',');
  std::string k = lower(sw[0]);
  if (k == "ovsk")
    return fail(
        "--switch {}: ovsk is Open vSwitch with its kernel datapath (openvswitch.ko){}; use --switch ovs "
        "(the same ovs-vswitchd on its userspace datapath) or --switch lxbr (the Linux bridge)",
        arg,
        std::filesystem::exists("/sys/module/openvswitch") ? ", which the lab does not drive"
                                                           : ", which this kernel does not have");
  std::string kind = k == "lxbr" ? "linux-bridge" : k;
  if (kind != "flowlab" && kind != "ovs" && kind != "ovs-tso" && kind != "linux-bridge")
    return fail("--switch {}: unknown switch kind '{}' (flowlab, ovs, ovs-tso, linux-bridge/lxbr)", arg,
                sw[0]);
  YAML::Node n;
  n["kind"] = kind;
  std::string protocols;
  for (size_t i = 1; i < sw.size(); ++i) {
    std::string opt = lower(sw[i]);
    if (opt == "stp=1" || opt == "stp=true" || opt == "stp") {
      if (kind != "linux-bridge")
        return fail("--switch {}: stp is the Linux bridge's (use --switch linux-bridge,stp=1)", arg);
      n["stp"] = true;
    } else if (opt.rfind("protocols=", 0) == 0 || (!protocols.empty() && !openflow_version(sw[i]).empty())) {
      // protocols=OpenFlow10,OpenFlow13: the list goes on past the comma, as mn reads it
      std::string given = opt.rfind("protocols=", 0) == 0 ? sw[i].substr(10) : sw[i];
      std::string v = openflow_version(given);
      if (v.empty())
        return fail("--switch {}: '{}' is not an OpenFlow version (OpenFlow10 ... OpenFlow15)", arg, given);
      if (kind == "linux-bridge") return fail("--switch {}: a Linux bridge speaks no OpenFlow", arg);
      protocols += (protocols.empty() ? "" : ",") + v;
    } else if (opt != "stp=0" && opt != "stp=false" && !opt.empty()) {
      return fail("--switch {}: unknown option '{}' (stp=1, protocols=OpenFlow13)", arg, sw[i]);
    }
  }
  if (!protocols.empty()) n["protocols"] = protocols;
  return n;
}

// One --controller as a scenario controller node.
Result<YAML::Node> controller_node(const std::string& ctl) {
  auto sep = ctl.find_first_of(":,");
  std::string ckind = lower(ctl.substr(0, sep)), rest = sep == std::string::npos ? "" : ctl.substr(sep + 1);
  YAML::Node c;
  if (ckind == "flowlab") {
    if (rest.empty()) return fail("--controller {}: name the apps, e.g. flowlab:learning-switch", ctl);
    c["kind"] = "flowlab";
    for (const auto& app : split(rest, ','))
      if (app.empty())
        return fail("--controller {}: an empty app name", ctl);
      else
        c["apps"].push_back(app);
  } else if (ckind == "os-ken" || ckind == "ryu") {
    if (rest.empty() || rest.find(',') != std::string::npos)
      return fail("--controller {}: name one app file, e.g. {},stp_switch_13.py", ctl, ckind);
    // Relative to where the command runs (the scenario "file" has no directory).
    std::filesystem::path p(rest);
    if (std::filesystem::exists(p)) p = std::filesystem::absolute(p);
    c["kind"] = "os-ken";
    c["app"] = p.string();
  } else if (ckind == "remote") {
    c["kind"] = "remote";
    if (!rest.empty())
      for (const auto& kv : split(rest, ',')) {
        auto eq = kv.find('=');
        std::string key = lower(kv.substr(0, eq)), val = eq == std::string::npos ? "" : kv.substr(eq + 1);
        std::string port;
        if (key == "port") port = val;
        if (key == "ip" && val.find(':') != std::string::npos) {  // ip=A:P, as RemoteController takes it
          port = val.substr(val.find(':') + 1);
          val = val.substr(0, val.find(':'));
        }
        if (val.empty() || (key != "ip" && key != "port"))
          return fail("--controller {}: '{}': expected ip=ADDRESS or port=PORT", ctl, kv);
        in_addr ip{};
        if (key == "ip" && inet_pton(AF_INET, val.c_str(), &ip) != 1)
          return fail("--controller {}: ip '{}' is not an IPv4 address", ctl, val);
        if (key == "ip") c["address"] = val;
        if (!port.empty()) {
          char* end = nullptr;
          long p = std::strtol(port.c_str(), &end, 10);
          if (*end || p < 1 || p > 65535)
            return fail("--controller {}: port '{}' is not 1..65535", ctl, port);
          c["port"] = int(p);
        }
      }
  } else {
    return fail(
        "--controller {}: expected none, flowlab:APP[,APP], os-ken:FILE.py, ryu,FILE.py or "
        "remote[,ip=A][,port=P]",
        ctl);
  }
  return c;
}

// The tests of --test T[+T...] (Mininet runs each in turn).
Result<YAML::Node> test_nodes(const std::string& arg, const std::vector<std::string>& hosts) {
  YAML::Node tests(YAML::NodeType::Sequence);
  for (const auto& one : split(arg, '+')) {
    auto parts = split(one, ',');
    std::string t = lower(parts[0]);
    if (t == "none" || t == "build") continue;  // up and down, nothing between (Mininet's nullTest)
    YAML::Node n;
    if (parts.size() > 1 && t != "iperfudp" && t != "iperf")
      return fail("--test {}: {} takes no arguments (iperf,RATE and iperfudp,RATE do)", arg, parts[0]);
    if (t == "pingall" || t == "pingallfull") {
      n["type"] = "pingall";
      if (t == "pingallfull") {
        n["full"] = true;
        n["name"] = t;
      }
    } else if (t == "pingpair" || t == "iperf" || t == "iperfudp") {
      if (hosts.size() < 2) return fail("--test {}: the topology has fewer than two hosts", arg);
      if (parts.size() > 2) return fail("--test {}: {} takes one rate ({},20M)", arg, parts[0], t);
      n["type"] = t == "iperf" ? "iperf3-tcp" : t == "iperfudp" ? "iperf3-udp" : "ping";
      n["from"] = hosts.front();
      n["to"] = t == "pingpair" ? hosts[1] : hosts.back();
      if (t != "pingpair") n["duration"] = 5;                                // Mininet's iperf: 5 s
      if (t == "iperfudp") n["rate"] = parts.size() > 1 ? parts[1] : "10M";  // Mininet's udpBw
      if (t == "iperf" && parts.size() > 1) n["rate"] = parts[1];            // TCP paced (iperf3 -b)
    } else {
      return fail(
          "--test {}: expected none, build, pingall, pingallfull, pingpair, iperf[,RATE] or iperfudp[,RATE]",
          arg);
    }
    tests.push_back(n);
  }
  return tests;
}

}  // namespace

Result<MininetScenario> scenario_from_mininet_args(const MininetArgs& a, const MininetCustom& mc) {
  if (a.topo.empty()) return fail("--topo: give a topology, e.g. --topo tree,2,3 ({})", topology_types());
  YAML::Node root;
  YAML::Node topo;
  std::vector<std::string> hosts;
  std::string label = "--topo " + a.topo;
  std::optional<CustomTopology> custom;
  IpBase ipbase;
  if (!a.ipbase.empty()) {
    auto b = parse_ipbase(a.ipbase);
    if (!b.ok()) return fail("--ipbase {}", b.error().message);
    ipbase = *b;
  }
  if (!mc.files.empty()) {
    label = "--custom " + mc.files + " " + label;
    auto link = parse_link_arg(mc.link);
    if (!link.ok()) return unexpected(link.error());
    auto t = load_custom_topology(mc.files, a.topo, *link, ipbase);
    if (!t.ok()) return fail("{}: {}", label, t.error().message);
    custom = std::move(*t);
    std::string name;
    for (char ch : a.topo) name += std::isalnum(uint8_t(ch)) ? ch : '-';
    root["name"] = name;
    for (const auto& h : custom->hosts) hosts.push_back(h.name);
  } else {
    auto link = parse_link_arg(mc.link);
    if (!link.ok()) return unexpected(link.error());
    FLOWLAB_ASSIGN_OR_RETURN(YAML::Node shape, link_shape_keys(*link));
    if (shape.size() > 0) topo["link"] = shape;  // every generated link a TCLink, as mn --link tc
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
    if (!a.ipbase.empty()) topo["ipbase"] = a.ipbase;
    hosts = natural_sorted(gen->hosts);
    if (hosts.size() > ipbase.capacity())
      return fail("--ipbase {}: {} hosts do not fit ({} addresses)", a.ipbase, hosts.size(),
                  ipbase.capacity());
  }
  if (a.arp) root["static_arp"] = true;

  FLOWLAB_ASSIGN_OR_RETURN(YAML::Node sw_node, switch_node(a.switch_kind));
  bool bridge = sw_node["kind"].as<std::string>() == "linux-bridge";
  std::vector<std::string> ctls = a.controllers;
  if (ctls.empty()) ctls.push_back(bridge ? "none" : "flowlab:learning-switch");
  if (ctls.size() > 1 && std::find(ctls.begin(), ctls.end(), "none") != ctls.end())
    return fail("--controller none: not with other controllers");
  if (ctls != std::vector<std::string>{"none"}) {
    if (bridge) return fail("--controller {}: a linux-bridge takes no controller", ctls[0]);
    for (size_t i = 0; i < ctls.size(); ++i) {
      FLOWLAB_ASSIGN_OR_RETURN(YAML::Node c, controller_node(ctls[i]));
      std::string name = "c" + std::to_string(i);
      root["controllers"][name] = c;
      if (ctls.size() == 1)
        sw_node["controller"] = name;
      else
        sw_node["controller"].push_back(name);
    }
  }
  if (custom) {
    add_custom_topology(root, *custom, sw_node);
  } else {
    topo["switch"] = sw_node;
    root["topology"] = topo;
  }
  FLOWLAB_ASSIGN_OR_RETURN(YAML::Node tests, test_nodes(a.test, hosts));
  root["tests"] = tests;
  YAML::Emitter out;
  out << root;
  return MininetScenario{std::string(out.c_str()) + "\n", label,
                         custom ? custom->notes : std::vector<std::string>{}};
}

}  // namespace flowlab::lab

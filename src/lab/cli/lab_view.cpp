// A running lab as Mininet's CLI sees it, and Mininet's listings (see lab_view.h).
#include "lab/cli/lab_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "lab/format/json_access.h"
#include "lab/host/netns.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

std::string intf_name(const std::string& node, const std::string& ifname) { return node + "-" + ifname; }

// "h1:eth0" -> ("h1", "eth0").
std::pair<std::string, std::string> split_end(const std::string& end) {
  auto c = end.find(':');
  if (c == std::string::npos) return {end, ""};
  return {end.substr(0, c), end.substr(c + 1)};
}

std::string switch_class(const std::string& kind) {
  if (kind == "flowlab") return "FlowlabSwitch";
  if (kind == "linux-bridge") return "LinuxBridge";
  return "OVSSwitch";
}

// The interface on the other end of each interface ("h1-eth0" -> "s1-eth1").
std::map<std::string, std::string> peers(const LabView& v) {
  std::map<std::string, std::string> out;
  for (const auto& l : v.links) {
    std::string a = intf_name(l.a_node, l.a_if), b = intf_name(l.b_node, l.b_if);
    out[a] = b;
    out[b] = a;
  }
  return out;
}

}  // namespace

const ViewHost* LabView::host(const std::string& name) const {
  for (const auto& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

const ViewSwitch* LabView::find_switch(const std::string& name) const {
  for (const auto& s : switches)
    if (s.name == name) return &s;
  return nullptr;
}

bool LabView::has_node(const std::string& name) const {
  if (host(name) || find_switch(name)) return true;
  return std::any_of(controllers.begin(), controllers.end(), [&](const auto& c) { return c.name == name; });
}

std::vector<std::string> LabView::node_names() const {
  std::vector<std::string> out;
  for (const auto& c : controllers) out.push_back(c.name);
  for (const auto& h : hosts) out.push_back(h.name);
  for (const auto& s : switches) out.push_back(s.name);
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> LabView::addresses() const {
  std::map<std::string, std::string> out;
  for (const auto& h : hosts)
    if (!h.addr.empty()) out[h.name] = h.addr;
  return out;
}

std::pair<std::string, std::string> LabView::intf_location(const std::string& node,
                                                           const std::string& ifname) const {
  if (const ViewHost* h = host(node)) return {h->ns, ifname};
  return {core_ns, intf_name(node, ifname)};
}

Result<LabView> lab_view(const json& rec) {
  const json& nodes = member(rec, "nodes");
  if (!nodes.is_object() || nodes.empty())
    return fail("lab '{}' was brought up by a flowlab without the CLI; bring it up again", str(rec, "id"));
  LabView v;
  v.id = str(rec, "id");
  v.core_ns = str(rec, "core_ns");
  v.out_dir = str(rec, "out_dir");
  auto ns = string_map(rec, "hosts");
  for (const auto& h : array_member(nodes, "hosts")) {
    ViewHost vh{str(h, "name"), "", str(h, "addr"), str(h, "mac"), {}};
    if (auto it = ns.find(vh.name); it != ns.end()) vh.ns = it->second;
    if (auto s = vh.addr.find('/'); s != std::string::npos) vh.addr.resize(s);
    v.hosts.push_back(std::move(vh));
  }
  for (const auto& s : array_member(nodes, "switches")) {
    ViewSwitch vs{str(s, "name"), str(s, "kind"), "", {}};
    // The record's dpid is a string; a plain JSON integer (a hand-written record) reads too.
    if (auto d = s.find("dpid"); d != s.end() && d->is_string())
      vs.dpid = d->get<std::string>();
    else if (d != s.end() && d->is_number_integer() && d->get<int64_t>() >= 0)
      vs.dpid = fmt::format("{:016x}", d->get<uint64_t>());
    for (const auto& p : array_member(s, "ports"))
      if (p.is_string()) vs.ports.push_back(p.get<std::string>());
    v.switches.push_back(std::move(vs));
  }
  for (const auto& c : array_member(nodes, "controllers"))
    v.controllers.push_back({str(c, "name"), str(c, "kind"), str(c, "host"), int(num(c, "port"))});
  for (const auto& l : array_member(rec, "links")) {
    auto [an, ai] = split_end(str(l, "a"));
    auto [bn, bi] = split_end(str(l, "b"));
    v.links.push_back({an, ai, bn, bi});
    for (auto [n, i] : {std::pair{an, ai}, std::pair{bn, bi}})
      for (auto& h : v.hosts)
        if (h.name == n) h.intfs.push_back(i);
  }
  return v;
}

std::string show_nodes(const LabView& v) {
  std::string out = "available nodes are: \n";
  auto names = v.node_names();
  for (size_t i = 0; i < names.size(); ++i) out += (i ? " " : "") + names[i];
  return out + "\n";
}

std::string show_net(const LabView& v) {
  auto peer = peers(v);
  auto conn = [&](const std::string& intf) {
    auto it = peer.find(intf);
    return intf + ":" + (it == peer.end() ? std::string("None") : it->second);
  };
  std::string out;
  for (const auto& h : v.hosts) {
    out += h.name;
    for (const auto& i : h.intfs) out += " " + conn(intf_name(h.name, i));
    out += "\n";
  }
  for (const auto& s : v.switches) {
    out += s.name + " lo: ";
    for (const auto& p : s.ports) out += " " + conn(p);
    out += "\n";
  }
  for (const auto& c : v.controllers) out += c.name + "\n";
  return out;
}

std::string show_dump(const LabView& v) {
  std::string out;
  for (const auto& h : v.hosts) {
    std::string intfs;
    for (size_t k = 0; k < h.intfs.size(); ++k)
      intfs += fmt::format("{}{}:{}", k ? "," : "", intf_name(h.name, h.intfs[k]),
                           k == 0 && !h.addr.empty() ? h.addr : "None");
    out += fmt::format("<Host {}: {} netns={}>\n", h.name, intfs, h.ns);
  }
  for (const auto& s : v.switches) {
    std::string intfs = "lo:127.0.0.1";
    for (const auto& p : s.ports) intfs += "," + p + ":None";
    out += fmt::format("<{} {}: {} dpid={}>\n", switch_class(s.kind), s.name, intfs, s.dpid);
  }
  for (const auto& c : v.controllers)
    out += fmt::format("<{} {}: {}:{} kind={}>\n", c.kind == "os-ken" ? "Ryu" : "Controller", c.name, c.host,
                       c.port, c.kind);
  return out;
}

std::string show_links(const LabView& v) {
  std::map<std::string, std::map<std::string, bool>> up;  // namespace -> interface -> IFF_UP
  auto state = [&](const std::string& node, const std::string& ifname) -> std::string {
    auto [ns, name] = v.intf_location(node, ifname);
    if (!up.count(ns)) {
      auto& m = up[ns];
      if (auto links = namespace_links(ns); links.ok())
        for (const auto& l : *links) m[l.name] = l.up;
    }
    auto it = up[ns].find(name);
    return it == up[ns].end() ? "MISSING" : it->second ? "OK" : "DOWN";
  };
  std::string out;
  for (const auto& l : v.links)
    out += fmt::format("{}<->{} ({} {})\n", intf_name(l.a_node, l.a_if), intf_name(l.b_node, l.b_if),
                       state(l.a_node, l.a_if), state(l.b_node, l.b_if));
  return out;
}

std::string show_intfs(const LabView& v) {
  std::string out;
  for (const auto& h : v.hosts) {
    out += h.name + ": ";
    for (size_t k = 0; k < h.intfs.size(); ++k) out += (k ? "," : "") + intf_name(h.name, h.intfs[k]);
    out += "\n";
  }
  for (const auto& s : v.switches) {
    out += s.name + ": lo";
    for (const auto& p : s.ports) out += "," + p;
    out += "\n";
  }
  for (const auto& c : v.controllers) out += c.name + ": \n";
  return out;
}

std::string show_ports(const LabView& v) {
  std::string out;
  for (const auto& s : v.switches) {
    out += s.name + " lo:0";
    for (size_t k = 0; k < s.ports.size(); ++k) out += fmt::format(" {}:{}", s.ports[k], k + 1);
    out += "\n";
  }
  return out;
}

}  // namespace flowlab::lab

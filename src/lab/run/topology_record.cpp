// The run's record of its topology and the per-interface byte counters (see topology_record.h).
#include "lab/run/topology_record.h"

#include <algorithm>

#include "lab/host/netns.h"
#include "lab/host/process.h"

namespace flowlab::lab {

using nlohmann::json;

json topology_record(const Scenario& sc, const CaseSpec& cs) {
  json t = {{"hosts", json::array()}, {"switches", json::array()}, {"links", json::array()}};
  if (!sc.generator.empty()) t["generator"] = sc.generator;
  for (const auto& h : sc.hosts) {
    json r = {{"name", h.name}};
    for (const auto& i : h.interfaces) {
      if (!i.addr.empty() && !r.contains("addr")) r["addr"] = i.addr;
      if (!i.mac.empty() && !r.contains("mac")) r["mac"] = i.mac;
    }
    t["hosts"].push_back(r);
  }
  for (const auto& [n, s] : cs.switches) {
    json r = {{"name", n}, {"kind", to_string(s.kind)}, {"dpid", s.dpid}};
    if (s.stp) r["stp"] = true;
    t["switches"].push_back(r);
  }
  for (const auto& l : sc.links) {
    auto ifname = [&](const Endpoint& e) {
      return cs.switches.count(e.node) ? switch_port_ifname(e) : std::string();
    };
    json r = {{"a", l.a.node + ":" + l.a.ifname}, {"b", l.b.node + ":" + l.b.ifname}, {"mtu", l.mtu}};
    if (auto a = ifname(l.a); !a.empty()) r["a_if"] = a;
    if (auto b = ifname(l.b); !b.empty()) r["b_if"] = b;
    t["links"].push_back(r);
  }
  return t;
}

std::map<std::string, std::vector<std::string>> switch_port_order(const Scenario& sc, const CaseSpec& cs) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& l : sc.links)
    for (const Endpoint* e : {&l.a, &l.b})
      if (cs.switches.count(e->node)) out[e->node].push_back(switch_port_ifname(*e));
  for (const auto& kv : cs.switches) {
    const std::string& n = kv.first;  // not a structured binding: clang 14 cannot capture one
    const SwitchSpec& s = kv.second;
    if (s.ports.empty()) continue;
    auto& v = out[n];
    auto rank = [&](const std::string& ifn) {
      auto it = std::find(s.ports.begin(), s.ports.end(), ifn.substr(n.size() + 1));
      return it - s.ports.begin();
    };
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  }
  return out;
}

std::map<std::string, long long> parse_ip_link_stats(const std::string& text) {
  std::map<std::string, long long> out;
  json j = json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& l : j) {
    if (!l.is_object() || !l.contains("ifname") || !l.contains("stats64")) continue;
    const json& st = l["stats64"];
    long long b = 0;
    for (const char* dir : {"rx", "tx"})
      if (st.contains(dir) && st[dir].is_object()) b += st[dir].value("bytes", 0LL);
    out[l.value("ifname", "")] = b;
  }
  return out;
}

std::map<std::string, long long> interface_bytes(const std::string& ns) {
  auto links = namespace_links(ns);  // one netlink dump, no `ip -s link` fork
  if (!links.ok()) return {};
  std::map<std::string, long long> out;
  for (const auto& l : *links) out[l.name] = (long long)(l.rx_bytes + l.tx_bytes);
  return out;
}

}  // namespace flowlab::lab

// Scenario YAML, the `topology:` key: a Mininet generator's hosts, switches and
// links turned into specs (see scenario_yaml.h, generators.h).
//
//   topology: {type: tree, depth: 2, fanout: 3, switch: {kind: flowlab, controller: c1},
//              link: {bw: 10M, delay: 5ms}}
//
// `link:` shapes every generated link alike (Mininet's --link tc,...; the keys of
// "Shaped links").
// Hosts get eth0 with Mininet's address (in `ipbase`, 10.0.0.0/8 by default) and MAC
// for their place in its (natural) host order, unless `hosts:` gives a host its own keys. Host ends are eth0,
// eth1, ...; switch ports eth1, eth2, ... in the order Mininet adds the links, so OpenFlow port numbers match
// Mininet's.
#include <set>

#include "lab/generate/generators.h"
#include "lab/scenario/scenario_yaml.h"
#include "lab/scenario/shaping.h"

namespace flowlab::lab::yaml_parse {

Result<GeneratedPart> parse_generated(const Ctx& c, const YAML::Node& topo, const YAML::Node& hosts) {
  if (!topo.IsMap()) return c.err(topo, "topology", "expected a mapping {type: tree, depth: 2, fanout: 2}");
  if (!topo["type"]) return c.err(topo, "topology", fmt::format("needs 'type' ({})", topology_types()));
  FLOWLAB_ASSIGN_OR_RETURN(auto type, str(c, topo["type"], "type"));
  auto params = topology_params(type);
  if (params.empty())
    return c.err(topo["type"], "type",
                 fmt::format("unknown topology type '{}' ({})", type, topology_types()));
  std::map<std::string, int> args;
  std::string summary = type;
  for (const auto& kv : topo) {
    auto k = kv.first.as<std::string>();
    if (k == "type" || k == "switch" || k == "ipbase" || k == "link") continue;
    if (std::none_of(params.begin(), params.end(), [&](const TopoParam& p) { return p.name == k; })) {
      std::string names;
      for (const auto& p : params) names += ", " + p.name;
      return c.err(kv.first, k,
                   fmt::format("topology {} has no parameter '{}' (keys: type{}, switch, ipbase, link)", type,
                               k, names));
    }
    LAB_ASSIGN(args[k], (scalar<int>(c, kv.second, k, "a count")));
    summary += fmt::format(" {}={}", k, args[k]);
  }
  auto gen = generate_topology(type, args);
  if (!gen.ok()) return c.err(topo, "topology", gen.error().message);
  IpBase ipbase;  // `ipbase: 10.1.0.0/16` (Mininet's --ipbase): the hosts' network
  if (topo["ipbase"]) {
    FLOWLAB_ASSIGN_OR_RETURN(auto text, str(c, topo["ipbase"], "ipbase"));
    auto b = parse_ipbase(text);
    if (!b.ok()) return c.err(topo["ipbase"], "ipbase", b.error().message);
    if (gen->hosts.size() > b->capacity())
      return c.err(topo["ipbase"], "ipbase",
                   fmt::format("{} hosts do not fit in /{} ({} addresses)", gen->hosts.size(), b->prefix,
                               b->capacity()));
    ipbase = *b;
    summary += " ipbase=" + text;
  }

  LinkShapes shape;
  if (const YAML::Node& ln = topo["link"]) {
    if (!ln.IsMap())
      return c.err(ln, "link", "expected the shaping of every link, e.g. {bw: 10M, delay: 5ms}");
    for (const auto& kv : ln)
      if (auto k = kv.first.as<std::string>(); !is_shape_key(k))
        return c.err(kv.first, k,
                     "a generated link takes only shaping keys (bw, delay, jitter, loss, queue)");
    LAB_ASSIGN(shape, parse_link_shapes(ln, c.path));
    summary += " link-shaped";
  }

  GeneratedPart out;
  out.summary = summary;
  YAML::Node tmpl = topo["switch"] ? YAML::Clone(topo["switch"]) : YAML::Node(YAML::NodeType::Map);
  if (!tmpl.IsMap())
    return c.err(topo["switch"], "switch", "expected a mapping {kind: ..., controller: ...}");
  if (tmpl["dpid"] || tmpl["ports"])
    return c.err(topo["switch"], "switch", "dpid and ports come from the generator");
  if (!tmpl["kind"]) tmpl["kind"] = "flowlab";
  for (const auto& name : gen->switches) {
    FLOWLAB_ASSIGN_OR_RETURN(auto sw, parse_switch(c, name, tmpl));
    sw.dpid = gen->dpids.at(name);
    sw.line = line_of(topo);
    out.switches[name] = std::move(sw);
    out.switch_nodes[name] = tmpl;
  }

  std::set<std::string> generated(gen->hosts.begin(), gen->hosts.end());
  if (hosts && !hosts.IsNull()) {
    if (!hosts.IsMap()) return c.err(hosts, "hosts", "expected a mapping of hosts");
    for (const auto& kv : hosts)
      if (!generated.count(kv.first.as<std::string>()))
        return c.err(kv.first, kv.first.as<std::string>(),
                     fmt::format("host is not in the generated topology ({})", summary));
  }
  int n = 0;
  std::map<std::string, HostSpec> by_name;
  for (const auto& name : natural_sorted(gen->hosts)) {
    ++n;
    HostSpec h;
    if (hosts && hosts[name]) {
      FLOWLAB_ASSIGN_OR_RETURN(h, parse_host(c, name, hosts[name]));
    } else {
      h.name = name;
      h.line = line_of(topo);
    }
    if (h.interfaces.empty())
      h.interfaces.push_back(Interface{"eth0", mininet_ip(n, ipbase), 0, mininet_mac(n)});
    by_name[name] = std::move(h);
  }
  for (const auto& name : gen->hosts) out.hosts.push_back(std::move(by_name[name]));

  std::map<std::string, int> next_port;
  for (const auto& [a, b] : gen->links) {
    LinkSpec l;
    l.line = line_of(topo);
    auto end = [&](const std::string& node) {
      bool is_switch = out.switches.count(node) != 0;
      auto it = next_port.emplace(node, is_switch ? 1 : 0).first;
      return Endpoint{node, "eth" + std::to_string(it->second++)};
    };
    l.a = end(a);
    l.b = end(b);
    l.shape = shape;
    out.links.push_back(std::move(l));
  }
  return out;
}

}  // namespace flowlab::lab::yaml_parse

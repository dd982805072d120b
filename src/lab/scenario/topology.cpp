// Scenario YAML -> topology model, with the checks `flowlab lab validate` runs.
// Every error names the file, the line (1-based) and the key it is about.
#include "lab/scenario/topology.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "lab/scenario/scenario_yaml.h"
#include "lab/scenario/shaping.h"

namespace flowlab::lab {

std::string_view to_string(SwitchKind k) {
  switch (k) {
    case SwitchKind::kFlowlab:
      return "flowlab";
    case SwitchKind::kOvs:
      return "ovs";
    case SwitchKind::kOvsTso:
      return "ovs-tso";
    case SwitchKind::kLinuxBridge:
      return "linux-bridge";
  }
  return "?";
}

std::string_view to_string(ControllerKind k) {
  switch (k) {
    case ControllerKind::kNone:
      return "none";
    case ControllerKind::kFlowlab:
      return "flowlab";
    case ControllerKind::kOsKen:
      return "os-ken";
    case ControllerKind::kRemote:
      return "remote";
  }
  return "?";
}

std::string_view to_string(TestType t) {
  switch (t) {
    case TestType::kPing:
      return "ping";
    case TestType::kIperf3Tcp:
      return "iperf3-tcp";
    case TestType::kIperf3Udp:
      return "iperf3-udp";
    case TestType::kIperf2Window:
      return "iperf2-window";
    case TestType::kTcpRr:
      return "tcp-rr";
    case TestType::kPingall:
      return "pingall";
    case TestType::kProbe:
      return "probe";
  }
  return "?";
}

const HostSpec* Scenario::host(std::string_view n) const {
  for (const auto& h : hosts)
    if (h.name == n) return &h;
  return nullptr;
}

Result<std::string> Scenario::address_of(std::string_view target) const {
  std::string_view hname = target, ifname;
  if (auto c = target.find(':'); c != std::string_view::npos) {
    hname = target.substr(0, c);
    ifname = target.substr(c + 1);
  }
  const HostSpec* h = host(hname);
  if (!h) return fail("no host '{}'", hname);
  for (const auto& i : h->interfaces) {
    if (i.addr.empty() || (!ifname.empty() && i.name != ifname)) continue;
    return i.addr.substr(0, i.addr.find('/'));
  }
  return fail("host '{}' has no address{}", hname,
              ifname.empty() ? std::string() : " on " + std::string(ifname));
}

// Assigns the value of a Result to an existing variable or returns its error; one
// statement, so it can follow an unbraced `if`.
namespace {
using namespace yaml_parse;
}  // namespace

Result<Scenario> parse_scenario(const std::string& text, const std::string& path) {
  Ctx c{path, std::filesystem::path(path).parent_path().string()};
  if (c.dir.empty()) c.dir = ".";
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return fail("{}:{}:{}: YAML syntax error: {}", path, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  if (!root.IsMap()) return fail("{}:1: the file must be a YAML mapping (name, hosts, switches, ...)", path);
  try {
    FLOWLAB_TRY(
        check_keys(c, root, "scenario",
                   {"name", "description", "topology", "hosts", "switches", "controllers", "links", "cases",
                    "tests", "settle", "events", "capture", "underlay", "metrics", "static_arp"}));
    Scenario s;
    s.path = path;
    if (!root["name"]) return c.err(root, "name", "the scenario needs a 'name'");
    LAB_ASSIGN(s.name, str(c, root["name"], "name"));
    if (root["description"]) LAB_ASSIGN(s.description, str(c, root["description"], "description"));

    std::map<std::string, SwitchSpec> base_sw;
    std::map<std::string, YAML::Node> sw_nodes;  // what each switch was parsed from (case overrides)
    if (auto topo = root["topology"]) {
      if (root["switches"] || root["links"])
        return c.err(root["switches"] ? root["switches"] : root["links"],
                     root["switches"] ? "switches" : "links",
                     "with 'topology' the generator makes the switches and links (set their kind with "
                     "topology.switch, per case with the case key 'switch')");
      FLOWLAB_ASSIGN_OR_RETURN(auto g, parse_generated(c, topo, root["hosts"]));
      s.hosts = std::move(g.hosts);
      s.links = std::move(g.links);
      s.generator = std::move(g.summary);
      base_sw = std::move(g.switches);
      sw_nodes = std::move(g.switch_nodes);
    } else {
      if (!root["hosts"] || !root["hosts"].IsMap())
        return c.err(root, "hosts", "expected a mapping of hosts (or a 'topology' generator)");
      for (const auto& kv : root["hosts"]) {
        auto name = kv.first.as<std::string>();
        FLOWLAB_TRY(check_name(c, kv.first, "hosts", name));
        FLOWLAB_ASSIGN_OR_RETURN(auto h, parse_host(c, name, kv.second));
        s.hosts.push_back(std::move(h));
      }
      if (auto sws = root["switches"]) {
        if (!sws.IsMap()) return c.err(sws, "switches", "expected a mapping of switches");
        for (const auto& kv : sws) {
          auto name = kv.first.as<std::string>();
          FLOWLAB_TRY(check_name(c, kv.first, "switches", name));
          FLOWLAB_ASSIGN_OR_RETURN(auto sw, parse_switch(c, name, kv.second));
          if (sw.dpid == 0) sw.dpid = base_sw.size() + 1;
          base_sw[name] = std::move(sw);
          sw_nodes[name] = kv.second;
        }
      }
      if (!root["links"] || !root["links"].IsSequence())
        return c.err(root, "links", "expected a list of links");
      for (const auto& ln : root["links"]) {
        FLOWLAB_TRY(check_keys(c, ln, "link",
                               {"endpoints", "mtu", "type", "vlan", "bw", "delay", "jitter", "loss", "queue",
                                "a_to_b", "b_to_a"}));
        auto eps = ln["endpoints"];
        if (!eps || !eps.IsSequence() || eps.size() != 2)
          return c.err(eps ? eps : YAML::Node(ln), "endpoints", "expected two endpoints [NODE:IF, NODE:IF]");
        LinkSpec l;
        l.line = line_of(ln);
        LAB_ASSIGN(l.a, parse_endpoint(c, eps[0]));
        LAB_ASSIGN(l.b, parse_endpoint(c, eps[1]));
        if (ln["mtu"]) LAB_ASSIGN(l.mtu, (scalar<int>(c, ln["mtu"], "mtu", "an integer")));
        if (ln["type"]) {
          std::string type;
          LAB_ASSIGN(type, (scalar<std::string>(c, ln["type"], "type", "underlay")));
          if (type != "underlay")
            return c.err(
                ln["type"], "type",
                fmt::format("unknown link type '{}' (underlay: a physical link between machines)", type));
          l.underlay = true;
        }
        if (ln["vlan"]) {
          LAB_ASSIGN(l.vlan, (scalar<int>(c, ln["vlan"], "vlan", "a VLAN id, 1-4094")));
          if (l.vlan < 1 || l.vlan > 4094) return c.err(ln["vlan"], "vlan", "expected a VLAN id, 1-4094");
          if (!l.underlay) return c.err(ln["vlan"], "vlan", "a VLAN tag is for `type: underlay` links");
        }
        LAB_ASSIGN(l.shape, parse_link_shapes(ln, path));
        s.links.push_back(l);
      }
    }
    if (auto cap = root["capture"]) {
      s.capture_line = line_of(cap);
      if (cap.IsScalar()) {
        std::string one;
        LAB_ASSIGN(one, str(c, cap, "capture"));
        s.capture.push_back(std::move(one));
      } else {
        LAB_ASSIGN(s.capture, str_list(c, cap, "capture"));
      }
    }
    if (auto m = root["metrics"]) FLOWLAB_TRY(parse_metrics(c, m, s));
    if (root["static_arp"])
      LAB_ASSIGN(s.static_arp, (scalar<bool>(c, root["static_arp"], "static_arp", "true/false")));
    if (auto ul = root["underlay"]) {
      if (!ul.IsMap()) return c.err(ul, "underlay", "expected {rate: 1G, mtu: 1500}");
      FLOWLAB_TRY(check_keys(c, ul, "underlay", {"rate", "mtu"}));
      if (ul["rate"]) {
        std::string text;
        LAB_ASSIGN(text, (scalar<std::string>(c, ul["rate"], "rate", "a rate (1G, 100M)")));
        auto bps = parse_rate_bps(text);
        if (!bps.ok() || *bps == 0) return c.err(ul["rate"], "rate", "expected a rate such as 1G or 100M");
        s.underlay_rate_bps = double(*bps);
      }
      if (ul["mtu"]) {
        LAB_ASSIGN(s.underlay_mtu, (scalar<int>(c, ul["mtu"], "mtu", "an integer")));
        if (s.underlay_mtu < 576 || s.underlay_mtu > 9216)
          return c.err(ul["mtu"], "mtu", "expected an underlay MTU of 576-9216");
      }
    }
    double settle = 0;
    if (root["settle"]) LAB_ASSIGN(settle, (scalar<double>(c, root["settle"], "settle", "seconds")));
    if (settle < 0 || settle > 600) return c.err(root["settle"], "settle", "must be 0..600 s");
    std::map<std::string, ControllerSpec> base_ctl;
    if (auto cts = root["controllers"]) {
      if (!cts.IsMap()) return c.err(cts, "controllers", "expected a mapping of controllers");
      for (const auto& kv : cts) {
        auto name = kv.first.as<std::string>();
        FLOWLAB_TRY(check_name(c, kv.first, "controllers", name));
        FLOWLAB_ASSIGN_OR_RETURN(auto ct, parse_controller(c, name, kv.second));
        base_ctl[name] = std::move(ct);
      }
    }
    if (auto ts = root["tests"]) {
      if (!ts.IsSequence()) return c.err(ts, "tests", "expected a list of tests");
      for (const auto& tn : ts) {
        FLOWLAB_ASSIGN_OR_RETURN(auto t, parse_test(c, tn));
        s.tests.push_back(std::move(t));
      }
    }
    if (auto cs = root["cases"]) {
      if (!cs.IsSequence() || cs.size() == 0) return c.err(cs, "cases", "expected a non-empty list of cases");
      std::set<std::string> names;
      for (const auto& cn : cs) {
        FLOWLAB_TRY(check_keys(c, cn, "case",
                               {"name", "description", "switch", "switches", "controllers", "offloads",
                                "tests", "settle", "controller_link"}));
        CaseSpec k;
        k.line = line_of(cn);
        if (!cn["name"]) return c.err(cn, "name", "each case needs a 'name'");
        LAB_ASSIGN(k.name, str(c, cn["name"], "name"));
        if (!names.insert(k.name).second)
          return c.err(cn["name"], "name", fmt::format("two cases named '{}'", k.name));
        if (cn["description"]) LAB_ASSIGN(k.description, str(c, cn["description"], "description"));
        if (cn["offloads"]) LAB_ASSIGN(k.offloads, (scalar<bool>(c, cn["offloads"], "offloads", "on/off")));
        if (cn["tests"]) LAB_ASSIGN(k.tests, str_list(c, cn["tests"], "tests"));
        k.settle_s = settle;
        if (cn["settle"]) LAB_ASSIGN(k.settle_s, (scalar<double>(c, cn["settle"], "settle", "seconds")));
        if (k.settle_s < 0 || k.settle_s > 600) return c.err(cn["settle"], "settle", "must be 0..600 s");
        if (auto cl = cn["controller_link"]) {
          FLOWLAB_ASSIGN_OR_RETURN(LinkShape sh, parse_shape_map(cl, c.path, "controller_link"));
          if (sh.empty())
            return c.err(cl, "controller_link", "nothing to shape (bw, delay, jitter, loss, queue)");
          k.controller_link = sh;
        }
        k.switches = base_sw;
        k.controllers = base_ctl;
        // `switch:` overrides every switch, then `switches:` one by name.
        YAML::Node all = cn["switch"];
        if (all && !all.IsMap())
          return c.err(all, "switch", "expected a mapping of overrides for every switch");
        if (auto o = cn["switches"]) {
          if (!o.IsMap()) return c.err(o, "switches", "expected a mapping NAME: {overrides}");
          for (const auto& kv : o) {
            auto name = kv.first.as<std::string>();
            if (!base_sw.count(name)) return c.err(kv.first, name, "case overrides an unknown switch");
            if (!kv.second.IsMap()) return c.err(kv.second, name, "expected a mapping of overrides");
          }
        }
        if (all || cn["switches"]) {
          for (const auto& [name, base] : base_sw) {
            // Fresh nodes only: assigning to a yaml-cpp node writes through to the tree it shares.
            const bool named = cn["switches"] && cn["switches"][name];
            if (!all && !named) continue;
            const YAML::Node with_all = all ? merged(sw_nodes[name], all) : YAML::Clone(sw_nodes[name]);
            YAML::Node node = named ? merged(with_all, cn["switches"][name]) : with_all;
            // stp is a Linux bridge key: a case that makes the switch another kind drops it.
            if (node["stp"] && node["kind"] && node["kind"].as<std::string>() != "linux-bridge")
              node.remove("stp");
            FLOWLAB_ASSIGN_OR_RETURN(auto sw, parse_switch(c, name, node));
            if (sw.dpid == 0) sw.dpid = base.dpid;
            sw.line = base.line;  // a merged node has no place in the file; the base has
            k.switches[name] = std::move(sw);
          }
        }
        if (auto o = cn["controllers"]) {
          if (!o.IsMap()) return c.err(o, "controllers", "expected a mapping NAME: {overrides}");
          for (const auto& kv : o) {
            auto name = kv.first.as<std::string>();
            if (!kv.second.IsMap()) return c.err(kv.second, name, "expected a mapping of overrides");
            YAML::Node base = root["controllers"] ? root["controllers"][name] : YAML::Node();
            // A kind change starts from a clean node (apps of one kind mean nothing to another).
            if (kv.second["kind"] && base && base["kind"] &&
                kv.second["kind"].as<std::string>() != base["kind"].as<std::string>())
              base = YAML::Node();
            FLOWLAB_ASSIGN_OR_RETURN(auto ct, parse_controller(c, name, merged(base, kv.second)));
            k.controllers[name] = std::move(ct);
          }
        }
        if (k.controller_link && std::none_of(k.switches.begin(), k.switches.end(), [&](const auto& kv) {
              return !kv.second.controller.empty() && kv.second.kind != SwitchKind::kLinuxBridge;
            }))
          return c.err(cn["controller_link"], "controller_link", "no switch of the case uses a controller");
        s.cases.push_back(std::move(k));
      }
    } else {
      CaseSpec k;
      k.name = "default";
      k.settle_s = settle;
      k.switches = base_sw;
      k.controllers = base_ctl;
      s.cases.push_back(std::move(k));
    }
    FLOWLAB_TRY(semantic_checks(c, root, s, base_sw));
    // Events, checked against the nodes, the links and the tests they run during.
    if (root["events"]) {
      LAB_ASSIGN(s.events, parse_events(root["events"], path));
      EventScope scope;
      for (const auto& [n, sw] : base_sw) scope.nodes.push_back(n);
      for (const auto& [n, ct] : base_ctl) scope.nodes.push_back(n);
      for (const auto& l : s.links)
        scope.links.emplace_back(l.a.node + ":" + l.a.ifname, l.b.node + ":" + l.b.ifname);
      for (const auto& t : s.tests)
        if (t.events && (scope.duration_s == 0 || t.run_seconds() < scope.duration_s)) {
          scope.duration_s = t.run_seconds();
          scope.test_kind = std::string(to_string(t.type));
        }
      FLOWLAB_TRY(check_events(s.events, scope, path));
    }
    return s;
  } catch (const YAML::Exception& e) {
    return fail("{}:{}: {}", path, e.mark.line + 1, e.msg);
  }
}

Result<Scenario> load_scenario(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("{}: cannot open the scenario file", path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_scenario(ss.str(), path);
}

void make_quick(Scenario& s) {
  for (auto& t : s.tests) {
    if (t.events) continue;  // its events are timed against its duration
    t.duration = std::min(t.duration, 1.0);
    if (t.type == TestType::kPing) t.count = std::min(t.count, 3);
    if (t.type == TestType::kPingall) t.count = 1;
    if (t.type == TestType::kTcpRr) t.count = std::min(t.count, 200);
    t.interval = std::min(t.interval, 0.05);
  }
}

}  // namespace flowlab::lab

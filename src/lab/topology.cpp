// Scenario YAML -> topology model, with the checks `flowlab lab validate` runs.
// Every error names the file, the line (1-based) and the key it is about.
#include "lab/topology.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

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
#define LAB_ASSIGN(lhs, expr)                                       \
  do {                                                              \
    auto lab_r_ = (expr);                                           \
    if (!lab_r_.ok()) return ::flowlab::unexpected(lab_r_.error()); \
    lhs = std::move(lab_r_.value());                                \
  } while (0)

namespace {

constexpr size_t kIfNameMax = 15;

// Parsing context: the file name for messages and the scenario directory.
struct Ctx {
  std::string path;
  std::string dir;

  Unexpected<Error> err(const YAML::Node& n, std::string_view key, std::string_view msg) const {
    int line = n.IsDefined() ? n.Mark().line + 1 : 0;
    return fail("{}:{}: key '{}': {}", path, line, key, msg);
  }
};

int line_of(const YAML::Node& n) { return n.Mark().line + 1; }

Status check_keys(const Ctx& c, const YAML::Node& map, std::string_view where,
                  std::initializer_list<std::string_view> allowed) {
  if (!map.IsMap()) return c.err(map, where, "expected a mapping");
  for (const auto& kv : map) {
    auto k = kv.first.as<std::string>();
    if (std::find(allowed.begin(), allowed.end(), k) == allowed.end()) {
      std::string list;
      for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      return c.err(kv.first, k, fmt::format("unknown key in {} (allowed: {})", where, list));
    }
  }
  return ok_status();
}

template <typename T>
Result<T> scalar(const Ctx& c, const YAML::Node& n, std::string_view key, std::string_view what) {
  if (!n.IsScalar()) return c.err(n, key, fmt::format("expected {}", what));
  try {
    return n.as<T>();
  } catch (const YAML::Exception&) {
    return c.err(n, key, fmt::format("expected {}, got '{}'", what, n.Scalar()));
  }
}

Result<std::string> str(const Ctx& c, const YAML::Node& n, std::string_view key) {
  return scalar<std::string>(c, n, key, "a string");
}

Result<std::vector<std::string>> str_list(const Ctx& c, const YAML::Node& n, std::string_view key) {
  std::vector<std::string> out;
  if (n.IsScalar()) {
    out.push_back(n.Scalar());
    return out;
  }
  if (!n.IsSequence()) return c.err(n, key, "expected a list of strings");
  for (const auto& e : n) {
    FLOWLAB_ASSIGN_OR_RETURN(auto s, str(c, e, key));
    out.push_back(std::move(s));
  }
  return out;
}

Status check_name(const Ctx& c, const YAML::Node& n, std::string_view key, const std::string& name) {
  if (name.empty() || name.size() > 12) return c.err(n, key, "names must be 1..12 characters");
  for (char ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_' && ch != '-')
      return c.err(n, key, fmt::format("name '{}' may hold only letters, digits, '-', '_'", name));
  return ok_status();
}

Status check_cidr(const Ctx& c, const YAML::Node& n, const std::string& a) {
  auto slash = a.find('/');
  unsigned b[4];
  int plen;
  char tail;
  if (slash == std::string::npos ||
      std::sscanf(a.c_str(), "%u.%u.%u.%u/%d%c", &b[0], &b[1], &b[2], &b[3], &plen, &tail) != 5 ||
      b[0] > 255 || b[1] > 255 || b[2] > 255 || b[3] > 255 || plen < 0 || plen > 32)
    return c.err(n, "addr", fmt::format("'{}' is not an IPv4 address with prefix (10.0.0.1/24)", a));
  return ok_status();
}

Result<Interface> parse_interface(const Ctx& c, const std::string& name, const YAML::Node& n) {
  Interface i;
  i.name = name;
  if (name.empty() || name.size() > kIfNameMax)
    return c.err(n, name, "interface names must be 1..15 characters");
  FLOWLAB_TRY(check_keys(c, n, "interface", {"addr", "mtu"}));
  if (n["addr"]) {
    LAB_ASSIGN(i.addr, str(c, n["addr"], "addr"));
    FLOWLAB_TRY(check_cidr(c, n["addr"], i.addr));
  }
  if (n["mtu"]) LAB_ASSIGN(i.mtu, (scalar<int>(c, n["mtu"], "mtu", "an integer")));
  return i;
}

Result<HostSpec> parse_host(const Ctx& c, const std::string& name, const YAML::Node& n) {
  HostSpec h;
  h.name = name;
  h.line = line_of(n);
  // A host with no keys gets its interfaces from the links, without addresses.
  if (!n.IsNull()) FLOWLAB_TRY(check_keys(c, n, "host", {"addr", "mtu", "offloads", "interfaces"}));
  if (n.IsMap() && (n["addr"] || n["mtu"])) {
    YAML::Node e(YAML::NodeType::Map);
    if (n["addr"]) e["addr"] = n["addr"];
    if (n["mtu"]) e["mtu"] = n["mtu"];
    FLOWLAB_ASSIGN_OR_RETURN(auto i, parse_interface(c, "eth0", e));
    h.interfaces.push_back(std::move(i));
  }
  if (n.IsMap() && n["interfaces"]) {
    if (!n["interfaces"].IsMap()) return c.err(n["interfaces"], "interfaces", "expected a mapping");
    for (const auto& kv : n["interfaces"]) {
      auto ifn = kv.first.as<std::string>();
      YAML::Node body = kv.second.IsNull() ? YAML::Node(YAML::NodeType::Map) : kv.second;
      FLOWLAB_ASSIGN_OR_RETURN(auto i, parse_interface(c, ifn, body));
      h.interfaces.push_back(std::move(i));
    }
  }
  if (n.IsMap() && n["offloads"])
    LAB_ASSIGN(h.offloads, (scalar<bool>(c, n["offloads"], "offloads", "on/off")));
  return h;
}

Result<SwitchSpec> parse_switch(const Ctx& c, const std::string& name, const YAML::Node& n) {
  SwitchSpec s;
  s.name = name;
  s.line = line_of(n);
  FLOWLAB_TRY(check_keys(c, n, "switch", {"kind", "dpid", "controller", "security_group", "args"}));
  if (!n["kind"]) return c.err(n, name, "switch needs 'kind' (flowlab|ovs|ovs-tso|linux-bridge)");
  FLOWLAB_ASSIGN_OR_RETURN(auto kind, str(c, n["kind"], "kind"));
  if (kind == "flowlab")
    s.kind = SwitchKind::kFlowlab;
  else if (kind == "ovs")
    s.kind = SwitchKind::kOvs;
  else if (kind == "ovs-tso")
    s.kind = SwitchKind::kOvsTso;
  else if (kind == "linux-bridge")
    s.kind = SwitchKind::kLinuxBridge;
  else
    return c.err(n["kind"], "kind",
                 fmt::format("unknown switch kind '{}' (flowlab|ovs|ovs-tso|linux-bridge)", kind));
  if (n["dpid"]) {
    FLOWLAB_ASSIGN_OR_RETURN(auto d, str(c, n["dpid"], "dpid"));
    char* end = nullptr;
    s.dpid = std::strtoull(d.c_str(), &end, 0);
    if (d.empty() || *end) return c.err(n["dpid"], "dpid", fmt::format("'{}' is not a number", d));
  }
  if (n["controller"]) LAB_ASSIGN(s.controller, str(c, n["controller"], "controller"));
  if (s.controller == "none") s.controller.clear();
  if (n["args"]) LAB_ASSIGN(s.extra_args, str_list(c, n["args"], "args"));
  if (auto sg = n["security_group"]; sg && !sg.IsNull()) {
    if (sg.IsScalar()) {
      LAB_ASSIGN(s.security_group, (scalar<bool>(c, sg, "security_group", "on/off")));
    } else {
      FLOWLAB_TRY(check_keys(c, sg, "security_group", {"rules"}));
      s.security_group = true;
      if (sg["rules"] && !sg["rules"].IsSequence())
        return c.err(sg["rules"], "rules", "expected a list of {proto, port, src}");
      for (const auto& r : sg["rules"]) {
        FLOWLAB_TRY(check_keys(c, r, "rule", {"proto", "port", "src"}));
        SgRule rule;
        rule.proto = "any";
        if (r["proto"]) LAB_ASSIGN(rule.proto, str(c, r["proto"], "proto"));
        if (rule.proto != "tcp" && rule.proto != "udp" && rule.proto != "icmp" && rule.proto != "any")
          return c.err(r["proto"], "proto", "expected tcp, udp, icmp or any");
        if (r["port"]) LAB_ASSIGN(rule.port, (scalar<int>(c, r["port"], "port", "a port number")));
        if (r["src"]) {
          LAB_ASSIGN(rule.src, str(c, r["src"], "src"));
          FLOWLAB_TRY(check_cidr(c, r["src"], rule.src));
        }
        s.sg_rules.push_back(rule);
      }
    }
  }
  if (s.security_group && s.kind != SwitchKind::kLinuxBridge)
    return c.err(
        n["security_group"], "security_group",
        "iptables security groups exist only on kind linux-bridge (use the flowlab firewall app otherwise)");
  return s;
}

// Finds an os-ken app file: next to the scenario, in $FLOWLAB_PEERS_DIR, or in the
// shared peers folder beside the checkout. Returns the name unchanged when not found
// (the case is then skipped at run time, like any missing peer).
std::string resolve_app(const Ctx& c, const std::string& f) {
  namespace fs = std::filesystem;
  if (fs::path(f).is_absolute()) return f;
  std::vector<fs::path> dirs = {c.dir};
  if (const char* e = std::getenv("FLOWLAB_PEERS_DIR")) dirs.emplace_back(e);
  dirs.push_back(fs::path(c.dir) / "../../shared/peers");
  dirs.push_back(fs::path(c.dir) / "../shared/peers");
  for (const auto& d : dirs) {
    std::error_code ec;
    auto p = d / f;
    if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
  }
  return f;
}

Result<ControllerSpec> parse_controller(const Ctx& c, const std::string& name, const YAML::Node& n) {
  ControllerSpec s;
  s.name = name;
  s.line = line_of(n);
  FLOWLAB_TRY(check_keys(c, n, "controller", {"kind", "apps", "app", "config", "port"}));
  if (!n["kind"]) return c.err(n, name, "controller needs 'kind' (flowlab|os-ken|none)");
  FLOWLAB_ASSIGN_OR_RETURN(auto kind, str(c, n["kind"], "kind"));
  if (kind == "flowlab")
    s.kind = ControllerKind::kFlowlab;
  else if (kind == "os-ken")
    s.kind = ControllerKind::kOsKen;
  else if (kind == "none")
    s.kind = ControllerKind::kNone;
  else
    return c.err(n["kind"], "kind", fmt::format("unknown controller kind '{}' (flowlab|os-ken|none)", kind));
  if (n["apps"]) LAB_ASSIGN(s.apps, str_list(c, n["apps"], "apps"));
  if (n["app"]) {
    FLOWLAB_ASSIGN_OR_RETURN(auto a, str(c, n["app"], "app"));
    if (s.kind == ControllerKind::kOsKen)
      s.app_file = resolve_app(c, a);
    else
      s.apps.push_back(a);
  }
  if (n["config"]) {
    LAB_ASSIGN(s.config, str(c, n["config"], "config"));
    if (!std::filesystem::path(s.config).is_absolute()) s.config = c.dir + "/" + s.config;
  }
  if (n["port"]) LAB_ASSIGN(s.port, (scalar<int>(c, n["port"], "port", "a port number")));
  if (s.kind == ControllerKind::kFlowlab && s.apps.empty())
    return c.err(n, name, "a flowlab controller needs 'apps' (hub, learning-switch, firewall)");
  if (s.kind == ControllerKind::kOsKen && s.app_file.empty())
    return c.err(n, name, "an os-ken controller needs 'app' (a Python app file)");
  return s;
}

Result<Endpoint> parse_endpoint(const Ctx& c, const YAML::Node& n) {
  FLOWLAB_ASSIGN_OR_RETURN(auto s, str(c, n, "endpoints"));
  auto colon = s.find(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == s.size())
    return c.err(n, "endpoints", fmt::format("'{}' is not NODE:IFNAME", s));
  return Endpoint{s.substr(0, colon), s.substr(colon + 1)};
}

Result<TestSpec> parse_test(const Ctx& c, const YAML::Node& n) {
  TestSpec t;
  t.line = line_of(n);
  FLOWLAB_TRY(check_keys(c, n, "test",
                         {"type", "name", "from", "to", "count", "interval", "duration", "streams", "window",
                          "rate", "size", "windows"}));
  if (!n["type"])
    return c.err(n, "type", "test needs 'type' (ping|iperf3-tcp|iperf3-udp|iperf2-window|tcp-rr)");
  FLOWLAB_ASSIGN_OR_RETURN(auto type, str(c, n["type"], "type"));
  if (type == "ping")
    t.type = TestType::kPing;
  else if (type == "iperf3-tcp")
    t.type = TestType::kIperf3Tcp;
  else if (type == "iperf3-udp")
    t.type = TestType::kIperf3Udp;
  else if (type == "iperf2-window")
    t.type = TestType::kIperf2Window;
  else if (type == "tcp-rr")
    t.type = TestType::kTcpRr;
  else if (type == "probe")
    t.type = TestType::kProbe;
  else
    return c.err(
        n["type"], "type",
        fmt::format("unknown test type '{}' (ping|iperf3-tcp|iperf3-udp|iperf2-window|tcp-rr|probe)", type));
  t.name = type;
  if (t.type == TestType::kTcpRr) {
    t.count = 1000;
    t.size = 64;
  }
  // lab-shape: the probe's defaults and its interval with units ("1ms").
  if (t.type == TestType::kProbe) {
    t.duration = 10;
    t.interval = 0.001;
    t.size = 64;
    if (n["interval"]) {
      auto iv = parse_duration_ns(n["interval"].IsScalar() ? n["interval"].Scalar() : "");
      if (!iv.ok() || *iv < 10'000 || *iv > 1'000'000'000)
        return c.err(n["interval"], "interval", "expected 10us..1s (1ms)");
      t.interval = double(*iv) / 1e9;
    }
  }
  if (n["name"]) LAB_ASSIGN(t.name, str(c, n["name"], "name"));
  if (!n["from"] || !n["to"]) return c.err(n, "from", "test needs 'from' and 'to' hosts");
  LAB_ASSIGN(t.from, str(c, n["from"], "from"));
  LAB_ASSIGN(t.to, str(c, n["to"], "to"));
  if (n["count"]) LAB_ASSIGN(t.count, (scalar<int>(c, n["count"], "count", "an integer")));
  if (n["interval"] && t.type != TestType::kProbe)
    LAB_ASSIGN(t.interval, (scalar<double>(c, n["interval"], "interval", "seconds")));
  if (n["duration"]) LAB_ASSIGN(t.duration, (scalar<double>(c, n["duration"], "duration", "seconds")));
  if (n["streams"]) LAB_ASSIGN(t.streams, (scalar<int>(c, n["streams"], "streams", "an integer")));
  if (n["window"]) LAB_ASSIGN(t.window, str(c, n["window"], "window"));
  if (n["rate"]) LAB_ASSIGN(t.rate, str(c, n["rate"], "rate"));
  if (n["size"]) LAB_ASSIGN(t.size, (scalar<int>(c, n["size"], "size", "bytes")));
  if (n["windows"]) LAB_ASSIGN(t.windows, str_list(c, n["windows"], "windows"));
  if (t.count <= 0 || t.count > 100000) return c.err(n["count"], "count", "must be 1..100000");
  if (t.interval < 0.002 && t.type != TestType::kProbe) return c.err(n["interval"], "interval", "must be >= 0.002 s");
  if (t.duration <= 0 || t.duration > 600) return c.err(n["duration"], "duration", "must be in (0, 600] s");
  if (t.streams < 1 || t.streams > 128) return c.err(n["streams"], "streams", "must be 1..128");
  if (t.size < 1 || t.size > 65000) return c.err(n["size"], "size", "must be 1..65000 bytes");
  if (t.type == TestType::kProbe && t.size < 16) return c.err(n["size"], "size", "a probe needs 16..65000 bytes");
  return t;
}

// A case's override of one switch/controller: the base node with the case's keys on top.
YAML::Node merged(const YAML::Node& base, const YAML::Node& over) {
  YAML::Node out = base ? YAML::Clone(base) : YAML::Node(YAML::NodeType::Map);
  for (const auto& kv : over) out[kv.first.as<std::string>()] = kv.second;
  return out;
}

Status semantic_checks(const Ctx& c, const YAML::Node& root, Scenario& s,
                       const std::map<std::string, SwitchSpec>& base_sw,
                       const std::map<std::string, ControllerSpec>&) {
  std::set<std::string> nodes;
  for (const auto& h : s.hosts) nodes.insert(h.name);
  for (const auto& [n, sw] : base_sw) {
    if (nodes.count(n)) return c.err(root["switches"], n, "a host has the same name");
    nodes.insert(n);
  }
  std::set<std::string> used;
  for (size_t i = 0; i < s.links.size(); ++i) {
    auto node = root["links"][i];
    for (const Endpoint* e : {&s.links[i].a, &s.links[i].b}) {
      if (!nodes.count(e->node)) return c.err(node, "endpoints", fmt::format("unknown node '{}'", e->node));
      if (!used.insert(e->node + ":" + e->ifname).second)
        return c.err(node, "endpoints", fmt::format("'{}:{}' is used by two links", e->node, e->ifname));
      size_t len = base_sw.count(e->node) ? e->node.size() + 1 + e->ifname.size() : e->ifname.size();
      if (len > kIfNameMax)
        return c.err(
            node, "endpoints",
            fmt::format("interface name for '{}:{}' would exceed 15 characters", e->node, e->ifname));
    }
    if (base_sw.count(s.links[i].a.node) && base_sw.count(s.links[i].b.node))
      return c.err(node, "endpoints", "switch-to-switch links are not supported yet");
  }
  for (auto& h : s.hosts) {
    for (const auto& i : h.interfaces)
      if (!used.count(h.name + ":" + i.name))
        return c.err(root["hosts"][h.name], i.name,
                     fmt::format("host '{}' interface '{}' is on no link", h.name, i.name));
    // Interfaces only named in links exist without an address.
    for (const auto& l : s.links)
      for (const Endpoint* e : {&l.a, &l.b})
        if (e->node == h.name && std::none_of(h.interfaces.begin(), h.interfaces.end(),
                                              [&](auto& i) { return i.name == e->ifname; }))
          h.interfaces.push_back(Interface{e->ifname, "", 0});
  }
  std::set<std::string> tnames;
  for (size_t i = 0; i < s.tests.size(); ++i) {
    auto& t = s.tests[i];
    auto node = root["tests"][i];
    if (!s.host(t.from)) return c.err(node["from"], "from", fmt::format("unknown host '{}'", t.from));
    auto addr = s.address_of(t.to);
    if (!addr.ok()) return c.err(node["to"], "to", addr.error().message);
    if (t.from == t.to.substr(0, t.to.find(':')))
      return c.err(node["to"], "to", "from and to are the same host");
    std::string base = t.name;
    for (int k = 2; !tnames.insert(t.name).second; ++k) {
      if (node["name"]) return c.err(node["name"], "name", fmt::format("two tests named '{}'", t.name));
      t.name = fmt::format("{}-{}", base, k);
    }
  }
  for (size_t i = 0; i < s.cases.size(); ++i) {
    auto& cs = s.cases[i];
    auto node = root["cases"] ? root["cases"][i] : root;
    for (const auto& [n, sw] : cs.switches) {
      if (!sw.controller.empty() && !cs.controllers.count(sw.controller))
        return c.err(node, "controller",
                     fmt::format("switch '{}' names unknown controller '{}'", n, sw.controller));
    }
    for (const auto& tn : cs.tests)
      if (!tnames.count(tn))
        return c.err(node["tests"], "tests", fmt::format("case names unknown test '{}'", tn));
  }
  return ok_status();
}

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
                   {"name", "description", "hosts", "switches", "controllers", "links", "cases", "tests",
                    "events"}));
    Scenario s;
    s.path = path;
    if (!root["name"]) return c.err(root, "name", "the scenario needs a 'name'");
    LAB_ASSIGN(s.name, str(c, root["name"], "name"));
    if (root["description"]) LAB_ASSIGN(s.description, str(c, root["description"], "description"));

    if (!root["hosts"] || !root["hosts"].IsMap()) return c.err(root, "hosts", "expected a mapping of hosts");
    for (const auto& kv : root["hosts"]) {
      auto name = kv.first.as<std::string>();
      FLOWLAB_TRY(check_name(c, kv.first, "hosts", name));
      FLOWLAB_ASSIGN_OR_RETURN(auto h, parse_host(c, name, kv.second));
      s.hosts.push_back(std::move(h));
    }
    std::map<std::string, SwitchSpec> base_sw;
    if (auto sws = root["switches"]) {
      if (!sws.IsMap()) return c.err(sws, "switches", "expected a mapping of switches");
      for (const auto& kv : sws) {
        auto name = kv.first.as<std::string>();
        FLOWLAB_TRY(check_name(c, kv.first, "switches", name));
        FLOWLAB_ASSIGN_OR_RETURN(auto sw, parse_switch(c, name, kv.second));
        if (sw.dpid == 0) sw.dpid = base_sw.size() + 1;
        base_sw[name] = std::move(sw);
      }
    }
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
    if (!root["links"] || !root["links"].IsSequence())
      return c.err(root, "links", "expected a list of links");
    for (const auto& ln : root["links"]) {
      FLOWLAB_TRY(check_keys(c, ln, "link",
                             {"endpoints", "mtu", "bw", "delay", "jitter", "loss", "queue", "a_to_b", "b_to_a"}));
      auto eps = ln["endpoints"];
      if (!eps || !eps.IsSequence() || eps.size() != 2)
        return c.err(eps ? eps : YAML::Node(ln), "endpoints", "expected two endpoints [NODE:IF, NODE:IF]");
      LinkSpec l;
      l.line = line_of(ln);
      LAB_ASSIGN(l.a, parse_endpoint(c, eps[0]));
      LAB_ASSIGN(l.b, parse_endpoint(c, eps[1]));
      if (ln["mtu"]) LAB_ASSIGN(l.mtu, (scalar<int>(c, ln["mtu"], "mtu", "an integer")));
      LAB_ASSIGN(l.shape, parse_link_shapes(ln, path));  // lab-shape
      s.links.push_back(l);
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
                               {"name", "description", "switches", "controllers", "offloads", "tests"}));
        CaseSpec k;
        k.line = line_of(cn);
        if (!cn["name"]) return c.err(cn, "name", "each case needs a 'name'");
        LAB_ASSIGN(k.name, str(c, cn["name"], "name"));
        if (!names.insert(k.name).second)
          return c.err(cn["name"], "name", fmt::format("two cases named '{}'", k.name));
        if (cn["description"]) LAB_ASSIGN(k.description, str(c, cn["description"], "description"));
        if (cn["offloads"]) LAB_ASSIGN(k.offloads, (scalar<bool>(c, cn["offloads"], "offloads", "on/off")));
        if (cn["tests"]) LAB_ASSIGN(k.tests, str_list(c, cn["tests"], "tests"));
        k.switches = base_sw;
        k.controllers = base_ctl;
        if (auto o = cn["switches"]) {
          if (!o.IsMap()) return c.err(o, "switches", "expected a mapping NAME: {overrides}");
          for (const auto& kv : o) {
            auto name = kv.first.as<std::string>();
            if (!base_sw.count(name)) return c.err(kv.first, name, "case overrides an unknown switch");
            if (!kv.second.IsMap()) return c.err(kv.second, name, "expected a mapping of overrides");
            YAML::Node base = root["switches"][name];
            FLOWLAB_ASSIGN_OR_RETURN(auto sw, parse_switch(c, name, merged(base, kv.second)));
            if (sw.dpid == 0) sw.dpid = base_sw[name].dpid;
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
        s.cases.push_back(std::move(k));
      }
    } else {
      CaseSpec k;
      k.name = "default";
      k.switches = base_sw;
      k.controllers = base_ctl;
      s.cases.push_back(std::move(k));
    }
    FLOWLAB_TRY(semantic_checks(c, root, s, base_sw, base_ctl));
    // lab-shape: events, checked against the nodes, the links and the probe tests.
    if (root["events"]) {
      LAB_ASSIGN(s.events, parse_events(root["events"], path));
      EventScope scope;
      for (const auto& [n, sw] : base_sw) scope.nodes.push_back(n);
      for (const auto& [n, ct] : base_ctl) scope.nodes.push_back(n);
      for (const auto& l : s.links)
        scope.links.emplace_back(l.a.node + ":" + l.a.ifname, l.b.node + ":" + l.b.ifname);
      for (const auto& t : s.tests)
        if (t.type == TestType::kProbe && (scope.duration_s == 0 || t.duration < scope.duration_s))
          scope.duration_s = t.duration;
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
    if (t.type == TestType::kProbe) continue;  // its events are timed against its duration
    t.duration = std::min(t.duration, 1.0);
    if (t.type == TestType::kPing) t.count = std::min(t.count, 3);
    if (t.type == TestType::kTcpRr) t.count = std::min(t.count, 200);
    t.interval = std::min(t.interval, 0.05);
  }
}

}  // namespace flowlab::lab

// Scenario YAML, the nodes and tests: hosts and their interfaces, switches,
// controllers, link endpoints, tests (see scenario_yaml.h).
#include <arpa/inet.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "lab/scenario/scenario_yaml.h"
#include "lab/scenario/shaping.h"

namespace flowlab::lab::yaml_parse {

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
  FLOWLAB_TRY(check_keys(c, n, "interface", {"addr", "mtu", "mac"}));
  if (n["addr"]) {
    LAB_ASSIGN(i.addr, str(c, n["addr"], "addr"));
    FLOWLAB_TRY(check_cidr(c, n["addr"], i.addr));
  }
  if (n["mtu"]) LAB_ASSIGN(i.mtu, (scalar<int>(c, n["mtu"], "mtu", "an integer")));
  if (n["mac"]) {
    LAB_ASSIGN(i.mac, str(c, n["mac"], "mac"));
    bool ok = i.mac.size() == 17;
    for (size_t k = 0; ok && k < i.mac.size(); ++k)
      ok = k % 3 == 2 ? i.mac[k] == ':' : std::isxdigit(static_cast<unsigned char>(i.mac[k])) != 0;
    if (!ok)
      return c.err(n["mac"], "mac", fmt::format("'{}': expected six hex bytes, 00:00:00:00:00:01", i.mac));
    if (std::stoi(i.mac.substr(0, 2), nullptr, 16) & 1)
      return c.err(n["mac"], "mac", fmt::format("'{}' is a multicast address", i.mac));
  }
  return i;
}

Result<HostSpec> parse_host(const Ctx& c, const std::string& name, const YAML::Node& n) {
  HostSpec h;
  h.name = name;
  h.line = line_of(n);
  // A host with no keys gets its interfaces from the links, without addresses.
  if (!n.IsNull())
    FLOWLAB_TRY(check_keys(c, n, "host", {"addr", "mtu", "mac", "offloads", "interfaces", "machine"}));
  if (n.IsMap() && (n["addr"] || n["mtu"] || n["mac"])) {
    YAML::Node e(YAML::NodeType::Map);
    if (n["addr"]) e["addr"] = n["addr"];
    if (n["mtu"]) e["mtu"] = n["mtu"];
    if (n["mac"]) e["mac"] = n["mac"];
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
  if (n.IsMap() && n["machine"]) LAB_ASSIGN(h.machine, str(c, n["machine"], "machine"));
  return h;
}

Result<SwitchSpec> parse_switch(const Ctx& c, const std::string& name, const YAML::Node& n) {
  SwitchSpec s;
  s.name = name;
  s.line = line_of(n);
  FLOWLAB_TRY(check_keys(c, n, "switch",
                         {"kind", "dpid", "controller", "controller_failover", "security_group", "args",
                          "stp", "ports", "machine", "protocols"}));
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
  if (n["controller"]) {
    // One name, or a list: the switch connects to each (several remote controllers).
    std::vector<std::string> names;
    LAB_ASSIGN(names, str_list(c, n["controller"], "controller"));
    std::set<std::string> seen;
    for (const auto& ct : names)
      if (ct.empty() || !seen.insert(ct).second)
        return c.err(n["controller"], "controller",
                     fmt::format("controller '{}' is named twice or empty", ct));
    if (names.size() > 1 && seen.count("none"))
      return c.err(n["controller"], "controller", "'none' cannot be one of several controllers");
    if (!names.empty()) s.controller = names[0];
    s.more_controllers.assign(names.begin() + std::min<size_t>(1, names.size()), names.end());
  }
  if (s.controller == "none") s.controller.clear();
  if (n["controller_failover"]) {
    LAB_ASSIGN(s.controller_failover,
               (scalar<bool>(c, n["controller_failover"], "controller_failover", "true/false")));
    if (s.controller_failover && s.kind != SwitchKind::kFlowlab)
      return c.err(
          n["controller_failover"], "controller_failover",
          fmt::format("{} connects to all its controllers at once; one at a time is flowlab's switch's "
                      "(kind: flowlab)",
                      kind));
    if (s.controller_failover && s.controller.empty())
      return c.err(n["controller_failover"], "controller_failover", "give the switch its 'controller' list");
  }
  if (n["protocols"]) {
    LAB_ASSIGN(s.protocols, str(c, n["protocols"], "protocols"));
    // ovs-vsctl's names; flowlab's switch speaks 1.0 and 1.3 to 1.5, Open vSwitch 1.0 to 1.5.
    bool flowlab = s.kind == SwitchKind::kFlowlab;
    for (size_t p = 0; p <= s.protocols.size();) {
      size_t e = s.protocols.find(',', p);
      if (e == std::string::npos) e = s.protocols.size();
      std::string v = s.protocols.substr(p, e - p);
      bool known = v == "OpenFlow10" || v == "OpenFlow13" || v == "OpenFlow14" || v == "OpenFlow15" ||
                   (!flowlab && (v == "OpenFlow11" || v == "OpenFlow12"));
      if (!known)
        return c.err(n["protocols"], "protocols",
                     fmt::format("'{}': {} switch speaks {}", v, kind,
                                 flowlab ? "OpenFlow10, OpenFlow13, OpenFlow14, OpenFlow15"
                                         : "OpenFlow10 ... OpenFlow15"));
      p = e + 1;
    }
    if (s.kind == SwitchKind::kLinuxBridge)
      return c.err(n["protocols"], "protocols", "a linux-bridge speaks no OpenFlow");
  }
  if (n["args"]) LAB_ASSIGN(s.extra_args, str_list(c, n["args"], "args"));
  if (n["machine"]) LAB_ASSIGN(s.machine, str(c, n["machine"], "machine"));
  if (n["stp"]) LAB_ASSIGN(s.stp, (scalar<bool>(c, n["stp"], "stp", "true/false")));
  if (s.stp && s.kind != SwitchKind::kLinuxBridge)
    return c.err(n["stp"], "stp",
                 "stp is the Linux bridge's kernel STP; for ovs/flowlab use a controller app that handles "
                 "loops (e.g. os-ken stp_switch_13.py)");
  if (n["ports"] && n["ports"].IsMap()) {  // {NAME: NUMBER}: OpenFlow numbers as given, in their order
    if (s.kind == SwitchKind::kLinuxBridge)
      return c.err(n["ports"], "ports",
                   "a Linux bridge has no OpenFlow port numbers: give the ports as a list");
    std::map<int, std::string> by_number;
    for (const auto& kv : n["ports"]) {
      FLOWLAB_ASSIGN_OR_RETURN(auto port, str(c, kv.first, "ports"));
      FLOWLAB_ASSIGN_OR_RETURN(int number, (scalar<int>(c, kv.second, "ports", "an OpenFlow port number")));
      if (number < 1 || number > 0xfeff)
        return c.err(kv.second, "ports", fmt::format("port {}: number {} is not 1..65279", port, number));
      if (!by_number.emplace(number, port).second)
        return c.err(kv.second, "ports", fmt::format("port number {} is given twice", number));
    }
    for (const auto& [number, port] : by_number) {
      s.ports.push_back(port);
      s.port_numbers.push_back(number);
    }
  } else if (n["ports"]) {
    LAB_ASSIGN(s.ports, str_list(c, n["ports"], "ports"));
  }
  if (n["ports"]) {
    std::set<std::string> seen;
    for (const auto& p : s.ports)
      if (p.empty() || !seen.insert(p).second)
        return c.err(n["ports"], "ports", fmt::format("port '{}' is declared twice or empty", p));
  }
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
  FLOWLAB_TRY(check_keys(c, n, "controller", {"kind", "apps", "app", "config", "port", "address"}));
  if (!n["kind"]) return c.err(n, name, "controller needs 'kind' (flowlab|os-ken|remote|none)");
  FLOWLAB_ASSIGN_OR_RETURN(auto kind, str(c, n["kind"], "kind"));
  if (kind == "flowlab")
    s.kind = ControllerKind::kFlowlab;
  else if (kind == "os-ken")
    s.kind = ControllerKind::kOsKen;
  else if (kind == "remote")
    s.kind = ControllerKind::kRemote;
  else if (kind == "none")
    s.kind = ControllerKind::kNone;
  else
    return c.err(n["kind"], "kind",
                 fmt::format("unknown controller kind '{}' (flowlab|os-ken|remote|none)", kind));
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
  if (n["port"] && (s.port < 1 || s.port > 65535)) return c.err(n["port"], "port", "must be 1..65535");
  if (n["address"]) {
    if (s.kind != ControllerKind::kRemote)
      return c.err(n["address"], "address", "only a remote controller has an address (kind: remote)");
    LAB_ASSIGN(s.address, str(c, n["address"], "address"));
    in_addr a{};
    if (inet_pton(AF_INET, s.address.c_str(), &a) != 1)
      return c.err(n["address"], "address", fmt::format("'{}' is not an IPv4 address", s.address));
  }
  if (s.kind == ControllerKind::kRemote) {
    if (s.address.empty()) s.address = "127.0.0.1";  // Mininet's RemoteController default
    if (n["apps"] || n["app"] || n["config"])
      return c.err(n, name, "a remote controller runs elsewhere: it takes only 'address' and 'port'");
  }
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
                          "rate", "size", "windows", "events", "full"}));
  if (!n["type"])
    return c.err(n, "type",
                 "test needs 'type' (ping|pingall|iperf3-tcp|iperf3-udp|iperf2-window|tcp-rr|probe)");
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
  else if (type == "pingall")
    t.type = TestType::kPingall;
  else if (type == "probe")
    t.type = TestType::kProbe;
  else
    return c.err(
        n["type"], "type",
        fmt::format("unknown test type '{}' (ping|pingall|iperf3-tcp|iperf3-udp|iperf2-window|tcp-rr|probe)",
                    type));
  t.name = type;
  if (t.type == TestType::kTcpRr) {
    t.count = 1000;
    t.size = 64;
  }
  if (t.type == TestType::kPingall) t.count = 1;  // Mininet's pingall: one echo per ordered pair
  // The probe's defaults and its interval with units ("1ms").
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
  if (t.type == TestType::kPingall) {
    if (n["from"] || n["to"])
      return c.err(n, "from", "pingall takes no 'from'/'to': it pings every host pair");
  } else {
    if (!n["from"] || !n["to"]) return c.err(n, "from", "test needs 'from' and 'to' hosts");
    LAB_ASSIGN(t.from, str(c, n["from"], "from"));
    LAB_ASSIGN(t.to, str(c, n["to"], "to"));
  }
  if (n["count"]) LAB_ASSIGN(t.count, (scalar<int>(c, n["count"], "count", "an integer")));
  if (n["interval"] && t.type != TestType::kProbe)
    LAB_ASSIGN(t.interval, (scalar<double>(c, n["interval"], "interval", "seconds")));
  if (n["duration"]) LAB_ASSIGN(t.duration, (scalar<double>(c, n["duration"], "duration", "seconds")));
  if (n["streams"]) LAB_ASSIGN(t.streams, (scalar<int>(c, n["streams"], "streams", "an integer")));
  if (n["window"]) LAB_ASSIGN(t.window, str(c, n["window"], "window"));
  if (n["rate"]) {
    LAB_ASSIGN(t.rate, str(c, n["rate"], "rate"));
    if (t.type == TestType::kIperf3Tcp) {  // a cap on TCP: iperf3 -b, the lab's rate units
      auto bps = parse_rate_bps(t.rate);
      if (!bps.ok()) return c.err(n["rate"], "rate", bps.error().message);
    }
  }
  if (n["size"]) LAB_ASSIGN(t.size, (scalar<int>(c, n["size"], "size", "bytes")));
  if (n["windows"]) LAB_ASSIGN(t.windows, str_list(c, n["windows"], "windows"));
  if (n["full"]) {
    if (t.type != TestType::kPingall) return c.err(n["full"], "full", "only a pingall test has 'full'");
    LAB_ASSIGN(t.full, (scalar<bool>(c, n["full"], "full", "true/false")));
  }
  if (t.type == TestType::kPingall && t.count > 100)
    return c.err(n["count"], "count", "pingall: 1..100 per pair");
  if (t.count <= 0 || t.count > 100000) return c.err(n["count"], "count", "must be 1..100000");
  if (t.interval < 0.002 && t.type != TestType::kProbe)
    return c.err(n["interval"], "interval", "must be >= 0.002 s");
  if (t.duration <= 0 || t.duration > 600) return c.err(n["duration"], "duration", "must be in (0, 600] s");
  if (t.streams < 1 || t.streams > 128) return c.err(n["streams"], "streams", "must be 1..128");
  if (t.size < 1 || t.size > 65000) return c.err(n["size"], "size", "must be 1..65000 bytes");
  if (t.type == TestType::kProbe && t.size < 16)
    return c.err(n["size"], "size", "a probe needs 16..65000 bytes");
  t.events = t.type == TestType::kProbe;
  if (n["events"]) LAB_ASSIGN(t.events, (scalar<bool>(c, n["events"], "events", "true/false")));
  if (t.events && (t.type == TestType::kPingall || t.type == TestType::kTcpRr))
    return c.err(
        n["events"], "events",
        "events run during a test of known length (probe, ping, iperf3-tcp, iperf3-udp, iperf2-window)");
  return t;
}

// A case's override of one switch/controller: the base node with the case's keys on top.
YAML::Node merged(const YAML::Node& base, const YAML::Node& over) {
  YAML::Node out = base ? YAML::Clone(base) : YAML::Node(YAML::NodeType::Map);
  for (const auto& kv : over) out[kv.first.as<std::string>()] = kv.second;
  return out;
}

Status parse_metrics(const Ctx& c, const YAML::Node& n, Scenario& s) {
  if (n.IsScalar()) {
    LAB_ASSIGN(s.metrics, (scalar<bool>(c, n, "metrics", "true/false or {interval: 1s, port: 9090}")));
    return ok_status();
  }
  if (!n.IsMap()) return c.err(n, "metrics", "expected true/false or {interval: 1s, port: 9090}");
  FLOWLAB_TRY(check_keys(c, n, "metrics", {"interval", "port"}));
  s.metrics = true;
  if (auto iv = n["interval"]) {
    std::string text;
    LAB_ASSIGN(text, (scalar<std::string>(c, iv, "interval", "a duration (1s, 500ms)")));
    auto ns = parse_duration_ns(text);
    if (!ns.ok() || *ns < 100'000'000 || *ns > 60'000'000'000)
      return c.err(iv, "interval", "expected a scrape interval of 100ms..60s (1s, 500ms)");
    s.metrics_interval_s = double(*ns) / 1e9;
  }
  if (auto p = n["port"]) {
    LAB_ASSIGN(s.metrics_port, (scalar<int>(c, p, "port", "a TCP port")));
    if (s.metrics_port < 1 || s.metrics_port > 65535) return c.err(p, "port", "expected a TCP port, 1-65535");
  }
  return ok_status();
}

}  // namespace flowlab::lab::yaml_parse

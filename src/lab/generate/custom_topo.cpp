// The exporter's JSON -> CustomTopology, and the topology as scenario YAML (see custom_topo.h).
#include "lab/generate/custom_topo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "lab/generate/generators.h"

namespace flowlab::lab {

namespace {

using nlohmann::json;

bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

std::string show(const json& v) {
  std::string s = v.dump();
  return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

// A class option: {"class": NAME, "mro": [NAME, BASE, ...]}.
bool is_class(const json& v, std::string_view base) {
  if (!v.is_object() || !v.contains("mro") || !v["mro"].is_array()) return false;
  return std::any_of(v["mro"].begin(), v["mro"].end(),
                     [&](const json& c) { return c.is_string() && c == base; });
}
std::string class_name(const json& v) {
  if (v.is_object() && v.contains("class") && v["class"].is_string()) return v["class"].get<std::string>();
  if (v.is_object() && v.contains("repr") && v["repr"].is_string()) return v["repr"].get<std::string>();
  return show(v);
}

Result<std::string> string_field(const json& obj, const char* key, std::string_view what) {
  if (!obj.contains(key) || !obj[key].is_string()) return fail("{}: '{}' must be a string", what, key);
  return obj[key].get<std::string>();
}

// A number of Mbit/s (Mininet's bw) as the scenario's rate, "10M" / "0.5M".
Result<std::string> rate_of(const json& v, const std::string& where) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0)
    return fail("{}: bw={}: expected a number of Mbit/s above 0", where, show(v));
  return fmt::format("{}M", v.get<double>());
}

// Mininet's delay/jitter strings ("5ms", "100us", "1s"; a bare number is microseconds
// for tc, but Mininet users write units): kept as text for the scenario's parser.
Result<std::string> time_of(const json& v, const std::string& where, const char* key) {
  if (v.is_string() && !v.get<std::string>().empty()) return v.get<std::string>();
  return fail("{}: {}={}: expected a time with a unit, e.g. '5ms'", where, key, show(v));
}

Status decode_link_opts(const json& opts, const std::string& where, CustomLink& l) {
  if (!opts.is_object()) return fail("{}: link options must be an object", where);
  for (const auto& [k, v] : opts.items()) {
    if (k == "cls") {
      if (is_class(v, "TCLink")) {
        l.tc = true;
      } else if (!is_class(v, "Link")) {
        return fail("{}: cls={}: the lab builds Link and TCLink (and their subclasses)", where,
                    class_name(v));
      }
    } else if (k == "bw") {
      if (v.is_null()) continue;
      FLOWLAB_ASSIGN_OR_RETURN(l.bw, rate_of(v, where));
    } else if (k == "delay" || k == "jitter") {
      if (v.is_null()) continue;
      FLOWLAB_ASSIGN_OR_RETURN(auto t, time_of(v, where, k.c_str()));
      (k == "delay" ? l.delay : l.jitter) = t;
    } else if (k == "loss") {
      if (v.is_null()) continue;
      if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 100)
        return fail("{}: loss={}: expected a percentage 0..100", where, show(v));
      if (v.get<double>() > 0) l.loss = fmt::format("{}%", v.get<double>());
    } else if (k == "max_queue_size") {
      if (v.is_null()) continue;
      if (!v.is_number_integer() || v.get<int64_t>() < 1 || v.get<int64_t>() > 1000000)
        return fail("{}: max_queue_size={}: expected packets, 1..1000000", where, show(v));
      l.queue = int(v.get<int64_t>());
    } else {
      return fail(
          "{}: link option '{}' is not supported by the lab (supported: cls=Link|TCLink, bw, delay, jitter, "
          "loss, "
          "max_queue_size)",
          where, k);
    }
  }
  return {};
}

Result<CustomLink> decode_link(const json& j, size_t i, const json& defaults,
                               const std::set<std::string>& nodes) {
  std::string where = fmt::format("link {}", i + 1);
  if (!j.is_object()) return fail("{}: expected an object", where);
  FLOWLAB_ASSIGN_OR_RETURN(auto n1, string_field(j, "node1", where));
  FLOWLAB_ASSIGN_OR_RETURN(auto n2, string_field(j, "node2", where));
  where = fmt::format("link {} ({}, {})", i + 1, n1, n2);
  for (const auto& n : {n1, n2})
    if (!nodes.count(n)) return fail("{}: '{}' is neither a host nor a switch of the topology", where, n);
  if (n1 == n2) return fail("{}: a link from a node to itself", where);
  CustomLink l;
  l.node1 = n1;
  l.node2 = n2;
  for (auto [key, port] : {std::pair{"port1", &l.port1}, std::pair{"port2", &l.port2}}) {
    if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() < 0 ||
        j[key].get<int64_t>() > 65279)
      return fail("{}: '{}' must be a port number 0..65279", where, key);
    *port = int(j[key].get<int64_t>());
  }
  // As Mininet's addLink: a link with its own cls is built by that class alone; the
  // others by --link's class, its options under the link's.
  json opts = json::object();
  if (j.contains("opts")) {
    if (!j["opts"].is_object()) return fail("{}: 'opts' must be an object", where);
    opts = j["opts"];
  }
  if (!opts.contains("cls"))
    for (const auto& [k, v] : defaults.items())
      if (!opts.contains(k)) opts[k] = v;
  FLOWLAB_TRY(decode_link_opts(opts, where, l));
  if (!l.tc) {
    for (auto* s : {&l.bw, &l.delay, &l.jitter, &l.loss})
      if (!s->empty()) s->clear(), l.ignored.push_back("shaping");
    if (l.queue) l.queue = 0, l.ignored.push_back("shaping");
  }
  return l;
}

Result<std::string> host_ip(const json& v, const std::string& where) {
  if (!v.is_string()) return fail("{}: ip={}: expected an address, e.g. '10.0.0.1/8'", where, show(v));
  std::string ip = v.get<std::string>();
  if (ip.find('/') == std::string::npos) ip += "/8";  // Mininet's default prefix length
  auto slash = ip.find('/');
  std::string a = ip.substr(0, slash), len = ip.substr(slash + 1);
  int dots = 0, octet = -1;
  for (char ch : a) {
    if (ch == '.') {
      if (octet < 0) break;
      ++dots, octet = -1;
    } else if (ch >= '0' && ch <= '9') {
      octet = (octet < 0 ? 0 : octet * 10) + (ch - '0');
      if (octet > 255) {
        octet = -1;
        break;
      }
    } else {
      octet = -1;
      break;
    }
  }
  bool len_ok = !len.empty() && len.size() <= 2 && std::all_of(len.begin(), len.end(), is_digit) &&
                std::stoi(len) >= 1 && std::stoi(len) <= 32;
  if (dots != 3 || octet < 0 || !len_ok)
    return fail("{}: ip='{}': expected an IPv4 address, e.g. '10.0.0.1/8'", where, v.get<std::string>());
  return ip;
}

Result<std::string> host_mac(const json& v, const std::string& where) {
  bool ok = v.is_string() && v.get<std::string>().size() == 17;
  if (ok) {
    auto m = v.get<std::string>();
    for (size_t i = 0; i < m.size() && ok; ++i)
      ok = i % 3 == 2 ? m[i] == ':' : std::isxdigit(uint8_t(m[i])) != 0;
  }
  if (!ok) return fail("{}: mac={}: expected six colon-separated hex bytes", where, show(v));
  return v.get<std::string>();
}

Result<uint64_t> switch_dpid(const json& opts, const std::string& name) {
  std::string where = "switch " + name;
  if (opts.contains("dpid") && !opts["dpid"].is_null()) {
    const json& v = opts["dpid"];
    std::string d;
    if (v.is_string())
      for (char ch : v.get<std::string>())
        if (ch != ':') d += ch;
    bool ok = !d.empty() && d.size() <= 16 &&
              std::all_of(d.begin(), d.end(), [](char ch) { return std::isxdigit(uint8_t(ch)) != 0; });
    if (!ok) return fail("{}: dpid={}: expected up to 16 hex digits", where, show(v));
    uint64_t dpid = std::stoull(d, nullptr, 16);
    if (dpid == 0) return fail("{}: dpid={}: a datapath id cannot be 0", where, show(v));
    return dpid;
  }
  auto digit = std::find_if(name.begin(), name.end(), is_digit);
  auto end = std::find_if_not(digit, name.end(), is_digit);
  if (digit == name.end() || end - digit > 18 || std::stoull(std::string(digit, end)) == 0)
    return fail("{}: no dpid= and no number in the name to derive one from (as Mininet: name it s1, s2, ...)",
                where);
  return std::stoull(std::string(digit, end));
}

}  // namespace

Result<LinkDefaults> parse_link_arg(const std::string& s) {
  LinkDefaults d;
  auto comma = s.find(',');
  std::string kind = s.substr(0, comma);
  if (kind == "default" || kind.empty()) {
    if (comma != std::string::npos) return fail("--link {}: options need --link tc,...", s);
    return d;
  }
  if (kind != "tc")
    return fail("--link {}: expected default or tc[,bw=N,delay=T,jitter=T,loss=P,max_queue_size=N]", s);
  d.tc = true;
  json opts = json::object();
  size_t start = comma;
  while (start != std::string::npos) {
    size_t next = s.find(',', start + 1);
    std::string kv = s.substr(start + 1, next == std::string::npos ? std::string::npos : next - start - 1);
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return fail("--link {}: '{}' is not KEY=VALUE", s, kv);
    std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    char* endp = nullptr;
    double num = std::strtod(v.c_str(), &endp);
    bool numeric = !v.empty() && endp && *endp == '\0';
    if (numeric && v.find_first_of(".eE") == std::string::npos)
      opts[k] = int64_t(num);
    else if (numeric)
      opts[k] = num;
    else
      opts[k] = v;
    start = next;
  }
  CustomLink probe;
  probe.tc = true;
  if (auto st = decode_link_opts(opts, "--link " + s, probe); !st.ok()) return unexpected(st.error());
  d.opts_json = opts.dump();
  return d;
}

Result<YAML::Node> link_shape_keys(const LinkDefaults& d) {
  YAML::Node n(YAML::NodeType::Map);
  if (!d.tc) return n;
  json opts = json::parse(d.opts_json, nullptr, false);
  CustomLink l;
  l.tc = true;
  FLOWLAB_TRY(decode_link_opts(opts.is_object() ? opts : json::object(), "--link", l));
  if (!l.bw.empty()) n["bw"] = l.bw;
  if (!l.delay.empty()) n["delay"] = l.delay;
  if (!l.jitter.empty()) n["jitter"] = l.jitter;
  if (!l.loss.empty()) n["loss"] = l.loss;
  if (l.queue) n["queue"] = l.queue;
  return n;
}

Result<CustomTopology> decode_custom_topology(std::string_view text, const LinkDefaults& link,
                                              const IpBase& ipbase) {
  json j = json::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return fail("the topology exporter printed no JSON object: '{}'",
                std::string(text.substr(0, std::min<size_t>(text.size(), 200))));
  if (!j.contains("flowlab_custom_topo") || j["flowlab_custom_topo"] != 1)
    return fail("the topology exporter's output has no \"flowlab_custom_topo\": 1 (another version of it?)");
  if (j.contains("error")) {
    std::string msg = j["error"].is_string() ? j["error"].get<std::string>() : show(j["error"]);
    std::string tb =
        j.contains("traceback") && j["traceback"].is_string() ? j["traceback"].get<std::string>() : "";
    while (!tb.empty() && tb.back() == '\n') tb.pop_back();
    return fail("{}{}{}", msg, tb.empty() ? "" : "\n", tb);
  }
  CustomTopology t;
  if (j.contains("topo_module") && j["topo_module"].is_string()) t.topo_module = j["topo_module"];
  for (const char* key : {"hosts", "switches", "links"})
    if (!j.contains(key) || !j[key].is_array()) return fail("the topology has no '{}' list", key);
  if (j["switches"].size() > 1024 || j["hosts"].size() > 4096)
    return fail("the topology has {} hosts and {} switches (at most 4096 and 1024)", j["hosts"].size(),
                j["switches"].size());
  if (j["hosts"].size() > ipbase.capacity())
    return fail("{} hosts do not fit in --ipbase's /{} ({} addresses)", j["hosts"].size(), ipbase.prefix,
                ipbase.capacity());

  std::set<std::string> names;
  auto node = [&](const json& n, const char* what) -> Result<std::pair<std::string, json>> {
    if (!n.is_object()) return fail("a {} must be an object", what);
    FLOWLAB_ASSIGN_OR_RETURN(auto name, string_field(n, "name", what));
    if (name.empty() || name.size() > 10 || !std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(uint8_t(ch)) || ch == '_';
        }))
      return fail("{} '{}': names are 1-10 letters, digits or _ (the lab names interfaces after them)", what,
                  name);
    if (!names.insert(name).second) return fail("{} '{}': the name is used twice", what, name);
    json opts = n.contains("opts") ? n["opts"] : json::object();
    if (!opts.is_object()) return fail("{} {}: 'opts' must be an object", what, name);
    return std::pair{name, opts};
  };
  int n = 0;
  for (const auto& h : j["hosts"]) {
    FLOWLAB_ASSIGN_OR_RETURN(auto nh, node(h, "host"));
    auto& [name, opts] = nh;
    ++n;  // Mininet's address counter moves for every host, addressed or not
    CustomHost ch{name, mininet_ip(n, ipbase), mininet_mac(n)};
    std::string where = "host " + name;
    for (const auto& [k, v] : opts.items()) {
      if (k == "ip") {
        FLOWLAB_ASSIGN_OR_RETURN(ch.ip, host_ip(v, where));
      } else if (k == "mac") {
        FLOWLAB_ASSIGN_OR_RETURN(ch.mac, host_mac(v, where));
      } else if (k == "cls") {
        if (class_name(v) != "Host")
          return fail("{}: cls={}: the lab's hosts are plain Hosts (namespaces)", where, class_name(v));
      } else {
        return fail("{}: host option '{}' is not supported by the lab (supported: ip, mac, cls=Host)", where,
                    k);
      }
    }
    t.hosts.push_back(std::move(ch));
  }
  for (const auto& s : j["switches"]) {
    FLOWLAB_ASSIGN_OR_RETURN(auto ns, node(s, "switch"));
    auto& [name, opts] = ns;
    std::string where = "switch " + name;
    for (const auto& [k, v] : opts.items()) {
      if (k == "dpid") continue;
      if (k == "protocols" && v.is_string()) {
        t.notes.push_back(
            fmt::format("{}: protocols={} ignored (--switch KIND,protocols=... sets every switch's)", where,
                        v.get<std::string>()));
      } else if (k == "cls") {
        static const std::set<std::string> kinds = {"Switch", "OVSSwitch", "OVSKernelSwitch", "UserSwitch"};
        if (!kinds.count(class_name(v)))
          return fail("{}: cls={}: not supported; the switch kind comes from --switch", where, class_name(v));
        t.notes.push_back(fmt::format("{}: cls={} replaced by --switch", where, class_name(v)));
      } else {
        return fail("{}: switch option '{}' is not supported by the lab (supported: dpid, cls, protocols)",
                    where, k);
      }
    }
    FLOWLAB_ASSIGN_OR_RETURN(auto dpid, switch_dpid(opts, name));
    t.switches.push_back(CustomSwitch{name, dpid});
  }
  json defaults = json::parse(link.opts_json, nullptr, false);
  if (!defaults.is_object()) defaults = json::object();
  if (link.tc) defaults["cls"] = json{{"class", "TCLink"}, {"mro", {"TCLink", "Link"}}};
  std::map<std::string, std::set<int>> used;
  std::set<std::string> switch_names;
  for (const auto& s : t.switches) switch_names.insert(s.name);
  for (size_t i = 0; i < j["links"].size(); ++i) {
    FLOWLAB_ASSIGN_OR_RETURN(auto l, decode_link(j["links"][i], i, defaults, names));
    for (auto [nd, port] : {std::pair{l.node1, l.port1}, std::pair{l.node2, l.port2}}) {
      if (switch_names.count(nd) && port == 0)
        return fail("link {} ({}, {}): port 0 of switch {}: OpenFlow ports start at 1", i + 1, l.node1,
                    l.node2, nd);
      if (!used[nd].insert(port).second)
        return fail("link {} ({}, {}): port {} of {} is used by another link", i + 1, l.node1, l.node2, port,
                    nd);
    }
    if (!l.ignored.empty())
      t.notes.push_back(
          fmt::format("link ({}, {}): bw/delay/jitter/loss/max_queue_size ignored: not a TCLink (as "
                      "in Mininet; give cls=TCLink or --link tc)",
                      l.node1, l.node2));
    t.links.push_back(std::move(l));
  }
  return t;
}

void add_custom_topology(YAML::Node& root, const CustomTopology& t, const YAML::Node& switch_template) {
  // Each end's interface: eth<port> (Mininet's h1-eth0, s1-eth1).
  std::map<std::string, std::map<int, std::string>> ports;  // node -> port -> ifname
  for (const auto& l : t.links) {
    ports[l.node1][l.port1] = "eth" + std::to_string(l.port1);
    ports[l.node2][l.port2] = "eth" + std::to_string(l.port2);
  }
  for (const auto& h : t.hosts) {
    YAML::Node hn;
    auto it = ports.find(h.name);
    bool first = true;
    if (it == ports.end()) {
      hn["addr"] = h.ip;  // a host on no link: the scenario's checks name it
    } else {
      for (const auto& [port, ifname] : it->second) {  // the address on the lowest port, as Mininet
        YAML::Node in;
        if (first) in["addr"] = h.ip, in["mac"] = h.mac;
        first = false;
        hn["interfaces"][ifname] = in.IsNull() ? YAML::Node(YAML::NodeType::Map) : in;
      }
    }
    root["hosts"][h.name] = hn;
  }
  for (const auto& s : t.switches) {
    YAML::Node sn = YAML::Clone(switch_template);
    sn["dpid"] = fmt::format("0x{:x}", s.dpid);
    if (auto it = ports.find(s.name); it != ports.end())
      for (const auto& [port, ifname] : it->second) sn["ports"].push_back(ifname);
    root["switches"][s.name] = sn;
  }
  for (const auto& l : t.links) {
    YAML::Node ln;
    ln["endpoints"].push_back(l.node1 + ":eth" + std::to_string(l.port1));
    ln["endpoints"].push_back(l.node2 + ":eth" + std::to_string(l.port2));
    if (!l.bw.empty()) ln["bw"] = l.bw;
    if (!l.delay.empty()) ln["delay"] = l.delay;
    if (!l.jitter.empty()) ln["jitter"] = l.jitter;
    if (!l.loss.empty()) ln["loss"] = l.loss;
    if (l.queue) ln["queue"] = l.queue;
    root["links"].push_back(ln);
  }
}

}  // namespace flowlab::lab

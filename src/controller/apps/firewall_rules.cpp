// Security-group rules: YAML loading and decisions (see firewall_rules.h).
#include "controller/apps/firewall_rules.h"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <map>
#include <sstream>

#include "packet/addr.h"

namespace flowlab::controller {

namespace {

struct Ctx {
  std::string file;
  std::map<std::string, AddressSet> groups;
};

// "rules.yaml:12: security group 'server' ingress rule 2: ..."
template <typename... Args>
Unexpected<Error> bad(const Ctx& c, const YAML::Node& n, const std::string& where,
                      fmt::format_string<Args...> f, Args&&... args) {
  return fail("{}:{}: {}: {}", c.file, n.Mark().line + 1, where, fmt::format(f, std::forward<Args>(args)...));
}

Result<Cidr> parse_cidr(const std::string& s) {
  auto slash = s.find('/');
  auto ip = Ipv4Addr::parse(s.substr(0, slash));
  if (!ip) return fail("'{}' is not an IPv4 address or CIDR", s);
  Cidr c{ip->v, 32};
  if (slash != std::string::npos) {
    try {
      int len = std::stoi(s.substr(slash + 1));
      if (len < 0 || len > 32) return fail("prefix length in '{}' is not 0-32", s);
      c.len = uint8_t(len);
    } catch (...) {
      return fail("bad prefix length in '{}'", s);
    }
  }
  if (c.len < 32) c.addr &= c.len ? ~uint32_t(0) << (32 - c.len) : 0;
  return c;
}

// An address: CIDR or MAC, appended to `set`.
Status add_address(AddressSet& set, const std::string& s) {
  if (auto mac = MacAddr::parse(s)) {
    set.macs.push_back(mac->to_u64());
    return {};
  }
  FLOWLAB_ASSIGN_OR_RETURN(auto c, parse_cidr(s));
  set.cidrs.push_back(c);
  return {};
}

Result<FwRule> parse_rule(const Ctx& c, const YAML::Node& n, const std::string& where) {
  if (!n.IsMap()) return bad(c, n, where, "a rule is a map like {{protocol: tcp, port: 22}}");
  FwRule r;
  r.line = n.Mark().line + 1;
  try {
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = it->first.as<std::string>();
      YAML::Node v = it->second;
      if (key == "protocol") {
        std::string p = v.as<std::string>();
        if (p == "any" || p == "all")
          r.protocol = -1;
        else if (p == "tcp")
          r.protocol = 6;
        else if (p == "udp")
          r.protocol = 17;
        else if (p == "icmp")
          r.protocol = 1;
        else {
          int num = -1;
          try {
            num = std::stoi(p);
          } catch (...) {
          }
          if (num < 0 || num > 255)
            return bad(c, v, where, "unknown protocol '{}' (tcp, udp, icmp, any or 0-255)", p);
          r.protocol = num;
        }
      } else if (key == "port" || key == "ports") {
        std::string p = v.as<std::string>();
        auto dash = p.find('-');
        try {
          int lo = std::stoi(p.substr(0, dash)),
              hi = dash == std::string::npos ? lo : std::stoi(p.substr(dash + 1));
          if (lo < 0 || hi > 65535 || lo > hi) throw std::out_of_range("port");
          r.port_min = uint16_t(lo);
          r.port_max = uint16_t(hi);
        } catch (...) {
          return bad(c, v, where, "port '{}' is not N or N-M within 0-65535", p);
        }
      } else if (key == "icmp_type" || key == "icmp_code") {
        int x = v.as<int>();
        if (x < 0 || x > 255) return bad(c, v, where, "{} {} is not 0-255", key, x);
        (key == "icmp_type" ? r.icmp_type : r.icmp_code) = x;
      } else if (key == "remote" || key == "remote_ip_prefix") {
        AddressSet s;
        auto st = add_address(s, v.as<std::string>());
        if (!st.ok()) return bad(c, v, where, "{}", st.error().message);
        r.remote = std::move(s);
      } else if (key == "remote_group") {
        auto g = c.groups.find(v.as<std::string>());
        if (g == c.groups.end()) return bad(c, v, where, "unknown address group '{}'", v.as<std::string>());
        r.remote = g->second;
      } else {
        return bad(c, it->first, where,
                   "unknown key '{}' (protocol, port, icmp_type, icmp_code, remote, remote_group)", key);
      }
    }
  } catch (const YAML::Exception& e) {
    return bad(c, n, where, "{}", e.msg);
  }
  if ((r.port_min != 0 || r.port_max != 65535) && r.protocol != 6 && r.protocol != 17)
    return bad(c, n, where, "a port range needs protocol tcp or udp");
  if ((r.icmp_type >= 0 || r.icmp_code >= 0) && r.protocol != 1)
    return bad(c, n, where, "icmp_type/icmp_code need protocol icmp");
  return r;
}

Result<FwTarget> parse_target(const Ctx& c, const YAML::Node& n, const std::string& where) {
  if (!n.IsMap())
    return bad(c, n, where, "a target is a map: {{port: N}}, {{mac: M}}, {{ip: CIDR}} or {{group: NAME}}");
  FwTarget t;
  try {
    for (auto it = n.begin(); it != n.end(); ++it) {
      std::string key = it->first.as<std::string>();
      YAML::Node v = it->second;
      if (key == "port") {
        t.port = v.as<uint32_t>();
      } else if (key == "dpid") {
        t.dpid = std::stoull(v.as<std::string>(), nullptr, 0);
      } else if (key == "mac" || key == "ip") {
        auto st = add_address(t.addrs, v.as<std::string>());
        if (!st.ok()) return bad(c, v, where, "{}", st.error().message);
      } else if (key == "group") {
        auto g = c.groups.find(v.as<std::string>());
        if (g == c.groups.end()) return bad(c, v, where, "unknown address group '{}'", v.as<std::string>());
        t.addrs.cidrs.insert(t.addrs.cidrs.end(), g->second.cidrs.begin(), g->second.cidrs.end());
        t.addrs.macs.insert(t.addrs.macs.end(), g->second.macs.begin(), g->second.macs.end());
      } else {
        return bad(c, it->first, where, "unknown target key '{}' (port, dpid, mac, ip, group)", key);
      }
    }
  } catch (const std::exception& e) {
    return bad(c, n, where, "bad target: {}", e.what());
  }
  return t;
}

}  // namespace

Result<FwRuleSet> FwRuleSet::load_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) return fail("cannot read firewall rules '{}'", path);
  std::stringstream ss;
  ss << f.rdbuf();
  return parse(ss.str(), path);
}

Result<FwRuleSet> FwRuleSet::parse(const std::string& text, const std::string& name) {
  Ctx c;
  c.file = name;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    return fail("{}:{}: YAML syntax error: {}", name, e.mark.line + 1, e.msg);
  }
  try {
    if (!root.IsMap()) return fail("{}:1: expected a map with 'security_groups'", name);
    FwRuleSet rs;
    for (auto it = root.begin(); it != root.end(); ++it) {
      std::string key = it->first.as<std::string>();
      if (key != "default" && key != "address_groups" && key != "security_groups")
        return bad(c, it->first, "top level", "unknown key '{}' (default, address_groups, security_groups)",
                   key);
    }
    if (auto d = root["default"]) {
      std::string v = d.as<std::string>();
      if (v != "deny" && v != "allow") return bad(c, d, "default", "expected deny or allow, got '{}'", v);
      rs.default_allow_ = v == "allow";
    }
    if (auto ag = root["address_groups"]) {
      if (!ag.IsMap()) return bad(c, ag, "address_groups", "expected a map NAME: [ADDRESS, ...]");
      for (auto it = ag.begin(); it != ag.end(); ++it) {
        std::string gname = it->first.as<std::string>();
        // A named node: `it->second` lives in a temporary the iterator hands out, so a
        // range-for over it read a destroyed object (fuzz_firewall_rules, ASan).
        YAML::Node items = it->second;
        AddressSet set;
        if (!items.IsSequence()) return bad(c, items, "address group '" + gname + "'", "expected a list");
        for (const auto& a : items) {
          auto st = add_address(set, a.as<std::string>());
          if (!st.ok()) return bad(c, a, "address group '" + gname + "'", "{}", st.error().message);
        }
        c.groups[gname] = std::move(set);
      }
    }
    auto sgs = root["security_groups"];
    if (!sgs || !sgs.IsSequence()) return fail("{}:1: 'security_groups' must be a list", name);
    int gi = 0;
    for (const auto& g : sgs) {
      ++gi;
      SecurityGroup sg;
      sg.name = g["name"] ? g["name"].as<std::string>() : fmt::format("#{}", gi);
      std::string where = fmt::format("security group '{}'", sg.name);
      if (!g["targets"] || !g["targets"].IsSequence() || g["targets"].size() == 0)
        return bad(c, g, where, "needs a non-empty 'targets' list");
      for (const auto& t : g["targets"]) {
        FLOWLAB_ASSIGN_OR_RETURN(auto target, parse_target(c, t, where + " target"));
        sg.targets.push_back(std::move(target));
      }
      for (const char* dir : {"ingress", "egress"}) {
        auto list = g[dir];
        if (!list) continue;
        if (!list.IsSequence()) return bad(c, list, where, "'{}' must be a list of rules", dir);
        int ri = 0;
        for (const auto& r : list) {
          ++ri;
          FLOWLAB_ASSIGN_OR_RETURN(auto rule, parse_rule(c, r, fmt::format("{} {} rule {}", where, dir, ri)));
          (std::string_view(dir) == "ingress" ? sg.ingress : sg.egress).push_back(std::move(rule));
        }
      }
      for (auto it = g.begin(); it != g.end(); ++it) {
        std::string key = it->first.as<std::string>();
        if (key != "name" && key != "targets" && key != "ingress" && key != "egress")
          return bad(c, it->first, where, "unknown key '{}' (name, targets, ingress, egress)", key);
      }
      rs.groups_.push_back(std::move(sg));
    }
    return rs;
  } catch (const YAML::Exception& e) {
    // A node of the wrong kind (e.g. a scalar where a group map belongs) throws from
    // yaml-cpp's operator[]; found by fuzz_firewall_rules. It is a bad file, not a crash.
    return fail("{}:{}: {}", name, e.mark.line + 1, e.msg);
  }
}

namespace {
bool in_set(const AddressSet& s, const FwEndpoint& e) {
  for (const auto& c : s.cidrs)
    if (e.ip != 0 && c.contains(e.ip)) return true;
  for (uint64_t m : s.macs)
    if (m == e.mac) return true;
  return false;
}
}  // namespace

bool FwRuleSet::covers(const FwTarget& t, const FwEndpoint& e) const {
  if (t.dpid && *t.dpid != e.dpid) return false;
  if (t.port)
    return e.port != 0 && *t.port == e.port &&
           (t.addrs.cidrs.empty() && t.addrs.macs.empty() ? true : in_set(t.addrs, e));
  return in_set(t.addrs, e);
}

bool FwRuleSet::rule_allows(const FwRule& r, const FwPacket& p, const FwEndpoint& remote) const {
  if (r.protocol >= 0 && r.protocol != p.proto) return false;
  if (p.proto == 6 || p.proto == 17) {
    if (p.tp_dst < r.port_min || p.tp_dst > r.port_max) return false;
  }
  if (p.proto == 1) {
    if (r.icmp_type >= 0 && r.icmp_type != p.icmp_type) return false;
    if (r.icmp_code >= 0 && r.icmp_code != p.icmp_code) return false;
  }
  if (r.remote && !in_set(*r.remote, remote)) return false;
  return true;
}

FwDecision FwRuleSet::decide(const FwPacket& p) const {
  bool src_covered = false, dst_covered = false, src_ok = false, dst_ok = false;
  std::string why_src, why_dst;
  for (const auto& g : groups_) {
    bool s = false, d = false;
    for (const auto& t : g.targets) {
      s = s || covers(t, p.src);
      d = d || covers(t, p.dst);
    }
    if (s) {
      src_covered = true;
      for (const auto& r : g.egress)
        if (!src_ok && rule_allows(r, p, p.dst)) {
          src_ok = true;
          why_src = fmt::format("group {} egress rule at line {}", g.name, r.line);
        }
    }
    if (d) {
      dst_covered = true;
      for (const auto& r : g.ingress)
        if (!dst_ok && rule_allows(r, p, p.src)) {
          dst_ok = true;
          why_dst = fmt::format("group {} ingress rule at line {}", g.name, r.line);
        }
    }
  }
  if (!src_covered && !dst_covered)
    return {default_allow_, default_allow_ ? "no group covers either end; default allow"
                                           : "no group covers either end; default deny"};
  if (src_covered && !src_ok) return {false, "no egress rule of the source's groups allows it"};
  if (dst_covered && !dst_ok) return {false, "no ingress rule of the destination's groups allows it"};
  return {true, why_dst.empty() ? why_src : why_dst};
}

}  // namespace flowlab::controller

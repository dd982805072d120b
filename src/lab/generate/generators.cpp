// Mininet-compatible topology generators (see generators.h).
#include "lab/generate/generators.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace flowlab::lab {

namespace {

constexpr int kMaxHosts = 4096;
constexpr int kMaxSwitches = 1024;

// Builds a topology in Mininet's order; the dpid of "s<N>" is N (Mininet derives it
// from the name's digits), torus switches get theirs explicitly as Mininet does.
class Builder {
 public:
  std::string add_switch(std::string name, uint64_t dpid = 0) {
    if (!dpid) dpid = uint64_t(std::strtoull(name.c_str() + 1, nullptr, 10));
    t_.dpids[name] = dpid;
    t_.switches.push_back(name);
    return name;
  }
  std::string add_host(std::string name) {
    t_.hosts.push_back(name);
    return name;
  }
  void add_link(const std::string& a, const std::string& b) { t_.links.emplace_back(a, b); }
  GeneratedTopology take() { return std::move(t_); }

 private:
  GeneratedTopology t_;
};

void tree(Builder& b, int depth, int fanout, int& host_num, int& switch_num, std::string* node) {
  if (depth > 0) {
    *node = b.add_switch("s" + std::to_string(switch_num++));
    for (int i = 0; i < fanout; ++i) {
      std::string child;
      tree(b, depth - 1, fanout, host_num, switch_num, &child);
      b.add_link(*node, child);
    }
  } else {
    *node = b.add_host("h" + std::to_string(host_num++));
  }
}

// Node counts before building, so a huge request fails fast without allocating.
Status check_size(const std::string& type, double hosts, double switches) {
  if (hosts > kMaxHosts || switches > kMaxSwitches)
    return fail("topology {} would have {:.0f} hosts and {:.0f} switches (at most {} and {})", type, hosts,
                switches, kMaxHosts, kMaxSwitches);
  return ok_status();
}

}  // namespace

std::vector<TopoParam> topology_params(const std::string& type) {
  if (type == "single") return {{"k", 2}};
  if (type == "linear") return {{"k", 2}, {"n", 1}};
  if (type == "tree") return {{"depth", 1}, {"fanout", 2}};
  if (type == "torus") return {{"x", -1}, {"y", -1}, {"n", 1}};
  if (type == "fat-tree") return {{"k", 4}};
  return {};
}

std::string topology_types() { return "single, linear, tree, torus, fat-tree"; }

Result<GeneratedTopology> generate_topology(const std::string& type, const std::map<std::string, int>& args) {
  auto params = topology_params(type);
  if (params.empty()) return fail("unknown topology type '{}' ({})", type, topology_types());
  std::map<std::string, int> v;
  for (const auto& p : params) {
    auto it = args.find(p.name);
    if (it == args.end() && p.default_value < 0) return fail("topology {} needs '{}'", type, p.name);
    v[p.name] = it == args.end() ? p.default_value : it->second;
  }
  for (const auto& [k, x] : args) {
    if (!v.count(k)) {
      std::string names;
      for (const auto& p : params) names += (names.empty() ? "" : ", ") + p.name;
      return fail("topology {} has no parameter '{}' (it takes {})", type, k, names);
    }
    if (x < (k == "depth" ? 0 : 1)) return fail("topology {}: '{}' must be at least 1, got {}", type, k, x);
  }
  Builder b;
  if (type == "single") {
    FLOWLAB_TRY(check_size(type, v["k"], 1));
    std::string s = b.add_switch("s1");
    for (int h = 1; h <= v["k"]; ++h) b.add_link(b.add_host("h" + std::to_string(h)), s);
  } else if (type == "linear") {
    int k = v["k"], n = v["n"];
    FLOWLAB_TRY(check_size(type, double(k) * n, k));
    std::string last;
    for (int i = 1; i <= k; ++i) {
      std::string s = b.add_switch("s" + std::to_string(i));
      for (int j = 1; j <= n; ++j)
        b.add_link(b.add_host(n == 1 ? "h" + std::to_string(i) : fmt::format("h{}s{}", j, i)), s);
      if (!last.empty()) b.add_link(s, last);
      last = s;
    }
  } else if (type == "tree") {
    int depth = v["depth"], fanout = v["fanout"];
    double hosts = 1, switches = 0;
    for (int d = 0; d < depth && hosts <= kMaxHosts; ++d) {
      switches += hosts;
      hosts *= fanout;
    }
    FLOWLAB_TRY(check_size(type, hosts, switches));
    if (depth == 0) return fail("topology tree: depth 0 is a lone host, no network");
    int host_num = 1, switch_num = 1;
    std::string root;
    tree(b, depth, fanout, host_num, switch_num, &root);
  } else if (type == "torus") {
    int x = v["x"], y = v["y"], n = v["n"];
    if (x < 3 || y < 3)
      return fail("topology torus needs x and y of at least 3 (as Mininet), got {}x{}", x, y);
    FLOWLAB_TRY(check_size(type, double(x) * y * n, double(x) * y));
    std::map<std::pair<int, int>, std::string> sw;
    for (int i = 0; i < x; ++i)
      for (int j = 0; j < y; ++j) {
        std::string loc = fmt::format("{}x{}", i + 1, j + 1);
        sw[{i, j}] = b.add_switch("s" + loc, uint64_t(i + 1) * 256 + uint64_t(j + 1));
        for (int k = 0; k < n; ++k)
          b.add_link(b.add_host(n == 1 ? "h" + loc : fmt::format("h{}x{}", loc, k + 1)), sw[{i, j}]);
      }
    for (int i = 0; i < x; ++i)
      for (int j = 0; j < y; ++j) {
        b.add_link(sw[{i, j}], sw[{i, (j + 1) % y}]);
        b.add_link(sw[{i, j}], sw[{(i + 1) % x, j}]);
      }
  } else {  // fat-tree
    int k = v["k"];
    if (k < 2 || k % 2) return fail("topology fat-tree needs an even k of at least 2, got {}", k);
    int h = k / 2;
    FLOWLAB_TRY(check_size(type, double(k) * k * k / 4, 5.0 * k * k / 4));
    int sn = 1, hn = 1;
    std::vector<std::string> core;
    for (int i = 0; i < h * h; ++i) core.push_back(b.add_switch("s" + std::to_string(sn++)));
    for (int p = 0; p < k; ++p) {
      std::vector<std::string> agg, edge;
      for (int i = 0; i < h; ++i) agg.push_back(b.add_switch("s" + std::to_string(sn++)));
      for (int i = 0; i < h; ++i) edge.push_back(b.add_switch("s" + std::to_string(sn++)));
      for (const auto& e : edge) {
        for (int i = 0; i < h; ++i) b.add_link(b.add_host("h" + std::to_string(hn++)), e);
        for (const auto& a : agg) b.add_link(e, a);
      }
      // Aggregation switch i of every pod reaches core switches i*k/2 .. i*k/2 + k/2 - 1.
      for (int i = 0; i < h; ++i)
        for (int j = 0; j < h; ++j) b.add_link(agg[size_t(i)], core[size_t(i * h + j)]);
    }
  }
  return b.take();
}

Result<TopoRequest> parse_topo_arg(const std::string& s) {
  TopoRequest r;
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    parts.push_back(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  r.type = parts[0];
  auto params = topology_params(r.type);
  if (params.empty()) return fail("unknown topology type '{}' ({})", r.type, topology_types());
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string name, value = parts[i];
    if (auto eq = value.find('='); eq != std::string::npos) {
      name = value.substr(0, eq);
      value = value.substr(eq + 1);
    } else {
      if (i - 1 >= params.size())
        return fail("topology {} takes at most {} argument(s), got {}", r.type, params.size(),
                    parts.size() - 1);
      name = params[i - 1].name;
    }
    char* end = nullptr;
    long x = std::strtol(value.c_str(), &end, 10);
    if (value.empty() || *end || x < 0 || x > 100000)
      return fail("topology {}: '{}' is not a count (argument {})", r.type, value, name);
    if (!r.args.emplace(name, int(x)).second) return fail("topology {}: '{}' given twice", r.type, name);
  }
  return r;
}

std::vector<std::string> natural_sorted(std::vector<std::string> names) {
  // Compare digit runs by value, the rest by character (Mininet's natural()).
  auto less = [](const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
      bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
      bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
      if (da && db) {
        size_t ie = i, je = j;
        while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
        while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
        unsigned long long x = std::strtoull(a.substr(i, ie - i).c_str(), nullptr, 10);
        unsigned long long y = std::strtoull(b.substr(j, je - j).c_str(), nullptr, 10);
        if (x != y) return x < y;
        i = ie;
        j = je;
      } else {
        if (a[i] != b[j]) return a[i] < b[j];
        ++i;
        ++j;
      }
    }
    return a.size() - i < b.size() - j;
  };
  std::stable_sort(names.begin(), names.end(), less);
  return names;
}

Result<IpBase> parse_ipbase(const std::string& s) {
  unsigned b[4];
  int len = 0;
  char tail;
  if (std::sscanf(s.c_str(), "%u.%u.%u.%u/%d%c", &b[0], &b[1], &b[2], &b[3], &len, &tail) != 5 ||
      b[0] > 255 || b[1] > 255 || b[2] > 255 || b[3] > 255 || len < 1 || len > 30)
    return fail("'{}': expected an IPv4 network with a prefix length 1..30, e.g. 10.0.0.0/8", s);
  IpBase out;
  out.prefix = len;
  uint32_t mask = ~uint32_t(0) << (32 - len);
  out.net = ((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) & mask;
  return out;
}

std::string mininet_ip(int n, const IpBase& base) {
  uint32_t a = base.net + uint32_t(n);
  return fmt::format("{}.{}.{}.{}/{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255, base.prefix);
}

std::string mininet_mac(int n) {
  uint64_t m = uint64_t(n);
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", (m >> 40) & 255, (m >> 32) & 255,
                     (m >> 24) & 255, (m >> 16) & 255, (m >> 8) & 255, m & 255);
}

}  // namespace flowlab::lab

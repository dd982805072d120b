// ClusterView (view.h): the cluster's keys decoded.
#include "cluster/view.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

namespace flowlab::cluster {

namespace {

std::optional<uint64_t> parse_hex(std::string_view s) {
  if (s.empty() || s.size() > 16) return std::nullopt;
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<nlohmann::json> parse_object(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  return j;
}

template <typename T>
bool get(const nlohmann::json& j, const char* key, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    if (!it->is_string()) return false;
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!it->is_boolean()) return false;
  } else {
    if (!it->is_number_integer()) return false;
  }
  out = it->get<T>();
  return true;
}

}  // namespace

const Candidate* ClusterView::leader(uint64_t dpid) const {
  auto it = switches.find(dpid);
  return it == switches.end() || it->second.empty() ? nullptr : &it->second.front();
}

std::string cluster_root(std::string_view name) { return fmt::format("/flowlab/cluster/{}/", name); }
std::string node_key(std::string_view root, std::string_view node) {
  return fmt::format("{}nodes/{}", root, node);
}
std::string switch_prefix(std::string_view root, uint64_t dpid) {
  return fmt::format("{}switches/{:016x}/", root, dpid);
}
std::string candidate_key(std::string_view root, uint64_t dpid, int64_t lease) {
  return fmt::format("{}{:016x}", switch_prefix(root, dpid), uint64_t(lease));
}

std::string requeued_key(std::string_view root, uint64_t dpid, int64_t lease, std::string_view current) {
  std::string key = candidate_key(root, dpid, lease);
  return current == key ? key + ".1" : key;
}

bool valid_node_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

std::string encode_node(const NodeRecord& n) {
  return nlohmann::json{{"node", n.node},
                        {"lease", fmt::format("{:x}", uint64_t(n.lease))},
                        {"peer", n.peer},
                        {"rest", n.rest},
                        {"since_ms", n.since_ms}}
      .dump();
}

std::optional<NodeRecord> decode_node(std::string_view json) {
  auto j = parse_object(json);
  if (!j) return std::nullopt;
  NodeRecord n;
  std::string lease;
  if (!get(*j, "node", n.node) || !valid_node_name(n.node) || !get(*j, "lease", lease) ||
      !get(*j, "peer", n.peer))
    return std::nullopt;
  auto id = parse_hex(lease);
  if (!id) return std::nullopt;
  n.lease = int64_t(*id);
  get(*j, "rest", n.rest);
  get(*j, "since_ms", n.since_ms);
  return n;
}

std::string encode_candidate(std::string_view node, bool master, int64_t since_ms) {
  return nlohmann::json{{"node", node}, {"state", master ? "master" : "candidate"}, {"since_ms", since_ms}}
      .dump();
}

std::optional<Candidate> decode_candidate(std::string_view json) {
  auto j = parse_object(json);
  if (!j) return std::nullopt;
  Candidate c;
  std::string state;
  if (!get(*j, "node", c.node) || !valid_node_name(c.node) || !get(*j, "state", state)) return std::nullopt;
  if (state != "master" && state != "candidate") return std::nullopt;
  c.master = state == "master";
  get(*j, "since_ms", c.since_ms);
  return c;
}

ClusterView build_view(std::string_view root, const std::vector<coord::KeyValue>& kvs, int64_t revision) {
  ClusterView v;
  v.revision = revision;
  const std::string nodes = std::string(root) + "nodes/", switches = std::string(root) + "switches/";
  for (const auto& kv : kvs) {
    std::string_view key = kv.key;
    if (key.starts_with(nodes)) {
      auto n = decode_node(kv.value);
      if (!n || key.substr(nodes.size()) != n->node) {
        v.skipped++;
        continue;
      }
      v.nodes[n->node] = std::move(*n);
    } else if (key.starts_with(switches)) {
      auto rest = key.substr(switches.size());
      auto slash = rest.find('/');
      auto dpid = parse_hex(rest.substr(0, slash));
      auto c = decode_candidate(kv.value);
      if (slash == std::string_view::npos || !dpid || !c || kv.lease == 0) {
        v.skipped++;
        continue;
      }
      c->lease = kv.lease;
      c->create_revision = kv.create_revision;
      c->key = kv.key;
      v.switches[*dpid].push_back(std::move(*c));
    } else {
      v.skipped++;
    }
  }
  for (auto& [dpid, cands] : v.switches)
    std::sort(cands.begin(), cands.end(),
              [](const Candidate& a, const Candidate& b) { return a.create_revision < b.create_revision; });
  return v;
}

}  // namespace flowlab::cluster

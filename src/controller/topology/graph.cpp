// Graph path computations (see graph.h).
#include "controller/topology/graph.h"

#include <limits>
#include <queue>
#include <tuple>

namespace flowlab::controller::topology {

void Graph::add_edge(const Edge& e) {
  adj_[e.src.dpid][e.src.port_no] = e;
  adj_.try_emplace(e.dst.dpid);
}

std::vector<Edge> Graph::edges() const {
  std::vector<Edge> out;
  for (const auto& [dpid, ports] : adj_)
    for (const auto& [port, e] : ports) out.push_back(e);
  return out;
}

std::map<uint64_t, Hop> Graph::tree_to(uint64_t dst) const {
  std::map<uint64_t, Hop> next;
  if (!has_switch(dst)) return next;
  // Reverse adjacency: for each switch, the edges that arrive at it.
  std::map<uint64_t, std::vector<const Edge*>> in;
  for (const auto& [dpid, ports] : adj_)
    for (const auto& [port, e] : ports) in[e.dst.dpid].push_back(&e);
  constexpr uint64_t kInf = std::numeric_limits<uint64_t>::max();
  std::map<uint64_t, uint64_t> dist;
  for (const auto& [dpid, ports] : adj_) dist[dpid] = kInf;
  dist[dst] = 0;
  // (distance, dpid): ties settle the lower dpid first.
  using Item = std::pair<uint64_t, uint64_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  q.push({0, dst});
  while (!q.empty()) {
    auto [d, u] = q.top();
    q.pop();
    if (d != dist[u]) continue;
    for (const Edge* e : in[u]) {
      uint64_t v = e->src.dpid;
      if (v == dst) continue;
      uint64_t nd = d + e->weight;
      auto it = next.find(v);
      // Equal cost: prefer the lower next-hop dpid, then the lower port.
      bool better =
          nd < dist[v] || (nd == dist[v] && it != next.end() &&
                           std::tuple(u, e->src.port_no) <
                               std::tuple(adj_.at(v).at(it->second.out_port).dst.dpid, it->second.out_port));
      if (!better) continue;
      bool pushed = nd < dist[v];
      dist[v] = nd;
      next[v] = Hop{v, e->src.port_no};
      if (pushed) q.push({nd, v});
    }
  }
  return next;
}

std::optional<std::vector<Hop>> Graph::path(uint64_t src, uint64_t dst) const {
  if (!has_switch(src) || !has_switch(dst)) return std::nullopt;
  std::vector<Hop> hops;
  if (src == dst) return hops;
  auto tree = tree_to(dst);
  uint64_t at = src;
  while (at != dst) {
    auto it = tree.find(at);
    if (it == tree.end() || hops.size() > adj_.size()) return std::nullopt;
    hops.push_back(it->second);
    at = adj_.at(at).at(it->second.out_port).dst.dpid;
  }
  return hops;
}

std::set<PortRef> Graph::spanning_tree() const {
  std::set<PortRef> ports;
  std::set<uint64_t> in_tree;
  // (weight, src, src port): ties settle the lower dpid/port first.
  using Item = std::tuple<uint32_t, uint64_t, uint32_t>;
  for (const auto& [root, unused] : adj_) {
    if (in_tree.count(root)) continue;
    in_tree.insert(root);
    std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
    auto push_from = [&](uint64_t u) {
      for (const auto& [port, e] : adj_.at(u))
        if (!in_tree.count(e.dst.dpid)) q.push({e.weight, u, port});
    };
    push_from(root);
    while (!q.empty()) {
      auto [w, u, port] = q.top();
      q.pop();
      const Edge& e = adj_.at(u).at(port);
      if (in_tree.count(e.dst.dpid)) continue;
      in_tree.insert(e.dst.dpid);
      ports.insert(e.src);
      ports.insert(e.dst);
      push_from(e.dst.dpid);
    }
  }
  return ports;
}

}  // namespace flowlab::controller::topology

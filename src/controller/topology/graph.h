// Graph: switches and the links between them, with the path computations the
// topology service offers apps. Pure data: no locks, no OpenFlow.
//
// An edge is one direction of a link (src dpid/port -> dst dpid/port) with a
// weight (default 1, so "shortest" is by hop count). Computations are
// deterministic: among equal-cost choices the lower dpid, then the lower port,
// wins, so every switch agrees with every other on the next hop towards a
// destination (per-destination flows built from tree_to() never loop).
//
// Cost: tree_to() and path() are Dijkstra, O(E log V); spanning_tree() is
// Prim's algorithm per connected component, O(E log V).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace flowlab::controller::topology {

struct PortRef {
  uint64_t dpid = 0;
  uint32_t port_no = 0;
  auto operator<=>(const PortRef&) const = default;
};

struct Edge {
  PortRef src, dst;
  uint32_t weight = 1;
};

// One switch on a path and the port it sends the traffic out of.
struct Hop {
  uint64_t dpid = 0;
  uint32_t out_port = 0;
  auto operator<=>(const Hop&) const = default;
};

class Graph {
 public:
  void add_switch(uint64_t dpid) { adj_.try_emplace(dpid); }
  // Adds both ends as switches; a second edge from the same src port replaces the first.
  void add_edge(const Edge& e);
  bool has_switch(uint64_t dpid) const { return adj_.count(dpid) != 0; }
  size_t n_switches() const { return adj_.size(); }
  std::vector<Edge> edges() const;

  // For every switch that can reach dst: the port towards dst on a shortest
  // path (dst itself is not in the map). Sharing next hops, these form a tree.
  std::map<uint64_t, Hop> tree_to(uint64_t dst) const;
  // Switches from src to dst with their output ports, src first, dst excluded
  // (the caller knows the port on dst). Empty when src == dst; nullopt when
  // there is no path.
  std::optional<std::vector<Hop>> path(uint64_t src, uint64_t dst) const;
  // A minimum spanning tree (forest, one tree per connected component): the
  // ports at both ends of each tree edge.
  std::set<PortRef> spanning_tree() const;

 private:
  // src dpid -> edges out of it, keyed by src port.
  std::map<uint64_t, std::map<uint32_t, Edge>> adj_;
};

}  // namespace flowlab::controller::topology

// Topology generators with Mininet 2.3.0's names, argument order, node naming and
// link order (mininet/topo.py, topolib.py), so `--topo tree,2,3` here builds what
// `mn --topo tree,2,3` builds:
//   single  k=2            s1; h1..hk, each linked to s1
//   linear  k=2, n=1       s1..sk; n hosts per switch (h<i>, or h<j>s<i> when n > 1);
//                          s<i> linked to s<i-1>
//   tree    depth=1, fanout=2   switches and hosts numbered in pre-order (s1 is the root)
//   torus   x, y, n=1      x*y switches s<i>x<j> (x, y >= 3), a 2-D wrap-around grid: loops
//   fat-tree k=4           (not in Mininet) the k-ary fat tree: (k/2)^2 core, k pods of
//                          k/2 aggregation + k/2 edge switches, k/2 hosts per edge; loops
// Pure: names and links only; the scenario parser turns them into specs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct GeneratedTopology {
  std::vector<std::string> hosts;     // in creation order
  std::vector<std::string> switches;  // in creation order
  std::map<std::string, uint64_t> dpids;
  std::vector<std::pair<std::string, std::string>> links;  // in creation order, as Mininet adds them
};

// The parameter names of a generator, in Mininet's positional order, with defaults
// (-1: required). Empty when the type is unknown.
struct TopoParam {
  std::string name;
  int default_value;
};
std::vector<TopoParam> topology_params(const std::string& type);
// "single, linear, tree, torus, fat-tree", for messages.
std::string topology_types();

// Generates `type` with the given parameters (by name; missing ones take defaults).
// Errors: unknown type, a missing or out-of-range parameter, too many nodes.
Result<GeneratedTopology> generate_topology(const std::string& type, const std::map<std::string, int>& args);

// Parses Mininet's --topo syntax: "tree,2,3", "linear,4", "tree,depth=2,fanout=3".
struct TopoRequest {
  std::string type;
  std::map<std::string, int> args;
};
Result<TopoRequest> parse_topo_arg(const std::string& s);

// Mininet's host order for addresses: its natural sort (digit runs compare as numbers).
std::vector<std::string> natural_sorted(std::vector<std::string> names);
// Mininet's --ipbase: the network hosts are numbered in (10.0.0.0/8 by default).
struct IpBase {
  uint32_t net = 10u << 24;  // host order, host bits clear
  int prefix = 8;
  uint64_t capacity() const { return (prefix >= 32 ? 0 : (uint64_t(1) << (32 - prefix))) - 1; }
};
// "10.1.0.0/16" (host bits are cleared, as Mininet's ipAdd does). Errors name the text.
Result<IpBase> parse_ipbase(const std::string& s);
// The address (10.0.0.N/8, or N in `base`) and MAC (00:00:00:00:00:0N) Mininet gives
// the N-th host (1-based); N must be within base.capacity().
std::string mininet_ip(int n, const IpBase& base = {});
std::string mininet_mac(int n);

}  // namespace flowlab::lab

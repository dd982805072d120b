// The part of a case one machine builds when a lab spans machines (lab/machines
// places the nodes and hands each agent its part; build_case builds it).
//
// Every machine reads the same scenario, so link indices, switch port numbers and
// controller ports agree everywhere; a part says which nodes are built here, which
// links end here and go on to another machine (a VXLAN end each), and how the
// switches reach the case's controllers: over the run's control segment, a
// VXLAN segment between the machines' core namespaces.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace flowlab::lab {

// A link end going on to another machine: a VXLAN tunnel to its underlay
// address, or for a `type: underlay` link (a provider network) VLAN `vlan` on
// this machine's underlay NIC, no tunnel.
struct TunnelSpec {
  std::string remote;  // the other machine's underlay address
  uint32_t vni = 0;
  int vlan = 0;  // > 0: a VLAN end, not VXLAN
};

struct MachinePart {
  std::string machine;          // this machine's name
  std::string ns_prefix;        // its namespaces' names start so (unique on one box too)
  std::set<std::string> nodes;  // hosts and switches built here
  bool controllers = false;     // the case's controllers run here
  // The underlay: where its address lives (empty: this process' namespace), the
  // address, the VXLAN port and the MTU inside a tunnel.
  std::string underlay_ns, underlay_addr;
  std::string underlay_dev;  // the interface holding that address (VLAN ends' parent)
  int vxlan_port = 4789;
  int tunnel_mtu = 1450;
  std::map<size_t, TunnelSpec> tunnels;  // link index -> its tunnel
  // The control segment: this machine's address on it (CIDR), the other machines'
  // underlay addresses, its VNI, and the controllers' address on it.
  std::string control_addr;
  std::vector<std::string> control_peers;
  uint32_t control_vni = 0;
  std::string controller_host;

  bool here(const std::string& node) const { return nodes.count(node) > 0; }
};

}  // namespace flowlab::lab

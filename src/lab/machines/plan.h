// A run across machines, as etcd holds it: the plan of the case being built
// (every machine reads the same one), each machine's part of it, and the
// placement of the scenario's nodes on the machines. Pure: no etcd, no OS.
//
//   auto placed = place_nodes(sc, sc.cases[0], {"m1", "m2"});     // node -> machine
//   CasePlan plan{...};                                             // the run, the case, the machines
//   std::string text = encode_plan(plan);                           // into etcd
//   auto back = decode_plan(text);                                  // an agent reads it (fuzzed)
//   auto part = part_for(sc, cs, *back, "m2");                      // what m2 builds
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "lab/run/machine_part.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

struct MachineInfo {
  std::string underlay;  // its underlay address
  int index = 0;         // its place in the run (namespaces, control addresses)
};

struct CasePlan {
  std::string run;        // the run's id
  std::string case_name;  // the case being built
  std::string file;       // the scenario's label (its path, or the --topo line)
  std::string scenario;   // the scenario's text (every machine parses the same)
  std::map<std::string, MachineInfo> machines;
  std::map<std::string, std::string> placement;  // node -> machine
  std::string controllers_on;                    // the machine that runs the controllers
  int vxlan_port = 4789;
  uint32_t vni_base = 1000;  // link i: vni_base + i; the control segment: vni_base + links
  int underlay_mtu = 1500;
  // The links captured (indices into sc.links; each machine captures the ends it
  // holds) and --capture-max's bytes per file pair (0: unbounded).
  std::vector<size_t> capture;
  uint64_t capture_max_bytes = 0;
};

std::string encode_plan(const CasePlan& plan);
// Refuses anything malformed or inconsistent (a node on a machine the plan lacks,
// VNIs past 24 bits, an MTU too small for the VXLAN header) with a clear error.
Result<CasePlan> decode_plan(std::string_view text);

// Places the case's hosts and switches on `machines`: a node's `machine:` first
// (an unknown machine is an error), the rest balanced by weight (one per node)
// with few links cut: switches in breadth-first order from the best-connected
// one, cut into runs of equal weight, each host with the switch it hangs off.
Result<std::map<std::string, std::string>> place_nodes(const Scenario& sc, const CaseSpec& cs,
                                                       const std::vector<std::string>& machines);

// The links whose ends land on two machines (indices into sc.links).
std::vector<size_t> cut_links(const Scenario& sc, const std::map<std::string, std::string>& placement);

// Machine `name`'s part of the plan; errors for what the lab cannot do across
// machines (a shaped provider link, an MTU larger than the tunnels carry).
Result<MachinePart> part_for(const Scenario& sc, const CaseSpec& cs, const CasePlan& plan,
                             const std::string& name);

// The address of machine `index` on the control segment (no prefix length).
std::string control_address(int index);

}  // namespace flowlab::lab

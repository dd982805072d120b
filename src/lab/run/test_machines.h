// Across machines (lab/machines): where a test ran, and whether a machine it
// needed was lost during the run. Internal to the lab's runner.
#pragma once

#include <map>
#include <string>

#include "lab/run/case_topology.h"

namespace flowlab::lab {

// "m1", "m1->m2"; pingall: "all".
std::string test_machines(const CaseTopology& topo, const TestSpec& t);
// How a test between two machines crosses: "vlan" when the shortest path between
// its hosts takes a provider link (`type: underlay`), "vxlan" when it takes a
// tunnel; empty on one machine and for pingall.
std::string test_crossing(const Scenario& sc, const CaseTopology& topo, const TestSpec& t);
// The sampler's role for machine m's core namespace ("core@m").
std::string machine_core_role(const std::string& machine);
// A test's CPU per machine, from its samples: the mean % of one core of every
// process in each machine's namespaces (its core's switches and controllers,
// its hosts' tools), {"m0": 112.5, "m1": 61.0}; empty when nothing was sampled.
nlohmann::json cpu_by_machine(const CaseTopology& topo, const nlohmann::json& r);
// Why a test's results cannot stand: a machine one of its hosts is on (pingall:
// any host) was lost. Empty: none was.
std::string lost_reason(const Scenario& sc, const CaseTopology& topo, const TestSpec& t,
                        const std::map<std::string, std::string>& lost);

}  // namespace flowlab::lab

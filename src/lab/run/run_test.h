// One test of a case as the runner runs it (runner.cpp): pingall over every
// addressed host, or a traffic test (ping, iperf, tcp-rr, probe) with the sampler
// around it and the hosts' stack counters before and after; each returns the
// test's record for results.json (layout in docs/LAB.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/run/case_topology.h"
#include "lab/traffic/pingall.h"

namespace flowlab::lab {

// Every host with an address: its namespace, address and addressed interfaces.
std::vector<PingallHost> pingall_hosts(RunContext& rc, CaseTopology& topo);
nlohmann::json run_pingall_test(RunContext& rc, const CaseSpec& cs, const TestSpec& t, CaseTopology& topo);
nlohmann::json run_one_test(RunContext& rc, const CaseSpec& cs, const TestSpec& t, CaseTopology& topo,
                            const std::string& case_out);

}  // namespace flowlab::lab

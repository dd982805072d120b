// `static_arp: true` (Mininet's --arp): before the tests, every host gets a permanent
// neighbour entry for every other host's addressed interfaces, so no ARP crosses the
// switches (Mininet's staticArp: `arp -s IP MAC` on every host for every other).
#pragma once

#include <map>
#include <string>

#include "core/result.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

// Hosts placed in `host_ns` (host -> namespace; hosts absent from it are on other
// machines and get no entries). Each entry goes on the host's interface whose subnet
// holds the address, else its first addressed one; a MAC the scenario does not give
// is read from the other host's namespace. `scratch_dir` holds the `ip -batch`
// files while they run. Returns the number of entries made.
Result<size_t> add_static_arp(const Scenario& sc, const std::map<std::string, std::string>& host_ns,
                              const std::string& scratch_dir);

}  // namespace flowlab::lab

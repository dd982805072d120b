// What a run records about the network it built, for results.json and the topology
// picture: the scenario's nodes and links (with the interface names the switch ends
// get in the core namespace), and the byte counters of a namespace's interfaces,
// read before and after the tests to give each link its measured load.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "lab/scenario/topology.h"

namespace flowlab::lab {

// The name a switch port gets in the core namespace: "<switch>-<port>".
inline std::string switch_port_ifname(const Endpoint& e) { return e.node + "-" + e.ifname; }

// {generator?, hosts:[{name, addr, mac}], switches:[{name, kind, dpid, stp?}],
//  links:[{a, b, a_if, b_if, mtu}]}; switch kinds as in case `cs`.
nlohmann::json topology_record(const Scenario& sc, const CaseSpec& cs);

// The core-namespace interfaces of each switch in OpenFlow port order: the switch's
// declared `ports:` order when it has one, else the order its links appear in.
std::map<std::string, std::vector<std::string>> switch_port_order(const Scenario& sc, const CaseSpec& cs);

// rx + tx bytes per interface of a namespace (one netlink dump); empty on error.
std::map<std::string, long long> interface_bytes(const std::string& ns);
std::map<std::string, long long> parse_ip_link_stats(const std::string& json_text);

}  // namespace flowlab::lab

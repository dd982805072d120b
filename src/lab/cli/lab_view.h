// A running lab as Mininet's CLI sees it, read from its record (run/persistent_lab.h):
// hosts with their namespace, address, MAC and interfaces, switches with their kind,
// dpid and OpenFlow ports, controllers, links; and the listings of Mininet's `nodes`,
// `net`, `dump`, `links`, `intfs` and `ports`, with Mininet's names for interfaces
// (node-ifname: h1-eth0, s1-eth1) and its layouts.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct ViewHost {
  std::string name, ns, addr, mac;
  std::vector<std::string> intfs;  // "eth0", in link order
};
struct ViewSwitch {
  std::string name, kind, dpid;
  std::vector<std::string> ports;  // core-namespace interface of port 1, 2, ...
};
struct ViewController {
  std::string name, kind, host;
  int port = 0;
};
struct ViewLink {
  std::string a_node, a_if, b_node, b_if;  // "h1", "eth0", "s1", "eth1"
};

struct LabView {
  std::string id, core_ns, out_dir;
  std::vector<ViewHost> hosts;
  std::vector<ViewSwitch> switches;
  std::vector<ViewController> controllers;
  std::vector<ViewLink> links;

  const ViewHost* host(const std::string& name) const;
  const ViewSwitch* find_switch(const std::string& name) const;
  bool has_node(const std::string& name) const;
  // Every node name: controllers, hosts, switches (Mininet's `nodes` order: sorted).
  std::vector<std::string> node_names() const;
  std::map<std::string, std::string> addresses() const;  // host -> address
  // Where an interface of a node lives: (namespace, interface name there).
  std::pair<std::string, std::string> intf_location(const std::string& node, const std::string& ifname) const;
};

// From a lab's record; an error when it lacks what the CLI needs (an older flowlab).
Result<LabView> lab_view(const nlohmann::json& record);

// Mininet's listings, each ending with a newline. `links` asks the kernel whether
// each end is up ("OK"/"MISSING" as Mininet prints them, "DOWN" for an end set down).
std::string show_nodes(const LabView& v);
std::string show_net(const LabView& v);
std::string show_dump(const LabView& v);
std::string show_links(const LabView& v);
std::string show_intfs(const LabView& v);
std::string show_ports(const LabView& v);

}  // namespace flowlab::lab

// TopologyView: the read-only face of the controller's topology service, for
// readers outside the OpenFlow path (the REST API's /v1.0/topology/switches,
// /links, /hosts, flowlab's own status output).
//
// Every call returns a snapshot copied under the service's lock, so it may be
// called from any thread (an HTTP thread included) while switches come and go;
// nothing returned refers back into the service. Lists are sorted: switches by
// dpid, ports by number, links by (src dpid, src port), hosts by MAC.
// Obtain one from Controller::topology().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "packet/addr.h"

namespace flowlab::controller::topology {

struct PortView {
  uint64_t dpid = 0;
  uint32_t port_no = 0;
  std::string name;
  MacAddr hw_addr;
  bool up = false;  // neither administratively down nor link down
  bool operator==(const PortView&) const = default;
};

struct SwitchView {
  uint64_t dpid = 0;
  uint8_t version = 0;          // OpenFlow wire version (0x04 = 1.3, 0x01 = 1.0)
  std::vector<PortView> ports;  // without the LOCAL port
  bool operator==(const SwitchView&) const = default;
};

// One direction of a switch-to-switch link, as discovered by LLDP (an LLDP
// frame sent on src was received on dst). A working cable shows as two links.
struct LinkView {
  uint64_t src_dpid = 0;
  uint32_t src_port = 0;
  uint64_t dst_dpid = 0;
  uint32_t dst_port = 0;
  bool operator==(const LinkView&) const = default;
};

// A host learned from packet-ins on an edge port (a port with no link).
struct HostView {
  MacAddr mac;
  std::vector<Ipv4Addr> ipv4;  // every address seen, oldest first
  std::vector<Ipv6Addr> ipv6;
  uint64_t dpid = 0;  // where it was seen last
  uint32_t port_no = 0;
  bool operator==(const HostView&) const = default;
};

class TopologyView {
 public:
  virtual ~TopologyView() = default;
  virtual std::vector<SwitchView> switches() const = 0;
  virtual std::optional<SwitchView> switch_at(uint64_t dpid) const = 0;
  virtual std::vector<LinkView> links() const = 0;  // all, or: filter by src_dpid yourself
  virtual std::vector<HostView> hosts() const = 0;
};

}  // namespace flowlab::controller::topology

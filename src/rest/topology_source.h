// TopologySource: the switches, links and hosts the REST API's
// /v1.0/topology/* endpoints (Ryu's rest_topology) report.
//
// RuntimeTopology (switch_directory.h) serves the connected switches and their
// ports, and the links and hosts of the controller's topology service (LLDP
// links, hosts from packet-ins; src/controller/topology). Every call returns a
// snapshot and may be made from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "packet/addr.h"

namespace flowlab::rest {

struct TopoPort {
  uint64_t dpid = 0;
  uint32_t port_no = 0;
  std::string name;
  MacAddr hw_addr;
};
struct TopoSwitch {
  uint64_t dpid = 0;
  std::vector<TopoPort> ports;  // without LOCAL, by number
};
// One direction of a link: an LLDP frame sent on src was received on dst.
struct TopoLink {
  TopoPort src, dst;
};
struct TopoHost {
  MacAddr mac;
  std::vector<Ipv4Addr> ipv4;
  std::vector<Ipv6Addr> ipv6;
  TopoPort port;  // where it was seen last
};

class TopologySource {
 public:
  virtual ~TopologySource() = default;
  virtual std::vector<TopoSwitch> switches() const = 0;  // by dpid
  virtual std::vector<TopoLink> links() const = 0;       // by (src dpid, src port)
  virtual std::vector<TopoHost> hosts() const = 0;       // by MAC
};

}  // namespace flowlab::rest

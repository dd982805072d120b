// VXLAN ends: a link whose two ends land on two machines is carried as VXLAN
// over the machines' underlay, one VNI per link (RFC 7348).
//
// The device is made from a netlink socket in the underlay's namespace (where
// the machine's underlay address lives; its UDP socket stays there) straight into
// the node's namespace under the link end's name, with its MTU and up, so that
// the switch or host sees an ordinary interface (netlink.h: vxlan_request). A
// machine's tunnels go in one batch, no `ip` per step. A device goes with the
// node's namespace; if the underlay's namespace goes first, the kernel removes it
// too. A segment with many peers (the machines' control network) floods to each
// one through an all-zeros FDB entry per peer (head-end replication, as `bridge
// fdb append` does).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/net/tc_bpf.h"

namespace flowlab::lab {

// IPv4 outer header (20) + UDP (8) + VXLAN (8) + the inner Ethernet header (14).
constexpr int kVxlanOverhead = 50;

struct VxlanEnd {
  std::string underlay_ns;           // where the underlay address lives; empty: this process' namespace
  std::string local;                 // this machine's underlay address
  std::vector<std::string> remotes;  // one: a point-to-point link; several: a flooded segment
  uint32_t vni = 0;
  int port = 4789;     // UDP destination port
  std::string ns;      // the node's namespace it ends up in
  std::string ifname;  // its name there
  int mtu = 0;         // 0: the kernel's (the underlay's less the overhead)
};

// Creates the devices, one netlink batch per underlay namespace (then the
// flooded segments' FDB entries, one batch per node namespace). On an error,
// naming the end, the devices already made stay in their node namespaces, whose
// owner removes them with the namespace.
Status create_vxlans(const std::vector<VxlanEnd>& ends);
Status create_vxlan(const VxlanEnd& end);

// A provider network's end (`type: underlay`, `vlan: N`): no tunnel, the frames
// go on the machine's underlay NIC tagged N (802.1Q). The node's end is a veth
// whose peer stays beside the NIC; two of the lab's tc programs (tc_bpf.h) join
// them: the peer's ingress pushes tag N and redirects to the NIC, the NIC's
// ingress takes the frames tagged N (the tag popped) to the peer and leaves every
// other frame to the stack. (No 8021q module needed; the kernel may lack it.)
// The veth goes with the node's namespace, the programs with this object.
struct VlanEnd {
  std::string underlay_ns;  // where the NIC lives; empty: this process' namespace
  std::string parent;       // the NIC (the interface holding the underlay address)
  int vid = 0;
  std::string ns, ifname;
  int mtu = 0;           // 0: the kernel's default
  std::string tmp_name;  // the peer's name beside the NIC (unique there, <= 13 characters)
};

class ProviderEnd {
 public:
  static Result<std::unique_ptr<ProviderEnd>> create(const VlanEnd& end);
  ~ProviderEnd();  // the programs detached, the peer (and so the node's end) removed
  ProviderEnd(const ProviderEnd&) = delete;
  ProviderEnd& operator=(const ProviderEnd&) = delete;

 private:
  ProviderEnd() = default;
  std::string underlay_ns_, peer_;
  TcxProgram to_nic_, from_nic_;
};

// The interface that holds address `addr` in namespace `ns` ("" : this one).
Result<std::string> interface_with_address(const std::string& ns, const std::string& addr);

}  // namespace flowlab::lab

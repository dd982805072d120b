// rtnetlink for the lab's bring-up, through libmnl: the calls `ip link`/`ip addr`
// would make, without a fork per step, batched.
//
// A RtnlSocket talks to the kernel of one network namespace: the one the calling
// thread was in when it opened (open_in() enters the namespace only for the
// socket(2) call and returns). Requests go out in batches (many messages per
// sendmsg, one ack each); the first failing message of a batch becomes the error,
// naming the object it was about, the errno and the kernel's extended-ack text.
//
// A veth is created with both ends placed directly in their namespaces
// (IFLA_NET_NS_FD on the device and on its peer), with its MTU and MACs, in one
// message: nothing appears in the caller's namespace and nothing is moved. The
// device comes up with it; the peer needs a link_up_request in its namespace.
//
// A veth with both ends in one namespace (two switches' ports in the switch
// namespace) joins the interface group kLabLinkGroup (VethEnd::group), so a
// teardown deletes them all with one request (group_delete_request) and the kernel
// unregisters them in one batch. Left to the namespace's destruction, such a pair
// between two bridges costs the kernel ~35 ms (an RCU grace period per bridge
// port, one after the other under the RTNL lock), long after the lab has gone:
// 1.7 s for linear,100. A host's link is left to its namespace: the kernel frees
// those together, fast.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"

struct mnl_socket;

namespace flowlab::lab {

// One interface as an RTM_GETLINK dump reports it: what `ip -s link` and `bridge
// link` print, read without a fork.
struct LinkInfo {
  int index = 0;
  std::string name;
  int master = 0;              // ifindex of the bridge it is enslaved to, 0 if none
  bool up = false;             // IFF_UP
  int bridge_port_state = -1;  // BR_STATE_* (0 disabled .. 4 blocking) of a bridge port, -1 if not one
  uint64_t rx_packets = 0, tx_packets = 0, rx_bytes = 0, tx_bytes = 0;
  uint64_t rx_errors = 0, tx_errors = 0, rx_dropped = 0, tx_dropped = 0;
};
// "disabled", "listening", "learning", "forwarding", "blocking" (as `bridge link` says).
const char* bridge_port_state_name(int state);
// Parses one RTM_NEWLINK message (header included); false if it is not one.
bool parse_link_message(const void* msg, size_t len, LinkInfo& out);

// One rtnetlink request: the message bytes and what it is about (for errors).
struct RtnlRequest {
  std::vector<uint8_t> bytes;
  std::string what;         // "creating veth h1:eth0 <-> s1-eth1"
  int tolerated_errno = 0;  // an answer that counts as done (ENODEV: nothing to delete)
};

class RtnlSocket {
 public:
  // A socket in the caller's current namespace.
  static Result<RtnlSocket> open();
  // A socket in the namespace at `ns_path` (/run/netns/NAME).
  static Result<RtnlSocket> open_in(const std::string& ns_path);
  RtnlSocket() = default;
  RtnlSocket(RtnlSocket&& o) noexcept;
  RtnlSocket& operator=(RtnlSocket&& o) noexcept;
  RtnlSocket(const RtnlSocket&) = delete;
  RtnlSocket& operator=(const RtnlSocket&) = delete;
  ~RtnlSocket();

  // Sends the requests in batches and waits for every ack; stops at the first error.
  Status run(std::vector<RtnlRequest> reqs);
  // The ifindex of `ifname` in this socket's namespace.
  Result<int> link_index(const std::string& ifname);
  // Every interface of the namespace with its counters (one RTM_GETLINK dump).
  Result<std::vector<LinkInfo>> dump_links();

 private:
  Status send_batch(std::vector<RtnlRequest>& reqs, size_t from, size_t to);
  mnl_socket* nl_ = nullptr;
  uint32_t portid_ = 0;
  uint32_t seq_ = 1;
};

// The interface group of the lab's veth ends ("fl"). Groups are per namespace.
constexpr uint32_t kLabLinkGroup = 0x666c;

// Message builders (pure: bytes only). MACs are "aa:bb:cc:dd:ee:ff" or empty.
struct VethEnd {
  std::string ifname;
  int ns_fd = -1;  // an open fd of the end's namespace
  int mtu = 0;     // 0: the kernel's default
  std::string mac;
  uint32_t group = 0;  // the interface group; 0: the default
};
Result<RtnlRequest> veth_request(const VethEnd& a, const VethEnd& b, const std::string& what);
// Sets IFF_UP on `ifindex` (and its MTU when mtu > 0).
RtnlRequest link_up_request(int ifindex, const std::string& what);
// A bridge device, up; stp: kernel STP with 2 s forward delay and 1 s hello.
RtnlRequest bridge_request(const std::string& name, bool stp, const std::string& what);
RtnlRequest set_master_request(int ifindex, int master_index, const std::string& what);
// Deletes every interface of `group` in the socket's namespace, in one batch
// (RTM_DELLINK with ifindex 0 and IFLA_GROUP; the kernel answers ENODEV if the
// group is empty).
RtnlRequest group_delete_request(uint32_t group, const std::string& what);
// An IPv4 address "10.0.0.1/8" on ifindex.
Result<RtnlRequest> addr_request(int ifindex, const std::string& cidr, const std::string& what);

// A VXLAN device (RFC 7348), created up in namespace `ns_fd` with its name and
// MTU in one message. Its UDP socket lives in the namespace of the socket that
// sends the request (the kernel's link net: the machine's underlay), so a
// tunnel end goes straight into the node's namespace while its frames leave from
// the underlay; nothing appears beside the underlay and nothing is moved. The
// device goes with its namespace, and with the underlay's. Addresses are IPv4 or
// IPv6 (local and remote of one family).
struct VxlanDevice {
  std::string ifname;
  int ns_fd = -1;      // where the device goes; -1: the socket's namespace
  uint32_t vni = 0;    // 0 .. 2^24-1
  std::string local;   // the source address on the underlay
  std::string remote;  // the far end; empty: none (a flooded segment's FDB says where, below)
  int port = 4789;     // UDP destination port
  int mtu = 0;         // 0: the kernel's
};
Result<RtnlRequest> vxlan_request(const VxlanDevice& d, const std::string& what);
// An all-zeros FDB entry on the VXLAN device `ifindex` to `dst`: every flooded
// frame also goes there (head-end replication, `bridge fdb append
// 00:00:00:00:00:00 dev D dst DST`). Sent in the device's namespace.
Result<RtnlRequest> vxlan_flood_request(int ifindex, const std::string& dst, const std::string& what);

// "aa:bb:cc:dd:ee:ff" -> 6 bytes.
Result<std::vector<uint8_t>> parse_mac(const std::string& mac);

}  // namespace flowlab::lab

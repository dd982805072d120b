// Network namespaces and veth links for the lab, owned by RAII types, plus the
// per-interface facts the report explains with (offload state, checksum errors).
//
// No `ip` is forked: a namespace is made as `ip netns add` makes it (a file under
// /run/netns bind-mounted over a thread's fresh namespace, so `ip netns exec`
// works on it), in parallel worker threads; links and addresses go through
// rtnetlink (netlink.h) in batches. Deleting a namespace (unmount + unlink) deletes
// its veths with it; the kernel frees them in the background.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/netlink.h"

namespace flowlab::lab {

class RunState;
class Netns;
Result<std::vector<Netns>> create_namespaces(const std::vector<std::string>& names, RunState* state);
void destroy_namespaces(std::vector<Netns>& namespaces);

// A named network namespace (`ip netns add`), deleted by the destructor.
// Recorded in the RunState while it exists.
class Netns {
 public:
  static Result<Netns> create(const std::string& name, RunState* state);
  Netns() = default;
  Netns(Netns&& o) noexcept { *this = std::move(o); }
  Netns& operator=(Netns&& o) noexcept;
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  ~Netns() { destroy(); }

  const std::string& name() const { return name_; }
  std::string path() const { return "/run/netns/" + name_; }
  void destroy();

 private:
  friend Result<std::vector<Netns>> create_namespaces(const std::vector<std::string>&, RunState*);
  friend void destroy_namespaces(std::vector<Netns>&);
  std::string name_;
  RunState* state_ = nullptr;
};

// Creates the namespaces in parallel (each with lo up), all recorded in `state`
// before the first exists; on error the ones made are deleted again.
Result<std::vector<Netns>> create_namespaces(const std::vector<std::string>& names, RunState* state);
// Deletes them (processes inside should be gone first); the vector is emptied.
void destroy_namespaces(std::vector<Netns>& namespaces);
// Unmounts and unlinks /run/netns/NAME (what `ip netns del` does); false if it was
// not there.
bool remove_netns_mount(const std::string& name, std::string* error = nullptr);

// Runs fn on a short-lived thread inside namespace `ns` (setns of a network
// namespace changes only the calling thread; the caller's threads stay where they
// are): a socket fn opens belongs to `ns`. An error when `ns` cannot be entered
// (fn does not run); empty `ns`: fn runs on the thread here.
Status run_in_netns(const std::string& ns, const std::function<void()>& fn);

// Open fds of namespaces by name (/run/netns/NAME), for IFLA_NET_NS_FD; closed by
// the destructor.
class NamespaceFds {
 public:
  NamespaceFds() = default;
  NamespaceFds(const NamespaceFds&) = delete;
  NamespaceFds& operator=(const NamespaceFds&) = delete;
  ~NamespaceFds();
  Result<int> get(const std::string& ns);
  size_t size() const { return fds_.size(); }

 private:
  std::map<std::string, int> fds_;
};

// Runs fn(0..n-1) on up to `workers` threads; the first error wins (the rest of the
// items are not started once one failed).
Status parallel_for(size_t n, size_t workers, const std::function<Status(size_t)>& fn);

// A veth pair created directly in its two namespaces (nothing ever appears in the
// lab's own namespace), up; it disappears with either namespace.
struct VethSpec {
  std::string ns_a, if_a, ns_b, if_b;
  int mtu = 0;
  std::string mac_a, mac_b;  // empty: the kernel's random MAC
};
Status create_veth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                   const std::string& if_b, int mtu);
// Many at once: batched netlink requests from one socket; the a ends come up with
// the pair, the b ends need set_peers_up (the kernel cannot open a veth before its
// pair is joined).
Status create_veths(const std::vector<VethSpec>& veths);
// Deletes every veth the lab made with both ends in `ns` (the group kLabLinkGroup,
// netlink.h) in one kernel batch; nothing to delete is fine.
Status delete_lab_links(const std::string& ns);
// The same delete, later: the socket opened by open() keeps the namespace alive
// after its unmount (a netlink socket holds its namespace), so the namespace can
// leave /run/netns first and the delete follow, off the path of whoever waits for
// the unmount. On one kernel shared by several emulated machines, a request made
// after another machine's unmounts waits for the RTNL lock while the kernel frees
// those namespaces (0.5-1 s). Dropped without run(): the kernel frees the links
// with the namespace (slowly, netlink.h says why).
class LabLinksDelete {
 public:
  static Result<LabLinksDelete> open(const std::string& ns);
  Status run();

 private:
  std::string ns_;
  RtnlSocket sock_;
};
// Interface -> "10.0.0.1/8", per namespace.
using AddressesByNs = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
// The b ends up, and `addresses` added, one socket and batch per namespace.
Status set_peers_up(const std::vector<VethSpec>& veths, const AddressesByNs& addresses = {});
// IPv4 addresses ("10.0.0.1/8") per namespace: ns -> [(ifname, cidr)], in parallel.
Status add_addresses(const AddressesByNs& by_ns);
// A Linux bridge in `ns`, up, with `ports` enslaved (optionally kernel STP).
Status create_bridge(const std::string& ns, const std::string& name, bool stp,
                     const std::vector<std::string>& ports);
// The switches' namespace, before any link exists: interfaces made in it from now
// on get no IPv6 (a switch port needs no address; with thousands of ports every
// flooded IPv6 multicast frame cost a route lookup linear in the number of ports,
// at every bridge it crossed: linear,1000 took 188 s), and bridged frames skip
// iptables/ip6tables/arptables (br_netfilter's per-namespace switches; a security
// group turns iptables back on). Its lo keeps IPv6.
Status prepare_switch_namespace(const std::string& ns);
// Writes "value" to /proc/sys/KEY (KEY like "net/ipv6/conf/default/disable_ipv6" or
// with dots, as sysctl(8) names it) as seen from namespace `ns` (net.* keys are per
// namespace): `sysctl -w` without the fork; a key missing from the kernel is skipped
// when optional.
Status write_sysctl_in(const std::string& ns, const std::string& key, const std::string& value,
                       bool optional = false);
// Every interface of namespace `ns` with its counters and bridge-port state (one
// RTM_GETLINK dump, no fork).
Result<std::vector<LinkInfo>> namespace_links(const std::string& ns);
// offloads off: rx/tx checksum, TSO, GSO, GRO, scatter-gather all off.
Status set_offloads(const std::string& ns, const std::string& ifname, bool on);
// The main offload features as "feature" -> "on"/"off" (from `ethtool -k`).
std::map<std::string, std::string> offload_state(const std::string& ns, const std::string& ifname);
// Parses `ethtool -k` output (exposed for tests).
std::map<std::string, std::string> parse_ethtool_features(const std::string& text);
// Checksum-error and retransmit counters of a namespace's stack (/proc/net/snmp):
// "Tcp.InCsumErrors", "Udp.InCsumErrors", "Tcp.RetransSegs", "Udp.RcvbufErrors", ...
std::map<std::string, long long> snmp_counters(const std::string& ns);
std::map<std::string, long long> parse_snmp(const std::string& text);

}  // namespace flowlab::lab

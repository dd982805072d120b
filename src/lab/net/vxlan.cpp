// VXLAN ends through rtnetlink batches (a machine's tunnels in one); VLAN ends
// (a provider network's few) through iproute2.
#include "lab/net/vxlan.h"

#include <fmt/format.h>

#include <map>
#include <sstream>

#include "lab/host/netlink.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"

namespace flowlab::lab {

namespace {

std::vector<std::string> ip_in(const std::string& ns, std::vector<std::string> args) {
  std::vector<std::string> argv = {"ip"};
  if (!ns.empty()) argv.insert(argv.end(), {"-n", ns});
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// The device `tmp` made in the underlay's namespace into namespace `ns` as
// `ifname`, with `mtu` (0: as it is), up; removed again if that fails.
Status move_in(const std::string& underlay_ns, const std::string& tmp, const std::string& ns,
               const std::string& ifname, int mtu) {
  auto undo = [&] { (void)run_command(ip_in(underlay_ns, {"link", "del", tmp}), uninterruptible(5)); };
  Status st = run_checked(ip_in(underlay_ns, {"link", "set", tmp, "netns", ns}), with_timeout(5));
  if (!st.ok()) {
    undo();
    return st;
  }
  std::vector<std::string> set = {"link", "set", tmp, "name", ifname};
  if (mtu) set.insert(set.end(), {"mtu", std::to_string(mtu)});
  set.push_back("up");
  return run_checked(ip_in(ns, set), with_timeout(5));
}

}  // namespace

Result<std::string> interface_with_address(const std::string& ns, const std::string& addr) {
  auto r = run_command({"ip", "-o", "addr", "show"}, in_ns(ns, 5));
  if (!r.ok()) return fail("listing the addresses{}: {}", ns.empty() ? "" : " of netns " + ns, r.describe());
  // "2: ul0    inet 192.0.2.11/24 brd ... scope global ul0\ ..."
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream f(line);
    std::string index, dev, family, cidr;
    f >> index >> dev >> family >> cidr;
    if ((family == "inet" || family == "inet6") && cidr.substr(0, cidr.find('/')) == addr) return dev;
  }
  return fail("no interface holds {}{}", addr, ns.empty() ? "" : " in netns " + ns);
}

Result<std::unique_ptr<ProviderEnd>> ProviderEnd::create(const VlanEnd& e) {
  if (e.vid < 1 || e.vid > 4094) return fail("provider link {}: VLAN id {} out of 1-4094", e.ifname, e.vid);
  if (e.parent.empty()) return fail("provider link {}: no underlay NIC to tag it on", e.ifname);
  if (e.tmp_name.empty() || e.tmp_name.size() > 13)
    return fail("provider link: bad peer name '{}'", e.tmp_name);
  std::unique_ptr<ProviderEnd> p(new ProviderEnd());
  std::string node_end = e.tmp_name + "n";
  std::vector<std::string> add = {"link", "add", e.tmp_name, "type", "veth", "peer", "name", node_end};
  FLOWLAB_TRY(run_checked(ip_in(e.underlay_ns, add), with_timeout(5)));
  p->underlay_ns_ = e.underlay_ns;
  p->peer_ = e.tmp_name;  // from here on the destructor removes the pair
  FLOWLAB_TRY(move_in(e.underlay_ns, node_end, e.ns, e.ifname, e.mtu));
  std::vector<std::string> up = {"link", "set", e.tmp_name};
  if (e.mtu) up.insert(up.end(), {"mtu", std::to_string(e.mtu)});
  up.push_back("up");
  FLOWLAB_TRY(run_checked(ip_in(e.underlay_ns, up), with_timeout(5)));
  FLOWLAB_ASSIGN_OR_RETURN(int nic, ifindex_in(e.underlay_ns, e.parent));
  FLOWLAB_ASSIGN_OR_RETURN(int peer, ifindex_in(e.underlay_ns, e.tmp_name));
  TcAction push;
  push.vlan_push = e.vid;
  push.redirect_ifindex = nic;
  FLOWLAB_ASSIGN_OR_RETURN(p->to_nic_, TcxProgram::attach(e.underlay_ns, e.tmp_name, true, push));
  TcAction pop;
  pop.vlan_pop = e.vid;
  pop.redirect_ifindex = peer;
  FLOWLAB_ASSIGN_OR_RETURN(p->from_nic_, TcxProgram::attach(e.underlay_ns, e.parent, true, pop));
  return p;
}

ProviderEnd::~ProviderEnd() {
  from_nic_.reset();
  to_nic_.reset();
  if (!peer_.empty()) (void)run_command(ip_in(underlay_ns_, {"link", "del", peer_}), uninterruptible(5));
}

Status create_vxlans(const std::vector<VxlanEnd>& ends) {
  std::map<std::string, std::vector<const VxlanEnd*>> by_underlay;
  for (const auto& e : ends) {
    if (e.remotes.empty()) return fail("vxlan {} in {}: no remote underlay address", e.ifname, e.ns);
    if (e.ns.empty()) return fail("vxlan {}: no namespace to put it in", e.ifname);
    by_underlay[e.underlay_ns].push_back(&e);
  }
  for (const auto& [underlay, list] : by_underlay) {
    FLOWLAB_ASSIGN_OR_RETURN(
        auto sock, underlay.empty() ? RtnlSocket::open() : RtnlSocket::open_in("/run/netns/" + underlay));
    NamespaceFds fds;
    std::vector<RtnlRequest> reqs;
    for (const VxlanEnd* e : list) {
      FLOWLAB_ASSIGN_OR_RETURN(int fd, fds.get(e->ns));
      std::string remote = e->remotes.size() == 1 ? e->remotes.front() : "";
      std::string what = fmt::format("creating vxlan {} (VNI {}, {} -> {}, UDP {}) in {}", e->ifname, e->vni,
                                     e->local, remote.empty() ? "flooded" : remote, e->port, e->ns);
      FLOWLAB_ASSIGN_OR_RETURN(
          auto r, vxlan_request({e->ifname, fd, e->vni, e->local, remote, e->port, e->mtu}, what));
      reqs.push_back(std::move(r));
    }
    FLOWLAB_TRY(sock.run(std::move(reqs)));
  }
  for (const auto& e : ends) {
    if (e.remotes.size() < 2) continue;
    FLOWLAB_ASSIGN_OR_RETURN(auto sock, RtnlSocket::open_in("/run/netns/" + e.ns));
    FLOWLAB_ASSIGN_OR_RETURN(int idx, sock.link_index(e.ifname));
    std::vector<RtnlRequest> reqs;
    for (const auto& r : e.remotes) {
      FLOWLAB_ASSIGN_OR_RETURN(
          auto req,
          vxlan_flood_request(idx, r, fmt::format("flooding vxlan {} in {} to {}", e.ifname, e.ns, r)));
      reqs.push_back(std::move(req));
    }
    FLOWLAB_TRY(sock.run(std::move(reqs)));
  }
  return ok_status();
}

Status create_vxlan(const VxlanEnd& end) { return create_vxlans({end}); }

}  // namespace flowlab::lab

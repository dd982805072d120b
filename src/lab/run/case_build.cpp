// Bring-up of one case: namespaces, links and their offloads, addresses, then the
// controllers and switches, each phase timed (PhaseClock) into results.json.
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/clock.h"
#include "lab/backend/backends.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab/measure/sampler.h"
#include "lab/net/shaped_link.h"
#include "lab/net/vxlan.h"
#include "lab/report/repeat.h"
#include "lab/report/report.h"
#include "lab/run/case_capture.h"
#include "lab/run/case_events.h"
#include "lab/run/case_topology.h"
#include "lab/run/progress_line.h"
#include "lab/run/static_arp.h"
#include "lab/run/topology_record.h"
#include "lab/scenario/topology.h"
#include "lab/traffic/pingall.h"
#include "lab/traffic/probe_test.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

namespace {

constexpr int kControllerPortBase = 6653;
constexpr int kSwitchListenBase = 6634;
// The controller link's ends (TEST-NET-1: never a host's address).
constexpr const char* kCtlCoreIf = "ctl-link";
constexpr const char* kCtlIf = "eth0";
constexpr const char* kCtlCoreAddr = "192.0.2.1";
constexpr const char* kCtlAddr = "192.0.2.2";
constexpr const char* kCtlNet = "192.0.2.0/30";  // the link's network, routed to across machines
constexpr int kSwitchListenHigh = 20000;         // past 19 switches, clear of the controllers' 6653...
// The control segment's end in the core namespace, across machines.
constexpr const char* kControlIf = "fl-control";

// Waits (bounded) until `want` TCP connections to 127.0.0.1:port are established in
// `ns` (a sock_diag dump every 5 ms).
Status wait_connections(const std::string& ns, int port, size_t want, double timeout_s) {
  size_t have = 0;
  for (uint64_t t0 = monotonic_ns(); double(monotonic_ns() - t0) / 1e9 < timeout_s;) {
    have = connections_to(ns, port);
    if (have >= want) return ok_status();
    if (!sleep_unless_interrupted(0.005)) return fail("interrupted");
  }
  return fail("{} of {} switches connected to the controller on port {} within {:.0f} s", have, want, port,
              timeout_s);
}

// Across machines with a controller_link: the controllers sit behind the shaped
// link on their machine; every switch connects to kCtlAddr. The controllers'
// machine forwards between the control segment and the link (its core namespace
// a router, the controllers' namespace routing the segment back through it); the
// other machines route kCtlNet over the segment to it.
Status route_to_far_controllers(const MachinePart& part, const CaseTopology& topo) {
  std::string segment = part.control_addr;  // "198.51.100.K/24": its network
  segment = segment.substr(0, segment.rfind('.')) + ".0/24";
  if (part.controllers) {
    FLOWLAB_TRY(write_sysctl_in(topo.core_ns, "net.ipv4.ip_forward", "1"));
    return run_checked({"ip", "route", "add", segment, "via", kCtlCoreAddr}, in_ns(topo.ctl_ns, 5));
  }
  return run_checked({"ip", "route", "add", kCtlNet, "via", part.controller_host}, in_ns(topo.core_ns, 5));
}

}  // namespace

Status build_case(RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& case_out,
                  CaseTopology& topo) {
  const Scenario& sc = rc.sc;
  // Across machines (rc.part): only this machine's nodes, its ends of links to
  // other machines as VXLAN, and the controllers reached over the control segment.
  const MachinePart* part = rc.part;
  auto here = [&](const std::string& node) { return !part || part->here(node); };
  std::string prefix = part ? part->ns_prefix : fmt::format("fl{}-{}", rc.state.id(), ci);
  topo.core_ns = prefix + "-sw";
  // Phase 1: every namespace at once (parallel, netns.h).
  PhaseClock clock(topo.phases, cs.name);
  std::vector<std::string> ns_names = {topo.core_ns};
  for (const auto& h : sc.hosts) {
    if (!here(h.name)) continue;
    ns_names.push_back(prefix + "-" + h.name);
    topo.host_ns[h.name] = ns_names.back();
  }
  // A controller far away (`controller_link`): the controllers get a namespace of
  // their own, reached from the core namespace over a shaped link (across
  // machines: on the controllers' machine; the others route to it, below).
  bool ctl_here = cs.controller_link && (!part || part->controllers);
  if (ctl_here) {
    topo.ctl_ns = prefix + "-ctl";
    ns_names.push_back(topo.ctl_ns);
  }
  FLOWLAB_ASSIGN_OR_RETURN(topo.namespaces, create_namespaces(ns_names, &rc.state));
  FLOWLAB_TRY(prepare_switch_namespace(topo.core_ns));  // no IPv6 on switch ports (netns.h)
  clock.lap("namespaces", ns_names.size());
  if (part && !part->control_peers.empty()) {
    FLOWLAB_TRY(create_vxlan({part->underlay_ns, part->underlay_addr, part->control_peers, part->control_vni,
                              part->vxlan_port, topo.core_ns, kControlIf, part->tunnel_mtu}));
    FLOWLAB_TRY(add_addresses({{topo.core_ns, {{kControlIf, part->control_addr}}}}));
    clock.lap("control_segment", part->control_peers.size());
  }
  // Links: a host end lives in the host's namespace under its own name; a switch end
  // in the core namespace as "<switch>-<port>" (both ends of a switch-to-switch link).
  auto switch_ports = switch_port_order(sc, cs);
  topo.handles.link_names = link_names(sc);
  struct End {
    std::string ns, ifname, label, mac;
    int mtu = 0;
    std::optional<bool> offloads;
  };
  std::vector<std::pair<End, End>> ends;
  std::vector<VethSpec> veths;
  std::vector<VxlanEnd> tunnels;
  std::vector<VlanEnd> vlans;          // provider links' ends (type: underlay)
  std::set<std::string> mac_at_birth;  // "ns/ifname" whose MAC the veth was created with
  for (size_t li = 0; li < sc.links.size(); ++li) {
    const LinkSpec& l = sc.links[li];
    if (!here(l.a.node) && !here(l.b.node)) {  // wholly on other machines
      topo.handles.link_ends.push_back({});
      topo.handles.shaped.push_back(nullptr);
      continue;
    }
    auto resolve = [&](const Endpoint& e) {
      End x;
      if (const HostSpec* h = sc.host(e.node)) {
        x.ns = topo.host_ns[e.node];
        x.ifname = e.ifname;
        x.offloads = h->offloads;
        for (const auto& i : h->interfaces)
          if (i.name == e.ifname) {
            x.mtu = i.mtu;
            x.mac = i.mac;
          }
      } else {
        x.ns = topo.core_ns;
        x.ifname = switch_port_ifname(e);
      }
      x.label = e.node + ":" + e.ifname;
      return x;
    };
    End a = resolve(l.a), b = resolve(l.b);
    int mtu = l.mtu ? l.mtu : std::max(a.mtu, b.mtu);
    if (part && !mtu) mtu = part->tunnel_mtu;  // one MTU in the whole lab: a frame fits every tunnel
    if (part && part->tunnels.count(li)) {
      // One end here, as VXLAN to the other machine; the other end is built there.
      bool a_here = here(l.a.node);
      End& e = a_here ? a : b;
      const TunnelSpec& t = part->tunnels.at(li);
      VxlanEnd vx{
          part->underlay_ns, part->underlay_addr, {t.remote}, t.vni, part->vxlan_port, e.ns, e.ifname, mtu};
      ShapedLink* half = nullptr;
      if (t.vlan) {  // a provider network: tagged on the NIC, no tunnel
        vlans.push_back({part->underlay_ns, part->underlay_dev, t.vlan, e.ns, e.ifname, mtu,
                         fmt::format("flq{}{}", t.vlan, rc.state.id())});
      } else if (link_needs_wire(sc, li)) {
        // Shaped between machines: this machine's half, the direction leaving it
        // shaped on the tunnel's side of its wire (shaped_link.h).
        ShapeEnv se{rc.flowlab_bin, case_out, &rc.state, false};
        LinkShapes out = l.shape.leaving(!a_here);
        FLOWLAB_ASSIGN_OR_RETURN(auto sl,
                                 ShapedLink::create_to_tunnel({e.ns, e.ifname}, vx, mtu, out,
                                                              fmt::format("{}-w{}", prefix, li), se));
        half = sl.get();
        topo.shaped.push_back(std::move(sl));
        topo.handles.halves[int(li)] = !a_here;
      } else {
        tunnels.push_back(std::move(vx));
      }
      topo.handles.link_ends.push_back(
          {LinkEnd{a_here ? a.ns : "", a.ifname}, LinkEnd{a_here ? "" : b.ns, b.ifname}});
      topo.handles.shaped.push_back(half);
      ends.emplace_back(a_here ? std::move(a) : std::move(b), End{});
      continue;
    }
    // a shaped link (or one an event re-shapes) goes through a wire namespace.
    topo.handles.link_ends.push_back({LinkEnd{a.ns, a.ifname}, LinkEnd{b.ns, b.ifname}});
    if (link_needs_wire(sc, li)) {
      ShapeEnv se{rc.flowlab_bin, case_out, &rc.state, false};
      FLOWLAB_ASSIGN_OR_RETURN(auto sl, ShapedLink::create({a.ns, a.ifname}, {b.ns, b.ifname}, mtu, l.shape,
                                                           fmt::format("{}-w{}", prefix, li), se));
      topo.handles.shaped.push_back(sl.get());
      topo.shaped.push_back(std::move(sl));
    } else {
      topo.handles.shaped.push_back(nullptr);
      veths.push_back({a.ns, a.ifname, b.ns, b.ifname, mtu, a.mac, b.mac});
      for (const End* e : {&a, &b})
        if (!e->mac.empty()) mac_at_birth.insert(e->ns + "/" + e->ifname);
    }
    ends.emplace_back(std::move(a), std::move(b));
  }
  // Phase 2: the plain veths in netlink batches, each end born in its namespace,
  // up, with its MTU and MAC.
  FLOWLAB_TRY(create_veths(veths));
  clock.lap("links", veths.size());
  FLOWLAB_TRY(create_vxlans(tunnels));
  for (const auto& v : vlans) {
    FLOWLAB_ASSIGN_OR_RETURN(auto end, ProviderEnd::create(v));
    topo.providers.push_back(std::move(end));
  }
  if (part) clock.lap("tunnels", tunnels.size() + vlans.size());
  // Phase 3: the peer ends up and the hosts' addresses on, per namespace in
  // parallel (MACs not set at creation, on shaped links, first).
  AddressesByNs addrs;
  for (const auto& h : sc.hosts)
    for (const auto& i : h.interfaces) {
      if (!here(h.name)) break;
      if (!i.mac.empty() && !mac_at_birth.count(topo.host_ns[h.name] + "/" + i.name))
        FLOWLAB_TRY(
            run_checked({"ip", "link", "set", "dev", i.name, "address", i.mac}, in_ns(topo.host_ns[h.name])));
      if (!i.addr.empty()) addrs[topo.host_ns[h.name]].emplace_back(i.name, i.addr);
    }
  FLOWLAB_TRY(set_peers_up(veths, addrs));
  clock.lap("links_up_addresses", veths.size());
  if (sc.static_arp) {
    FLOWLAB_ASSIGN_OR_RETURN(size_t entries, add_static_arp(sc, topo.host_ns, rc.state.dir() + "/arp"));
    clock.lap("static_arp", entries);
  }
  // The captures from here on: every frame the links carry from the first ARP on.
  if (!rc.capture_links.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(topo.capture, LinkCaptures::start(capture_targets(topo.handles, rc.capture_links,
                                                                               part ? part->machine : ""),
                                                               case_out + "/capture", rc.capture_max_bytes));
    clock.lap("capture", rc.capture_links.size());
  }
  // Phase 4: offloads off where asked, and every end's offload state for the report
  // (ethtool ioctls, in parallel).
  std::vector<const End*> all_ends;
  std::vector<char> off;
  for (const auto& [a, b] : ends) {
    bool on = a.offloads.value_or(b.offloads.value_or(cs.offloads));
    for (const End* e : {&a, &b}) {
      if (e->ns.empty()) continue;  // the far end of a tunnel
      all_ends.push_back(e);
      off.push_back(!on);
    }
  }
  std::vector<std::map<std::string, std::string>> states(all_ends.size());
  FLOWLAB_TRY(parallel_for(all_ends.size(), 4, [&](size_t i) -> Status {
    if (off[i]) FLOWLAB_TRY(set_offloads(all_ends[i]->ns, all_ends[i]->ifname, false));
    states[i] = offload_state(all_ends[i]->ns, all_ends[i]->ifname);
    return ok_status();
  }));
  for (size_t i = 0; i < all_ends.size(); ++i) topo.offloads[all_ends[i]->label] = states[i];
  clock.lap("offloads", all_ends.size());
  if (ctl_here) {
    ShapeEnv se{rc.flowlab_bin, case_out, &rc.state, false};
    LinkShapes both{*cs.controller_link, *cs.controller_link};
    FLOWLAB_ASSIGN_OR_RETURN(topo.controller_link,
                             ShapedLink::create({topo.core_ns, kCtlCoreIf}, {topo.ctl_ns, kCtlIf}, 1500, both,
                                                prefix + "-wc", se));
    FLOWLAB_TRY(add_addresses({{topo.core_ns, {{kCtlCoreIf, std::string(kCtlCoreAddr) + "/30"}}},
                               {topo.ctl_ns, {{kCtlIf, std::string(kCtlAddr) + "/30"}}}}));
    clock.lap("controller_link", 1);
  }
  if (cs.controller_link && part && !part->control_peers.empty())
    FLOWLAB_TRY(route_to_far_controllers(*part, topo));

  CaseEnv env;
  env.ovs = std::make_shared<OvsDaemon>();
  env.switch_host = std::make_shared<SwitchHostProcess>();
  env.core_ns = topo.core_ns;
  env.out_dir = case_out;
  env.scratch_dir = rc.state.dir() + "/" + std::to_string(ci);
  env.flowlab_bin = rc.flowlab_bin;
  env.state = &rc.state;
  std::error_code ec;
  fs::create_directories(env.scratch_dir, ec);
  topo.handles.env = env;
  std::map<std::string, int> ctl_port;
  std::map<std::string, std::string> ctl_host;  // a controller's own address, where it has one
  // --metrics: a listener per flowlab switch and controller, on a port none of the
  // case's OpenFlow ports (nor Prometheus') uses.
  const bool metrics = rc.metrics.on && !part;
  std::vector<ScrapeTarget> scrape;
  std::set<int> used_ports = {rc.metrics.port};
  {
    int i = 0;
    for (const auto& [n, c] : cs.controllers) {
      used_ports.insert(c.port && c.kind != ControllerKind::kRemote ? c.port : kControllerPortBase + i);
      ++i;
    }
    for (size_t k = 0; k < cs.switches.size(); ++k)
      used_ports.insert(int(k) < kControllerPortBase - kSwitchListenBase ? kSwitchListenBase + int(k)
                                                                         : kSwitchListenHigh + int(k));
  }
  MetricsPorts metrics_ports(used_ports);
  int idx = 0;
  for (const auto& [n, c] : cs.controllers) {
    // A remote controller's port is its own; here its relay gets one of the lab's.
    int port = c.port && c.kind != ControllerKind::kRemote ? c.port : kControllerPortBase + idx;
    ++idx;
    if (c.kind == ControllerKind::kNone) continue;
    bool used = controller_used(cs, n);
    if (!used) continue;
    if (c.kind == ControllerKind::kRemote && (cs.controller_link || part))
      return fail(
          "case {}: remote controller {} is reached from this machine's namespace; a "
          "controller_link or a lab across machines cannot carry it",
          cs.name, n);
    if (part && !part->controllers) {  // on another machine: only its port is needed here
      ctl_port[n] = port;
      continue;
    }
    topo.controllers.push_back(std::make_unique<ControllerInstance>(c, port));
    rc.progress.start(fmt::format("[{}] starting {} controller {}", cs.name, to_string(c.kind), n));
    CaseEnv ctl_env = env;
    if (cs.controller_link) {
      ctl_env.core_ns = topo.ctl_ns;
      topo.controllers.back()->set_listen_host(kCtlAddr);
    }
    if (part && !cs.controller_link) topo.controllers.back()->set_listen_host(part->controller_host);
    if (metrics && c.kind == ControllerKind::kFlowlab) {
      std::string addr = fmt::format("{}:{}", topo.controllers.back()->host(), metrics_ports.next());
      topo.controllers.back()->set_metrics(addr);
      scrape.push_back({"flowlab-controller", n, addr});
    }
    auto st = topo.controllers.back()->start(ctl_env);
    rc.progress.done(st.ok() ? "up" : "failed");
    FLOWLAB_TRY(st);
    // A remote controller at an address of its own is reached at that address and
    // its own port (its relay listens there, backends.cpp).
    ctl_port[n] = topo.controllers.back()->port();
    if (c.kind == ControllerKind::kRemote) ctl_host[n] = topo.controllers.back()->host();
    topo.handles.controllers[n] = topo.controllers.back().get();
  }
  clock.lap("controllers", topo.controllers.size());
  idx = 0;
  // Where a switch reaches its controllers: a remote controller at an address of its
  // own there, the others where this case's controllers listen.
  const std::string ctl_default = cs.controller_link ? std::string(kCtlAddr)
                                  : part             ? part->controller_host
                                                     : std::string("127.0.0.1");
  auto target = [&](const std::string& c) {
    return ControllerTarget{ctl_host.count(c) ? ctl_host[c] : ctl_default, ctl_port[c]};
  };
  for (const auto& [n, s] : cs.switches) {
    int listen =
        idx < kControllerPortBase - kSwitchListenBase ? kSwitchListenBase + idx : kSwitchListenHigh + idx;
    ++idx;
    if (!here(n)) continue;
    topo.switches.push_back(std::make_unique<SwitchInstance>(s, switch_ports[n], listen));
    std::vector<ControllerTarget> controllers;
    if (ctl_port.count(s.controller)) {  // no first controller: none at all
      controllers.push_back(target(s.controller));
      for (const auto& m : s.more_controllers)
        if (ctl_port.count(m)) controllers.push_back(target(m));
    }
    topo.switches.back()->set_controllers(std::move(controllers));
    if (metrics && s.kind == SwitchKind::kFlowlab) {
      std::string addr = fmt::format("127.0.0.1:{}", metrics_ports.next());
      topo.switches.back()->set_metrics(addr);
      scrape.push_back({"flowlab-switch", n, addr});
    }
    topo.handles.switches[n] = topo.switches.back().get();
  }
  // Flowlab switches are forked here, one after the other (a child dies with the
  // thread that forked it), then awaited in parallel, a wave at a time; bridges are
  // made in parallel (netlink); OVS switches share one ovsdb and go one at a time.
  // Then every connection is awaited.
  rc.progress.start(fmt::format("[{}] starting {} switches", cs.name, topo.switches.size()));
  // Flowlab switches go in waves of kSwitchWave: each one's start is CPU-bound (a
  // 100-switch lab started at once on 2 cores would blow every switch's own bound).
  constexpr size_t kSwitchWave = 4;
  std::vector<size_t> flowlab_idx;
  for (size_t i = 0; i < topo.switches.size(); ++i)
    if (topo.switches[i]->spec().kind == SwitchKind::kFlowlab) flowlab_idx.push_back(i);
  Status st = parallel_for(topo.switches.size(), 4, [&](size_t i) -> Status {
    if (topo.switches[i]->spec().kind != SwitchKind::kLinuxBridge) return ok_status();
    return topo.switches[i]->start(env);
  });
  // In the case's switch host (switch_host.h) each add returns once that switch
  // listens; two at a time, one per core of the machines this runs on.
  bool hosted = !flowlab_idx.empty() && SwitchHostProcess::wanted(env);
  if (st.ok() && hosted) st = env.switch_host->ensure_started(env);
  if (st.ok() && hosted)
    st = parallel_for(flowlab_idx.size(), 2,
                      [&](size_t k) { return topo.switches[flowlab_idx[k]]->spawn(env); });
  for (size_t w = 0; st.ok() && !hosted && w < flowlab_idx.size(); w += kSwitchWave) {
    size_t end = std::min(flowlab_idx.size(), w + kSwitchWave);
    for (size_t k = w; st.ok() && k < end; ++k) st = topo.switches[flowlab_idx[k]]->spawn(env);
    if (st.ok())
      st = parallel_for(end - w, kSwitchWave,
                        [&](size_t k) { return topo.switches[flowlab_idx[w + k]]->wait_started(); });
  }
  for (size_t i = 0; st.ok() && i < topo.switches.size(); ++i) {
    SwitchKind k = topo.switches[i]->spec().kind;
    if (k == SwitchKind::kOvs || k == SwitchKind::kOvsTso) st = topo.switches[i]->start(env);
  }
  for (size_t i = 0; st.ok() && i < topo.switches.size(); ++i) st = topo.switches[i]->wait_connected(60);
  // wait_connected sees a connection to the controller's port, any switch's: with
  // many switches starting at once, also wait until each holds its own.
  for (auto it = ctl_port.begin(); st.ok() && it != ctl_port.end(); ++it) {
    size_t want = 0;
    for (const auto& sw : topo.switches) {
      const SwitchSpec& ss = sw->spec();
      // One at a time: a switch connects to its first controller alone.
      bool uses = ss.controller_failover ? ss.controller == it->first : ss.uses(it->first);
      want += uses && ss.kind != SwitchKind::kLinuxBridge;
    }
    st = wait_connections(topo.core_ns, it->second, want, 60);
  }
  rc.progress.done(st.ok() ? "up" : "failed");
  FLOWLAB_TRY(st);
  clock.lap("switches", topo.switches.size());
  // Bridges with STP forward only once their ports have left listening/learning.
  for (auto& sw : topo.switches) {
    if (!sw->spec().stp) continue;
    rc.progress.start(fmt::format("[{}] waiting for STP on {}", cs.name, sw->spec().name));
    auto stp = sw->wait_stp_settled(60);
    rc.progress.done(stp.ok() ? "ports forwarding or blocking" : "failed");
    FLOWLAB_TRY(stp);
  }
  clock.lap("stp", 0);
  if (metrics) {
    FLOWLAB_TRY(start_case_prometheus(rc, cs, case_out, std::move(scrape), topo));
    clock.lap("prometheus", topo.prometheus ? 1 : 0);
  }
  return ok_status();
}

}  // namespace flowlab::lab

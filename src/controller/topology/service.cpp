// Topology service (see service.h).
#include "controller/topology/service.h"

#include <algorithm>

#include "controller/app.h"
#include "controller/datapath.h"
#include "controller/flows.h"
#include "controller/topology/lldp.h"
#include "core/clock.h"
#include "core/log.h"

namespace flowlab::controller::topology {

TopologyService::TopologyService(TopologyOptions o) : opts_(o) {}

bool TopologyService::port_up(const of::PortDesc& p) {
  return !(p.state & of::port_state::kLinkDown) && !(p.config & of::port_config::kPortDown);
}

LinkView TopologyService::link_view(PortRef src, const LinkState& l) {
  return LinkView{src.dpid, src.port_no, l.dst.dpid, l.dst.port_no};
}

// ---- TopologyView ----

std::vector<SwitchView> TopologyService::switches() const {
  std::vector<SwitchView> out;
  std::lock_guard lock(mu_);
  for (const auto& [dpid, s] : switches_) {
    SwitchView v{dpid, s.version, {}};
    for (const auto& [no, p] : s.ports)
      if (no <= of::port::kMax) v.ports.push_back(PortView{dpid, no, p.name, p.hw_addr, port_up(p)});
    out.push_back(std::move(v));
  }
  return out;
}

std::optional<SwitchView> TopologyService::switch_at(uint64_t dpid) const {
  for (auto& s : switches())
    if (s.dpid == dpid) return s;
  return std::nullopt;
}

std::vector<LinkView> TopologyService::links() const {
  std::vector<LinkView> out;
  std::lock_guard lock(mu_);
  for (const auto& [src, l] : links_) out.push_back(link_view(src, l));
  return out;
}

std::vector<HostView> TopologyService::hosts() const {
  std::vector<HostView> out;
  std::lock_guard lock(mu_);
  for (const auto& [mac, h] : hosts_) out.push_back(h);
  return out;
}

// ---- queries ----

void TopologyService::subscribe(TopologyListener* l) {
  std::lock_guard lock(mu_);
  listeners_.push_back(l);
}

void TopologyService::unsubscribe(TopologyListener* l) {
  std::lock_guard lock(mu_);
  std::erase(listeners_, l);
}

Graph TopologyService::graph() const {
  Graph g;
  std::lock_guard lock(mu_);
  for (const auto& [dpid, s] : switches_) g.add_switch(dpid);
  // One direction seen is enough to know the cable; a direction that times
  // out takes the other with it (see tick()).
  for (const auto& [src, l] : links_) {
    if (!switches_.count(src.dpid) || !switches_.count(l.dst.dpid)) continue;
    g.add_edge(Edge{src, l.dst, l.weight});
    auto back = links_.find(l.dst);
    uint32_t w = back != links_.end() && back->second.dst == src ? back->second.weight : l.weight;
    g.add_edge(Edge{l.dst, src, w});
  }
  return g;
}

std::optional<std::vector<Hop>> TopologyService::path(uint64_t src, uint64_t dst) const {
  return graph().path(src, dst);
}

std::set<PortRef> TopologyService::spanning_tree() const { return graph().spanning_tree(); }

std::optional<HostView> TopologyService::host(MacAddr mac) const {
  std::lock_guard lock(mu_);
  auto it = hosts_.find(mac);
  if (it == hosts_.end()) return std::nullopt;
  return it->second;
}

std::optional<HostView> TopologyService::host_by_ipv4(Ipv4Addr ip) const {
  std::lock_guard lock(mu_);
  for (const auto& [mac, h] : hosts_)
    if (std::find(h.ipv4.begin(), h.ipv4.end(), ip) != h.ipv4.end()) return h;
  return std::nullopt;
}

bool TopologyService::is_link_port(PortRef p) const {
  std::lock_guard lock(mu_);
  if (links_.count(p)) return true;
  if (auto s = switches_.find(p.dpid); s != switches_.end() && s->second.trunks.count(p.port_no)) return true;
  for (const auto& [src, l] : links_)
    if (l.dst == p) return true;
  return false;
}

std::vector<uint32_t> TopologyService::edge_ports(uint64_t dpid) const {
  std::vector<uint32_t> out;
  std::set<PortRef> link_ports;
  std::lock_guard lock(mu_);
  auto s = switches_.find(dpid);
  if (s == switches_.end()) return out;
  for (const auto& [src, l] : links_) {
    link_ports.insert(src);
    link_ports.insert(l.dst);
  }
  for (const auto& [no, p] : s->second.ports)
    if (no <= of::port::kMax && port_up(p) && !link_ports.count(PortRef{dpid, no}) &&
        !s->second.trunks.count(no))
      out.push_back(no);
  return out;
}

void TopologyService::set_link_weight(PortRef src, uint32_t weight) {
  std::lock_guard lock(mu_);
  if (auto it = links_.find(src); it != links_.end()) it->second.weight = std::max<uint32_t>(1, weight);
}

bool TopologyService::with_switch(uint64_t dpid, std::function<void(Datapath&)> fn) const {
  std::shared_ptr<Datapath> dp;
  {
    std::lock_guard lock(mu_);
    auto it = switches_.find(dpid);
    if (it == switches_.end()) return false;
    dp = it->second.dp.lock();
  }
  if (!dp) return false;
  dp->connection().post([w = std::weak_ptr<Datapath>(dp), fn = std::move(fn)] {
    if (auto d = w.lock(); d && d->up()) fn(*d);
  });
  return true;
}

// ---- runtime hooks ----

void TopologyService::install_lldp_flow(Datapath& dp) {
  of::Match m;
  m.add(of::OxmField::basic(of::OxmId::kEthType, kEthTypeLldp));
  m.add(mac_field(of::OxmId::kEthDst, kLldpDst.b.data()));
  of::FlowMod fm = make_flow(0, kLldpPriority, std::move(m),
                             {of::Action::output(of::port::kController, of::kControllerMaxLenNoBuffer)});
  fm.cookie = kLldpCookie;
  auto st = dp.flow_mod(std::move(fm));
  if (!st.ok()) log::warn("topology", "{}: cannot install the LLDP flow: {}", dp.name(), st.error().message);
}

void TopologyService::reassert_flows() {
  if (!opts_.enabled) return;
  std::vector<uint64_t> dpids;
  {
    std::lock_guard lock(mu_);
    for (const auto& [dpid, sw] : switches_) dpids.push_back(dpid);
  }
  // Posted after the apps' own posted deletions, so it lands behind them.
  for (uint64_t dpid : dpids) with_switch(dpid, [](Datapath& dp) { install_lldp_flow(dp); });
}

void TopologyService::send_lldp(uint64_t dpid, std::vector<uint32_t> ports) const {
  if (ports.empty()) return;
  with_switch(dpid, [ports = std::move(ports)](Datapath& dp) {
    for (uint32_t no : ports) {
      auto p = dp.ports().find(no);
      if (p == dp.ports().end()) continue;
      of::PacketOut po;
      po.actions = {of::Action::output(no)};
      po.data = encode_lldp(LldpId{dp.dpid(), no}, p->second.hw_addr);
      auto st = dp.packet_out(std::move(po));
      if (!st.ok())
        log::debug("topology", "{}: LLDP out of port {} refused: {}", dp.name(), no, st.error().message);
    }
  });
}

void TopologyService::switch_up(Datapath& dp, std::weak_ptr<Datapath> handle) {
  if (!opts_.enabled) return;
  Events ev;
  std::vector<uint32_t> ports;
  {
    std::lock_guard lock(mu_);
    auto& s = switches_[dp.dpid()];
    s.version = dp.version();
    s.ports = dp.ports();
    s.dp = std::move(handle);
    for (const auto& [no, p] : s.ports)
      if (no <= of::port::kMax && port_up(p)) ports.push_back(no);
    ev.sw_added.push_back(dp.dpid());
  }
  install_lldp_flow(dp);
  send_lldp(dp.dpid(), std::move(ports));
  deliver(ev);
}

void TopologyService::switch_down(Datapath& dp) {
  if (!opts_.enabled) return;
  Events ev;
  {
    std::lock_guard lock(mu_);
    auto it = switches_.find(dp.dpid());
    if (it == switches_.end()) return;
    // A stale connection going down after the switch reconnected must not erase the new one.
    if (auto cur = it->second.dp.lock(); cur && cur.get() != &dp) return;
    for (const auto& [no, p] : it->second.ports) {
      remove_links_at(PortRef{dp.dpid(), no}, ev);
      remove_hosts_at(PortRef{dp.dpid(), no}, ev);
    }
    switches_.erase(it);
    ev.sw_removed.push_back(dp.dpid());
  }
  deliver(ev);
}

void TopologyService::remove_links_at(PortRef p, Events& ev) {
  for (auto it = links_.begin(); it != links_.end();) {
    if (it->first == p || it->second.dst == p) {
      ev.link_removed.push_back(link_view(it->first, it->second));
      it = links_.erase(it);
    } else {
      ++it;
    }
  }
}

void TopologyService::remove_hosts_at(PortRef p, Events& ev) {
  for (auto it = hosts_.begin(); it != hosts_.end();) {
    if (it->second.dpid == p.dpid && it->second.port_no == p.port_no) {
      ev.host_removed.push_back(it->second);
      it = hosts_.erase(it);
    } else {
      ++it;
    }
  }
}

bool TopologyService::packet_in(Datapath& dp, const PacketInEvent& pev) {
  if (!opts_.enabled) return false;
  const FlowKey& k = pev.key;
  if (pev.pi.data.size() < 14) return false;
  PortRef at{dp.dpid(), pev.in_port};
  Events ev;
  if (k.eth_type == kEthTypeLldp) {
    auto id = decode_lldp(pev.pi.data);
    if (!id.ok()) {
      log::debug("topology", "{}: port {}: {}", dp.name(), pev.in_port, id.error().message);
      return true;
    }
    PortRef src{id->dpid, id->port_no};
    if (src.dpid == at.dpid) return true;  // looped back into the same switch: not a link
    bool reverse_unknown = false;
    {
      std::lock_guard lock(mu_);
      auto s = switches_.find(src.dpid);
      if (s == switches_.end() || !switches_.count(at.dpid)) return true;
      // A frame sent before a port went down can arrive after its port-status
      // (it waited in the other switch's packet-in queue): a port known to be
      // down at either end proves nothing.
      auto down = [this](PortRef p) {
        const auto& ports = switches_.at(p.dpid).ports;
        auto it = ports.find(p.port_no);
        return it != ports.end() && !port_up(it->second);
      };
      if (down(src) || down(at)) return true;
      auto [it, added] = links_.try_emplace(src);
      if (!added && it->second.dst != at) {
        ev.link_removed.push_back(link_view(src, it->second));
        it->second.weight = 1;
        added = true;
      }
      it->second.dst = at;
      it->second.last_seen_ns = monotonic_ns();
      s->second.trunks.insert(src.port_no);
      switches_[at.dpid].trunks.insert(at.port_no);
      if (added) {
        ev.link_added.push_back(link_view(src, it->second));
        remove_hosts_at(src, ev);
        remove_hosts_at(at, ev);
        // The other direction: at's LLDP went out before src's switch was
        // connected (switches come up one by one), so it is not known until
        // the next tick; asking now saves up to one interval at start.
        reverse_unknown = !links_.count(at);
      }
    }
    for (const auto& l : ev.link_added)
      log::info("topology", "link up: {:016x}:{} -> {:016x}:{}", l.src_dpid, l.src_port, l.dst_dpid,
                l.dst_port);
    deliver(ev);
    if (reverse_unknown) send_lldp(at.dpid, {at.port_no});
    return true;
  }
  MacAddr src;
  std::copy(k.eth_src, k.eth_src + 6, src.b.begin());
  if (src.is_multicast() || src.is_zero() || pev.in_port > of::port::kMax) return false;
  {
    std::lock_guard lock(mu_);
    auto sw = switches_.find(at.dpid);
    if (sw == switches_.end() || links_.count(at) || sw->second.trunks.count(at.port_no)) return false;
    for (const auto& [s, l] : links_)
      if (l.dst == at) return false;
    auto [it, added] = hosts_.try_emplace(src);
    HostView& h = it->second;
    PortRef from{h.dpid, h.port_no};
    bool moved = !added && from != at;
    if (added) h.mac = src;
    h.dpid = at.dpid;
    h.port_no = at.port_no;
    bool changed = added || moved;
    auto add_v4 = [&](uint32_t v) {
      if (v == 0 || std::find(h.ipv4.begin(), h.ipv4.end(), Ipv4Addr{v}) != h.ipv4.end()) return;
      h.ipv4.push_back(Ipv4Addr{v});
      changed = true;
    };
    if (k.eth_type == 0x0806) add_v4(k.arp_spa);
    if (k.eth_type == 0x0800) add_v4(k.ipv4_src);
    if (k.eth_type == 0x86dd) {
      Ipv6Addr a;
      std::copy(k.ipv6_src, k.ipv6_src + 16, a.b.begin());
      if (a != Ipv6Addr{} && std::find(h.ipv6.begin(), h.ipv6.end(), a) == h.ipv6.end()) {
        h.ipv6.push_back(a);
        changed = true;
      }
    }
    if (moved)
      ev.host_moved.emplace_back(h, from);
    else if (changed)
      ev.host_added.push_back(h);
  }
  for (const auto& [h, from] : ev.host_moved)
    log::info("topology", "host {} moved from {:016x}:{} to {:016x}:{}", h.mac.to_string(), from.dpid,
              from.port_no, h.dpid, h.port_no);
  deliver(ev);
  return false;
}

void TopologyService::port_status(Datapath& dp, const of::PortStatus& ps) {
  if (!opts_.enabled) return;
  PortRef p{dp.dpid(), ps.desc.port_no};
  bool gone = ps.reason == uint8_t(of::PortStatusReason::kDelete) || !port_up(ps.desc);
  Events ev;
  {
    std::lock_guard lock(mu_);
    auto s = switches_.find(dp.dpid());
    if (s == switches_.end()) return;
    if (ps.reason == uint8_t(of::PortStatusReason::kDelete))
      s->second.ports.erase(ps.desc.port_no);
    else
      s->second.ports[ps.desc.port_no] = ps.desc;
    if (gone) {
      remove_links_at(p, ev);
      s->second.trunks.erase(p.port_no);  // re-cabled ports are found again by LLDP
    }
  }
  for (const auto& l : ev.link_removed)
    log::info("topology", "link down (port status): {:016x}:{} -> {:016x}:{}", l.src_dpid, l.src_port,
              l.dst_dpid, l.dst_port);
  deliver(ev);
  if (!gone && p.port_no <= of::port::kMax) send_lldp(p.dpid, {p.port_no});
}

void TopologyService::tick() {
  if (!opts_.enabled) return;
  Events ev;
  std::vector<std::pair<uint64_t, std::vector<uint32_t>>> out;
  int64_t now = monotonic_ns();
  int64_t timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(opts_.link_timeout).count();
  {
    std::lock_guard lock(mu_);
    std::vector<PortRef> expired;
    for (const auto& [src, l] : links_)
      if (now - l.last_seen_ns > timeout) expired.push_back(src);
    for (PortRef p : expired) remove_links_at(p, ev);  // both directions of the cable
    for (const auto& [dpid, s] : switches_) {
      std::vector<uint32_t> ports;
      for (const auto& [no, p] : s.ports)
        if (no <= of::port::kMax && port_up(p)) ports.push_back(no);
      out.emplace_back(dpid, std::move(ports));
    }
  }
  for (const auto& l : ev.link_removed)
    log::info("topology", "link down (no LLDP for {} ms): {:016x}:{} -> {:016x}:{}",
              opts_.link_timeout.count(), l.src_dpid, l.src_port, l.dst_dpid, l.dst_port);
  deliver(ev);
  for (auto& [dpid, ports] : out) send_lldp(dpid, std::move(ports));
}

void TopologyService::deliver(const Events& ev) {
  std::vector<TopologyListener*> ls;
  {
    std::lock_guard lock(mu_);
    ls = listeners_;
  }
  for (auto* l : ls) {
    for (uint64_t d : ev.sw_added) l->switch_added(d);
    for (const auto& x : ev.link_removed) l->link_removed(x);
    for (const auto& x : ev.link_added) l->link_added(x);
    for (const auto& x : ev.host_removed) l->host_removed(x);
    for (const auto& x : ev.host_added) l->host_added(x);
    for (const auto& [h, from] : ev.host_moved) l->host_moved(h, from);
    for (uint64_t d : ev.sw_removed) l->switch_removed(d);
  }
}

}  // namespace flowlab::controller::topology

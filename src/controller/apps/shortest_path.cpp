// shortest-path app (see shortest_path.h).
#include "controller/apps/shortest_path.h"

#include <atomic>
#include <set>

#include "controller/flows.h"
#include "core/clock.h"
#include "core/log.h"
#include "packet/builder.h"

namespace flowlab::controller {

using topology::Hop;
using topology::HostView;
using topology::PortRef;

namespace {

MacAddr mac_of(const uint8_t* p) {
  MacAddr m;
  std::copy(p, p + 6, m.b.begin());
  return m;
}

bool link_local(MacAddr dst) {
  return dst.b[0] == 0x01 && dst.b[1] == 0x80 && dst.b[2] == 0xc2 && dst.b[3] == 0 && dst.b[4] == 0 &&
         (dst.b[5] & 0xf0) == 0;
}

}  // namespace

void ShortestPath::attach_topology(topology::TopologyService& t) {
  topo_ = &t;
  t.subscribe(this);
}

void ShortestPath::switch_connected(Datapath& dp) {
  auto st = dp.flow_mod(table_miss_to_controller(table_for(dp), of::kControllerMaxLenNoBuffer));
  if (!st.ok())
    log::warn("shortest-path", "{}: cannot install the table-miss flow: {}", dp.name(), st.error().message);
}

of::FlowMod ShortestPath::dst_flow(const Datapath& dp, MacAddr mac, uint32_t out,
                                   const of::Match& narrow) const {
  of::Match m;
  m.add(mac_field(of::OxmId::kEthDst, mac.b.data()));
  for (const auto& f : narrow.fields) m.add(f);
  of::FlowMod fm =
      make_flow(table_for(dp), kPriority, std::move(m), {of::Action::output(out)}, opts_.idle_timeout);
  fm.cookie = kCookie;
  fm.flags = of::flow_mod_flags::kSendFlowRem;
  return fm;
}

Verdict ShortestPath::packet_in(Datapath& dp, PacketInEvent& ev) {
  if (!topo_ || ev.pi.data.size() < 14) return Verdict::kConsumed;
  MacAddr dst = mac_of(ev.key.eth_dst);
  if (link_local(dst)) return Verdict::kConsumed;  // bridge protocols are never forwarded
  if (opts_.proxy_arp && proxy_arp(dp, ev)) return Verdict::kConsumed;
  if (!dst.is_multicast()) {
    if (auto h = topo_->host(dst)) {
      install_path(dp, ev, *h);
      return Verdict::kConsumed;
    }
  }
  flood(dp, ev);
  return Verdict::kConsumed;
}

void ShortestPath::flood(Datapath& dp, PacketInEvent& ev) {
  PortRef in{dp.dpid(), ev.in_port};
  auto tree = topo_->spanning_tree();
  bool in_is_link = topo_->is_link_port(in);
  if (in_is_link && !tree.count(in)) return;  // a copy that crossed a loop: drop it
  of::ActionList out;
  for (uint32_t p : topo_->edge_ports(dp.dpid()))
    if (p != ev.in_port) out.push_back(of::Action::output(p));
  for (auto it = tree.lower_bound(PortRef{dp.dpid(), 0}); it != tree.end() && it->dpid == dp.dpid(); ++it)
    if (it->port_no != ev.in_port) out.push_back(of::Action::output(it->port_no));
  if (out.empty()) return;
  auto st = dp.packet_out(packet_out_for(ev, std::move(out)));
  if (!st.ok()) log::debug("shortest-path", "{}: flood refused: {}", dp.name(), st.error().message);
}

bool ShortestPath::proxy_arp(Datapath& dp, const PacketInEvent& ev) {
  const FlowKey& k = ev.key;
  if (k.eth_type != 0x0806 || k.arp_op != 1) return false;
  auto target = topo_->host_by_ipv4(Ipv4Addr{k.arp_tpa});
  if (!target) return false;
  MacAddr asker = mac_of(k.arp_sha);
  Bytes reply = FrameBuilder()
                    .eth(mac_of(k.eth_src), target->mac)
                    .arp(2, target->mac, Ipv4Addr{k.arp_tpa}, asker, Ipv4Addr{k.arp_spa})
                    .build();
  of::PacketOut po;
  po.actions = {of::Action::output(ev.in_port)};
  po.data = std::move(reply);
  auto st = dp.packet_out(std::move(po));
  if (!st.ok()) log::debug("shortest-path", "{}: ARP reply refused: {}", dp.name(), st.error().message);
  return true;
}

void ShortestPath::install_path(Datapath& dp, PacketInEvent& ev, const HostView& dst) {
  PortRef at{dp.dpid(), ev.in_port};
  if (dst.dpid == at.dpid && dst.port_no == at.port_no) return;  // already where it belongs
  std::vector<Hop> hops;
  if (dst.dpid != at.dpid) {
    auto p = topo_->path(at.dpid, dst.dpid);
    if (!p) {
      log::debug("shortest-path", "{}: no path to {} on {:016x}", dp.name(), dst.mac.to_string(), dst.dpid);
      return;
    }
    hops = std::move(*p);
  }
  hops.push_back(Hop{dst.dpid, dst.port_no});
  bool narrowed = !ev.narrow.fields.empty();
  {
    std::lock_guard lock(mu_);
    auto& d = installed_[dst.mac];
    d.narrowed = d.narrowed || narrowed;
    for (const auto& h : hops) d.hops[h.dpid] = h.out_port;
  }
  // The first switch's flow and the packet itself, once the rest is confirmed.
  of::FlowMod first = dst_flow(dp, dst.mac, hops.front().out_port, ev.narrow);
  of::PacketOut po = packet_out_for(ev, {of::Action::output(hops.front().out_port)});
  auto release = [first = std::move(first), po = std::move(po)](Datapath& d) mutable {
    auto st = d.flow_mod(std::move(first));
    if (st.ok()) st = d.packet_out(std::move(po));
    if (!st.ok()) log::debug("shortest-path", "{}: refused: {}", d.name(), st.error().message);
  };
  if (hops.size() == 1) {
    release(dp);
    return;
  }
  // Downstream switches (last hop first), each confirmed by a barrier; the
  // last confirmation releases the first switch's flow and the packet.
  struct Pending {
    std::atomic<size_t> left;
    std::function<void(Datapath&)> release;
    std::weak_ptr<Datapath> first;
  };
  auto pending = std::make_shared<Pending>();
  pending->left = hops.size() - 1;
  pending->release = std::move(release);
  pending->first = dp.weak_from_this();
  topology::TopologyService* topo = topo_;
  uint64_t first_dpid = dp.dpid();
  for (size_t i = hops.size() - 1; i >= 1; --i) {
    Hop h = hops[i];
    of::Match narrow = ev.narrow;
    bool posted =
        topo_->with_switch(h.dpid, [this, h, narrow, pending, topo, first_dpid, mac = dst.mac](Datapath& d) {
          auto st = d.flow_mod(dst_flow(d, mac, h.out_port, narrow));
          if (!st.ok()) return;
          auto r = d.barrier([pending, topo, first_dpid](Datapath&, const of::Message&) {
            if (--pending->left != 0) return;
            topo->with_switch(first_dpid, [pending](Datapath& f) { pending->release(f); });
          });
          (void)r;
        });
    if (!posted) return;
  }
}

Verdict ShortestPath::flow_removed(Datapath& dp, const of::FlowRemoved& fr) {
  if ((fr.cookie & 0xffff000000000000ull) != kCookie) return Verdict::kContinue;
  if (fr.reason != uint8_t(of::FlowRemovedReason::kIdleTimeout) &&
      fr.reason != uint8_t(of::FlowRemovedReason::kHardTimeout))
    return Verdict::kConsumed;
  const auto* f = fr.match.find(of::OxmId::kEthDst);
  if (!f || f->value.size() != 6) return Verdict::kConsumed;
  MacAddr mac = mac_of(f->value.data());
  std::lock_guard lock(mu_);
  if (auto it = installed_.find(mac); it != installed_.end()) {
    it->second.hops.erase(dp.dpid());
    if (it->second.hops.empty()) installed_.erase(it);
  }
  return Verdict::kConsumed;
}

void ShortestPath::delete_flow(uint64_t dpid, MacAddr mac) {
  topo_->with_switch(dpid, [this, mac](Datapath& d) {
    of::FlowMod del;
    del.command = of::FlowModCommand::kDelete;
    del.table_id = table_for(d);
    del.cookie = kCookie;
    del.cookie_mask = d.is_of13() ? 0xffff000000000000ull : 0;
    del.match.add(mac_field(of::OxmId::kEthDst, mac.b.data()));
    auto st = d.flow_mod(std::move(del));
    (void)st;
  });
}

void ShortestPath::forget(MacAddr mac) {
  std::map<uint64_t, uint32_t> hops;
  {
    std::lock_guard lock(mu_);
    auto it = installed_.find(mac);
    if (it == installed_.end()) return;
    hops = std::move(it->second.hops);
    installed_.erase(it);
  }
  for (const auto& [dpid, out] : hops) delete_flow(dpid, mac);
}

namespace {

// One level of a staged reroute: flows whose next hop is a switch of the
// previous level. The gate is shared by the barrier callbacks of that level;
// when the last one has run or been dropped (switch gone), it is destroyed and
// the next level goes out, so a flow never points at a switch that does not
// have the destination's flow yet, and a disconnect cannot stall the rest.
struct RerouteGate {
  std::function<void()> next;
  ~RerouteGate() {
    if (next) next();
  }
};

// Level of each changed flow: 0 when its next hop already holds a correct
// flow (or is the destination's switch), else one more than the next hop's.
// Only a chain of changed flows costs barrier round trips.
size_t level_of(uint64_t dpid, const std::map<uint64_t, uint64_t>& next, const std::set<uint64_t>& changed,
                std::map<uint64_t, size_t>& memo, size_t depth = 0) {
  if (auto m = memo.find(dpid); m != memo.end()) return m->second;
  size_t level = 0;
  auto n = next.find(dpid);
  if (n != next.end() && changed.count(n->second) && depth < changed.size())
    level = level_of(n->second, next, changed, memo, depth + 1) + 1;
  memo[dpid] = level;
  return level;
}

}  // namespace

void ShortestPath::send_levels(std::shared_ptr<std::map<size_t, std::vector<FlowAdd>>> levels,
                               std::shared_ptr<RerouteClock> clock) {
  if (levels->empty()) {
    if (clock) {
      double ms = double(monotonic_ns() - clock->event_ns) / 1e6;
      {
        std::lock_guard lock(mu_);
        last_reroute_ms_ = ms;
      }
      log::info("shortest-path",
                "reroute acknowledged: {} flows in {} levels, {:.2f} ms after the topology change",
                clock->flows, clock->levels, ms);
    }
    return;
  }
  std::vector<FlowAdd> now = std::move(levels->begin()->second);
  levels->erase(levels->begin());
  auto gate = std::make_shared<RerouteGate>();
  gate->next = [this, levels, clock] { send_levels(levels, clock); };
  std::map<uint64_t, std::vector<std::pair<MacAddr, uint32_t>>> by_switch;
  for (const auto& a : now) by_switch[a.dpid].emplace_back(a.mac, a.out);
  for (auto& [dpid, flows] : by_switch) {
    topo_->with_switch(dpid, [this, gate, flows = std::move(flows)](Datapath& d) {
      for (const auto& f : flows) {
        auto st = d.flow_mod(dst_flow(d, f.first, f.second, {}));
        if (!st.ok()) log::debug("shortest-path", "{}: refused: {}", d.name(), st.error().message);
      }
      auto r = d.barrier([gate](Datapath&, const of::Message&) {});
      (void)r;
    });
  }
}

void ShortestPath::reroute() {
  if (!topo_) return;
  auto clock = std::make_shared<RerouteClock>();
  clock->event_ns = monotonic_ns();
  topology::Graph g = topo_->graph();
  auto levels = std::make_shared<std::map<size_t, std::vector<FlowAdd>>>();
  std::vector<std::pair<uint64_t, MacAddr>> dels;
  size_t n_adds = 0;
  {
    std::lock_guard lock(mu_);
    ++reroutes_;
    for (auto it = installed_.begin(); it != installed_.end();) {
      MacAddr mac = it->first;
      Dst& d = it->second;
      auto host = topo_->host(mac);
      std::map<uint64_t, uint32_t> want;
      std::map<uint64_t, uint64_t> next;  // dpid -> the switch its flow forwards to
      if (host && !d.narrowed) {
        want[host->dpid] = host->port_no;
        for (const auto& [dpid, out] : d.hops) {
          if (dpid == host->dpid) continue;
          auto p = g.path(dpid, host->dpid);
          if (!p) continue;
          for (size_t i = 0; i < p->size(); ++i) {
            want[(*p)[i].dpid] = (*p)[i].out_port;
            next[(*p)[i].dpid] = i + 1 < p->size() ? (*p)[i + 1].dpid : host->dpid;
          }
        }
      }
      for (const auto& [dpid, out] : d.hops)
        if (!want.count(dpid)) dels.emplace_back(dpid, mac);
      std::set<uint64_t> changed;
      for (const auto& [dpid, out] : want) {
        auto old = d.hops.find(dpid);
        if (old == d.hops.end() || old->second != out) changed.insert(dpid);
      }
      std::map<uint64_t, size_t> memo;
      for (uint64_t dpid : changed) {
        (*levels)[level_of(dpid, next, changed, memo)].push_back(FlowAdd{dpid, mac, want[dpid]});
        ++n_adds;
      }
      d.hops = std::move(want);
      if (d.hops.empty())
        it = installed_.erase(it);
      else
        ++it;
    }
  }
  size_t n_levels = levels->size();
  for (const auto& [dpid, mac] : dels) delete_flow(dpid, mac);
  if (n_adds || !dels.empty())
    log::info("shortest-path", "topology changed: {} flows moved in {} levels, {} removed", n_adds, n_levels,
              dels.size());
  if (n_adds) {
    clock->flows = n_adds;
    clock->levels = n_levels;
  } else {
    clock.reset();  // no flow moved: nothing to acknowledge
  }
  send_levels(std::move(levels), std::move(clock));  // dependencies first, each level confirmed by barriers
}

std::map<MacAddr, std::map<uint64_t, uint32_t>> ShortestPath::installed() const {
  std::map<MacAddr, std::map<uint64_t, uint32_t>> out;
  std::lock_guard lock(mu_);
  for (const auto& [mac, d] : installed_) out[mac] = d.hops;
  return out;
}

uint64_t ShortestPath::reroutes() const {
  std::lock_guard lock(mu_);
  return reroutes_;
}

double ShortestPath::last_reroute_ms() const {
  std::lock_guard lock(mu_);
  return last_reroute_ms_;
}

}  // namespace flowlab::controller

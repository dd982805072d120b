// shortest-path: forwarding across any topology (loops included) with the
// runtime's topology service (controller/topology/service.h).
//
// Known destination (a host the service has learned): one flow per
// destination MAC (eth_dst -> output towards it, priority 10, idle timeout) on
// every switch of the shortest path from the switch that asked, sent last hop
// first: the flows on the downstream switches are confirmed by barriers before
// the first switch gets its flow and the packet is released, so no flow ever
// forwards into a switch that does not know the destination. Flows are per
// destination, so a switch holds O(hosts) of them; next hops come from one
// tree per destination (Graph::tree_to), so flows of different sources agree.
//
// Broadcast and unknown destinations: packet-out on the service's spanning
// tree plus the edge ports of the switch (never back where it came from); a
// copy arriving over a link that is not on the tree is dropped. Loop-free from
// the first packet, no timers. `--proxy-arp`: an ARP request for an address in
// the host table is answered by the controller.
//
// Link or switch loss (port-status, LLDP timeout, disconnect): for every
// destination with flows, the switches that had one get the next hop of the
// new tree (and the switches on their new paths a flow), switches with no path
// left lose it, as the event arrives: deletions at once; of the new flows,
// only those whose flow actually changes are sent, and only a chain of them
// waits: a flow whose next hop already holds a correct flow goes out at once,
// one whose next hop gets a new flow too waits for that switch's barrier reply
// (RerouteGate), so a moved flow never sends into a switch that does not know
// the destination yet (no packet-in, no drop on the way). The time from the
// event to the last level's barrier replies is logged ("reroute
// acknowledged") and kept (last_reroute_ms). A link that appears moves flows
// back onto the (new) shortest path the same way. A host that moves has its
// flows deleted everywhere.
//
// Tables: OF1.3 one table of its own (table-miss -> CONTROLLER); behind the
// firewall on OF1.0 the flows carry the firewall's narrowed match
// (PacketInEvent::narrow) and are deleted, not moved, on a topology change.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "controller/app.h"

namespace flowlab::controller {

class ShortestPath : public App, public topology::TopologyListener {
 public:
  struct Options {
    uint16_t idle_timeout = 60;
    bool proxy_arp = false;
  };
  explicit ShortestPath(Options o) : opts_(o) {}

  static constexpr uint16_t kPriority = 10;
  static constexpr uint64_t kCookie = 0x5b5b000000000000ull;

  std::string_view name() const override { return "shortest-path"; }
  void attach_topology(topology::TopologyService& t) override;
  bool uses_topology() const override { return true; }
  void switch_connected(Datapath& dp) override;
  Verdict packet_in(Datapath& dp, PacketInEvent& ev) override;
  Verdict flow_removed(Datapath& dp, const of::FlowRemoved& fr) override;

  // TopologyListener
  void link_removed(const topology::LinkView&) override { reroute(); }
  void link_added(const topology::LinkView&) override { reroute(); }  // back to the shortest path
  void switch_removed(uint64_t) override { reroute(); }
  void host_moved(const topology::HostView& h, topology::PortRef) override { forget(h.mac); }
  void host_removed(const topology::HostView& h) override { forget(h.mac); }

  // What this app believes is installed: destination -> dpid -> output port.
  std::map<MacAddr, std::map<uint64_t, uint32_t>> installed() const;
  uint64_t reroutes() const;
  // Milliseconds from the last topology change that moved flows (the
  // port-status, LLDP timeout or disconnect as it reached the app) to the
  // barrier replies of its last level; -1 before the first. Also logged
  // ("reroute acknowledged").
  double last_reroute_ms() const;

 private:
  void flood(Datapath& dp, PacketInEvent& ev);
  bool proxy_arp(Datapath& dp, const PacketInEvent& ev);
  void install_path(Datapath& dp, PacketInEvent& ev, const topology::HostView& dst);
  void reroute();
  void forget(MacAddr mac);
  of::FlowMod dst_flow(const Datapath& dp, MacAddr mac, uint32_t out, const of::Match& narrow) const;
  struct FlowAdd {
    uint64_t dpid;
    MacAddr mac;
    uint32_t out;
  };
  struct RerouteClock {
    uint64_t event_ns = 0;
    size_t flows = 0, levels = 0;
  };
  // Sends the first level's flows (+ a barrier per switch); when every switch
  // of it has answered, the next level (see RerouteGate in the .cpp); after
  // the last, records the time since clock->event_ns (when clock is set).
  void send_levels(std::shared_ptr<std::map<size_t, std::vector<FlowAdd>>> levels,
                   std::shared_ptr<RerouteClock> clock);
  void delete_flow(uint64_t dpid, MacAddr mac);

  Options opts_;
  topology::TopologyService* topo_ = nullptr;
  mutable std::mutex mu_;
  struct Dst {
    std::map<uint64_t, uint32_t> hops;  // dpid -> output port
    bool narrowed = false;              // flows carry a firewall match: delete, do not move
  };
  std::map<MacAddr, Dst> installed_;
  uint64_t reroutes_ = 0;
  double last_reroute_ms_ = -1;
};

}  // namespace flowlab::controller

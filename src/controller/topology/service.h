// TopologyService: the controller runtime's map of the network, shared by all
// apps. Not an app: the runtime feeds it every switch, port-status and
// packet-in before the app stack sees them.
//
//   switches  every connected switch with its ports (from features/port-desc,
//             kept current by port-status)
//   links     discovered by LLDP: every lldp_interval an LLDP frame goes out
//             of every up port of every switch (and at once when a switch
//             connects or a port comes up); one received on another switch
//             proves one direction of a link. The service installs its own
//             flow (table 0, priority 65535: eth_type 0x88cc and the LLDP
//             group address -> CONTROLLER) so LLDP reaches it whatever the
//             apps install, and consumes those packet-ins. A direction not
//             refreshed within link_timeout is removed (a link that silently
//             stops carrying frames); a port-status saying a port is down or
//             deleted removes its links at once.
//   hosts     learned from packet-ins on edge ports (not LOCAL, no link):
//             MAC, the IPv4/IPv6 addresses it sent from, switch and port;
//             moved when seen on another edge port; forgotten with its switch
//             or when LLDP finds that its port is a link after all. A port a
//             link was seen on stays a trunk (no hosts, no flooding) until a
//             port-status says it went down, so a link that times out under
//             load never turns into a loop.
//   paths     over the links (one direction seen is enough; one timing out
//             removes both): shortest by hop count,
//             or by the weights set with set_link_weight(); a spanning tree.
//
// Events go to subscribers (TopologyListener) after the service's lock is
// released, on the thread that saw the change. Queries may be called from any
// thread (they copy under the lock). Datapath handles live on their
// connection's thread: with_switch() runs code there.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "controller/topology/graph.h"
#include "controller/topology/view.h"
#include "openflow/message.h"

namespace flowlab::controller {
class Datapath;
struct PacketInEvent;
}  // namespace flowlab::controller

namespace flowlab::controller::topology {

struct TopologyOptions {
  // kAuto: on when an app in the stack uses it (App::uses_topology()), so a
  // stack of single-switch apps sees no LLDP; kOff: no LLDP, no flow, no learning.
  enum class Mode { kAuto, kOn, kOff };
  Mode mode = Mode::kAuto;
  bool enabled = true;                           // resolved by the runtime from mode
  std::chrono::milliseconds lldp_interval{100};  // LLDP frames out of every port
  std::chrono::milliseconds link_timeout{500};   // a link direction not refreshed this long is gone
};

class TopologyListener {
 public:
  virtual ~TopologyListener() = default;
  virtual void switch_added(uint64_t /*dpid*/) {}
  virtual void switch_removed(uint64_t /*dpid*/) {}
  virtual void link_added(const LinkView&) {}
  virtual void link_removed(const LinkView&) {}
  virtual void host_added(const HostView&) {}
  virtual void host_moved(const HostView& /*now*/, PortRef /*from*/) {}
  virtual void host_removed(const HostView&) {}
};

class TopologyService : public TopologyView {
 public:
  static constexpr uint16_t kLldpPriority = 0xffff;
  static constexpr uint64_t kLldpCookie = 0x11d9000000000000ull;

  explicit TopologyService(TopologyOptions o = {});
  const TopologyOptions& options() const { return opts_; }

  // ---- TopologyView ----
  std::vector<SwitchView> switches() const override;
  std::optional<SwitchView> switch_at(uint64_t dpid) const override;
  std::vector<LinkView> links() const override;
  std::vector<HostView> hosts() const override;

  // ---- for apps ----
  void subscribe(TopologyListener* l);
  void unsubscribe(TopologyListener* l);
  // The switches and the links (each cable in both directions), with weights.
  Graph graph() const;
  std::optional<std::vector<Hop>> path(uint64_t src, uint64_t dst) const;
  std::set<PortRef> spanning_tree() const;
  std::optional<HostView> host(MacAddr mac) const;
  std::optional<HostView> host_by_ipv4(Ipv4Addr ip) const;
  // A port with a link now, or a trunk: one a link was seen on and that has
  // not gone down since (a link that timed out stays a trunk, so a cable that
  // only lost LLDP for a while never becomes a flooding or learning port).
  bool is_link_port(PortRef p) const;
  // Up ports of dpid that are not link ports (where hosts are), LOCAL excluded.
  std::vector<uint32_t> edge_ports(uint64_t dpid) const;
  // Weight of the link direction leaving src (default 1); paths use it.
  void set_link_weight(PortRef src, uint32_t weight);
  // Runs fn on dpid's connection thread; false when that switch is not connected.
  bool with_switch(uint64_t dpid, std::function<void(Datapath&)> fn) const;

  // ---- runtime hooks (called by the controller runtime) ----
  void switch_up(Datapath& dp, std::weak_ptr<Datapath> handle);
  void switch_down(Datapath& dp);
  // Learns hosts; returns true when the packet was LLDP (consumed here).
  bool packet_in(Datapath& dp, const PacketInEvent& ev);
  void port_status(Datapath& dp, const of::PortStatus& ps);
  // Every lldp_interval: link timeouts, then LLDP out of every port.
  void tick();
  // After the apps reloaded: the LLDP flow again on every switch (on OF1.0 the
  // firewall's reload deletes every flow, having no cookie mask to spare ours).
  void reassert_flows();

 private:
  struct SwitchState {
    uint8_t version = 0;
    std::map<uint32_t, of::PortDesc> ports;
    std::set<uint32_t> trunks;  // ports a link was seen on, until they go down
    std::weak_ptr<Datapath> dp;
  };
  struct LinkState {
    PortRef dst;
    int64_t last_seen_ns = 0;
    uint32_t weight = 1;
  };
  struct Events {
    std::vector<uint64_t> sw_added, sw_removed;
    std::vector<LinkView> link_added, link_removed;
    std::vector<HostView> host_added, host_removed;
    std::vector<std::pair<HostView, PortRef>> host_moved;
  };
  static bool port_up(const of::PortDesc& p);
  static LinkView link_view(PortRef src, const LinkState& l);
  void remove_links_at(PortRef p, Events& ev);  // both directions touching p; lock held
  void remove_hosts_at(PortRef p, Events& ev);  // lock held
  void deliver(const Events& ev);
  void send_lldp(uint64_t dpid, std::vector<uint32_t> ports) const;
  static void install_lldp_flow(Datapath& dp);

  TopologyOptions opts_;
  mutable std::mutex mu_;
  std::map<uint64_t, SwitchState> switches_;
  std::map<PortRef, LinkState> links_;  // keyed by source port
  std::map<MacAddr, HostView> hosts_;
  std::vector<TopologyListener*> listeners_;
};

}  // namespace flowlab::controller::topology

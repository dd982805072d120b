// The App interface: one class per app in src/controller/apps/<name>.{h,cpp}.
//
// Apps are stacked in command-line order. Every event goes to each app in
// order until one returns Verdict::kConsumed. switch_connected/disconnected go
// to every app. In OpenFlow 1.3 each app owns a range of tables given by the
// runtime in stack order (first app: table 0); an app that lets traffic on
// sends it to next_table() (goto-table). OpenFlow 1.0 has one table: apps share
// it and separate by priority (table_for() returns 0). Every app may query the
// runtime's topology service (topology/service.h): links, hosts, paths, a
// spanning tree; the service's LLDP flow sits in table 0 at priority 65535.
#pragma once

#include <cstdint>
#include <string_view>

#include "controller/datapath.h"
#include "controller/topology/service.h"
#include "core/result.h"
#include "openflow/message.h"
#include "packet/flow_key.h"

namespace flowlab::controller {

enum class Verdict { kContinue, kConsumed };

// A packet-in with its packet parsed once by the runtime.
struct PacketInEvent {
  const of::Message& msg;
  const of::PacketIn& pi;
  uint32_t in_port = 0;
  FlowKey key{};
  PacketLayers layers{};
  // An app earlier in the stack may narrow what later apps install: fields
  // added here must be added to any flow installed for this packet (used by the
  // firewall on single-table OF1.0 switches so an L2 flow never bypasses it).
  of::Match narrow;
};

class App {
 public:
  virtual ~App() = default;
  virtual std::string_view name() const = 0;
  virtual uint8_t tables_needed() const { return 1; }

  virtual void switch_connected(Datapath&) {}
  virtual void switch_disconnected(Datapath&) {}
  virtual Verdict packet_in(Datapath&, PacketInEvent&) { return Verdict::kContinue; }
  virtual Verdict port_status(Datapath&, const of::PortStatus&) { return Verdict::kContinue; }
  virtual Verdict flow_removed(Datapath&, const of::FlowRemoved&) { return Verdict::kContinue; }
  virtual Verdict error(Datapath&, const of::Message&, const of::ErrorMsg&) { return Verdict::kContinue; }
  // SIGHUP: reload configuration; on error the old one stays in force.
  virtual Status reload() { return {}; }
  // Called once, before any switch connects, with the runtime's topology
  // service (apps subscribe to its events here).
  virtual void attach_topology(topology::TopologyService&) {}
  // True for apps that see a switch from its connect to its disconnect whatever
  // this controller's role (the REST directory: a slave reads stats too);
  // the others see it only while this controller is its master.
  virtual bool sees_every_role() const { return false; }
  // True for apps that need links and hosts (turns the service on in mode auto).
  virtual bool uses_topology() const { return false; }

  // Set by the runtime before any switch connects.
  void set_tables(uint8_t first, bool has_next) {
    table_ = first;
    has_next_ = has_next;
  }
  uint8_t table_for(const Datapath& dp) const { return dp.is_of13() ? table_ : 0; }
  bool has_next() const { return has_next_; }
  uint8_t next_table() const { return uint8_t(table_ + tables_needed()); }

 private:
  uint8_t table_ = 0;
  bool has_next_ = false;
};

}  // namespace flowlab::controller

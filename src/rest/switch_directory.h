// SwitchDirectory: the REST API's door into the controller runtime.
//
// It is an App that claims no tables and consumes nothing (the CLI puts it
// first in the stack): it keeps, under a lock, a snapshot of every switch that
// finished its handshake (dpid, version, ports) and the connection to reach it.
// HTTP threads call multipart()/modify(); the work is posted to the switch
// connection's own thread, where Datapath may be used, and the HTTP thread
// waits for the reply with a timeout. Nothing here blocks an event loop.
//
// Invariants: an entry is removed on switch_disconnected (which runs on the
// connection's thread); a posted task finds its entry again by dpid and
// generation on that same thread, so a Datapath it touches is alive. A waiter
// whose switch vanished is answered by the destructor of the reply callback
// the Datapath drops (404), never left to time out silently.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "controller/app.h"
#include "controller/topology/view.h"
#include "rest/switch_access.h"
#include "rest/topology_source.h"

namespace flowlab::rest {

class SwitchDirectory : public controller::App, public SwitchAccess {
 public:
  explicit SwitchDirectory(std::chrono::milliseconds timeout = std::chrono::seconds(5)) : timeout_(timeout) {}

  // ---- App (runs on connection threads) ----
  std::string_view name() const override { return "rest"; }
  uint8_t tables_needed() const override { return 0; }
  bool sees_every_role() const override { return true; }
  void switch_connected(controller::Datapath& dp) override;
  void switch_disconnected(controller::Datapath& dp) override;
  controller::Verdict port_status(controller::Datapath& dp, const of::PortStatus& ps) override;
  controller::Verdict error(controller::Datapath& dp, const of::Message& m, const of::ErrorMsg& e) override;

  // ---- SwitchAccess (any thread but a connection's) ----
  std::vector<SwitchSummary> switches() const override;
  std::optional<SwitchSummary> find(uint64_t dpid) const override;
  HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t dpid,
                                                            of::MultipartRequestBody body) override;
  HttpStatus modify(uint64_t dpid, of::MessageBody body) override;

  struct Waiter;

 private:
  struct Entry {
    controller::Datapath* dp = nullptr;
    std::weak_ptr<channel::Connection> conn;
    uint64_t generation = 0;
    SwitchSummary summary;
  };
  // Runs fn on the switch's connection thread with its Datapath (nullptr when it
  // left meanwhile). False when no such switch is connected.
  bool post(uint64_t dpid, std::function<void(controller::Datapath*)> fn);
  controller::Datapath* current(uint64_t dpid, uint64_t generation) const;

  std::chrono::milliseconds timeout_;
  mutable std::mutex mu_;
  std::map<uint64_t, Entry> entries_;
  uint64_t next_generation_ = 1;
  // Modifications waiting for their barrier: (datapath, xid) -> waiter, so a
  // switch's error for the modification reaches the HTTP request that sent it.
  std::map<std::pair<const controller::Datapath*, uint32_t>, std::weak_ptr<Waiter>> in_flight_;
};

// TopologySource over the connected switches (no links or hosts): what the
// topology endpoints serve until the controller's topology service is wired in.
// Switches from the runtime's connected datapaths; links and hosts from the
// controller's topology service (`view`; none when it is null or the service is
// off: `flowlab controller --topology on` discovers links as Ryu's --observe-links).
class RuntimeTopology : public TopologySource {
 public:
  explicit RuntimeTopology(const SwitchAccess& switches,
                           const controller::topology::TopologyView* view = nullptr)
      : switches_(switches), view_(view) {}
  std::vector<TopoSwitch> switches() const override;
  std::vector<TopoLink> links() const override;
  std::vector<TopoHost> hosts() const override;

 private:
  TopoPort port_of(const std::vector<TopoSwitch>& sws, uint64_t dpid, uint32_t port_no) const;

  const SwitchAccess& switches_;
  const controller::topology::TopologyView* view_;
};

}  // namespace flowlab::rest

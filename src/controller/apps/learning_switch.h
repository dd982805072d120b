// learning-switch: Ryu's simple_switch_13 behaviour, for OpenFlow 1.3 and 1.0.
//
// On switch-up: table-miss to CONTROLLER, no buffering. Each packet-in: learn
// (dpid, src MAC) -> in_port; known destination: install in_port,eth_src,eth_dst
// -> output at priority 1 with an idle timeout, and packet-out; unknown: flood.
// Beyond simple_switch_13: learned flows time out when idle (default 60 s); a MAC
// seen on a new port (a move) deletes the flows to and from it; a port that goes
// down or away forgets its MACs; LLDP and 01:80:c2:00:00:0x (bridge link-local)
// frames are never flooded. Consumes packet-ins.
// Fast path: the flow-mod and packet-out answering a packet-in are copied from
// per-version wire templates and patched (see learning_switch_wire.h).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "controller/app.h"

namespace flowlab::controller {

class LearningSwitch : public App {
 public:
  explicit LearningSwitch(uint16_t idle_timeout = 60) : idle_timeout_(idle_timeout) {}
  std::string_view name() const override { return "learning-switch"; }
  void switch_connected(Datapath& dp) override;
  void switch_disconnected(Datapath& dp) override;
  Verdict packet_in(Datapath& dp, PacketInEvent& ev) override;
  Verdict port_status(Datapath& dp, const of::PortStatus& ps) override;

  // For tests and stats: the learned port of `mac` on `dpid`, 0 if unknown.
  uint32_t learned_port(uint64_t dpid, uint64_t mac) const;

  // Pre-encoded answers (fast path, learning_switch_wire.h; public for its tests).
  struct Wire;

 private:
  void forget_mac(Datapath& dp, const uint8_t* mac);
  // One Wire per version (slots: OF1.0, OF1.3, OF1.4, OF1.5), built on the
  // first switch of that version, never changed afterwards (read under mu_).
  const Wire* wire_for(Datapath& dp);  // builds it on first use; call with mu_ held
  uint16_t idle_timeout_;
  mutable std::mutex mu_;
  std::array<std::shared_ptr<const Wire>, 4> wire_;

  std::unordered_map<uint64_t, std::unordered_map<uint64_t, uint32_t>> tables_;  // dpid -> mac -> port
};

}  // namespace flowlab::controller

// hub: every packet through the controller (Trema's RepeaterHub).
//
// On switch-up it installs one flow, the table-miss to CONTROLLER; every
// packet-in is answered by a packet-out FLOOD (by buffer id when the switch
// buffered the packet, else with its data). No other flows. Consumes packet-ins.
#pragma once

#include "controller/app.h"

namespace flowlab::controller {

class Hub : public App {
 public:
  std::string_view name() const override { return "hub"; }
  void switch_connected(Datapath& dp) override;
  Verdict packet_in(Datapath& dp, PacketInEvent& ev) override;
};

}  // namespace flowlab::controller

// Small builders apps use for flow-mods, matches and packet-outs.
#pragma once

#include <cstdint>

#include "controller/app.h"
#include "openflow/message.h"
#include "packet/addr.h"

namespace flowlab::controller {

// A MAC address's six bytes as a number (the apps' table keys).
inline uint64_t mac_u64(const uint8_t* m) {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i) v = v << 8 | m[i];
  return v;
}

inline of::OxmField mac_field(of::OxmId id, const uint8_t* mac) {
  return of::OxmField::basic_bytes(id, ByteSpan(mac, 6));
}

// A flow that applies `actions` (OF1.0: its action list).
inline of::FlowMod make_flow(uint8_t table, uint16_t priority, of::Match match, of::ActionList actions,
                             uint16_t idle = 0, uint16_t hard = 0) {
  of::FlowMod fm;
  fm.table_id = table;
  fm.priority = priority;
  fm.match = std::move(match);
  fm.idle_timeout = idle;
  fm.hard_timeout = hard;
  if (!actions.empty()) fm.instructions.push_back(of::Instruction::apply(std::move(actions)));
  return fm;
}

// Table-miss: everything not matched goes to the controller.
inline of::FlowMod table_miss_to_controller(uint8_t table, uint16_t max_len) {
  return make_flow(table, 0, {}, {of::Action::output(of::port::kController, max_len)});
}

// Packet-out for a packet-in: by buffer id when the switch buffered it, else with the data.
inline of::PacketOut packet_out_for(const PacketInEvent& ev, of::ActionList actions) {
  of::PacketOut po;
  po.buffer_id = ev.pi.buffer_id;
  po.in_port = ev.in_port;
  po.actions = std::move(actions);
  if (ev.pi.buffer_id == of::kNoBuffer) po.data = ev.pi.data;
  return po;
}

}  // namespace flowlab::controller

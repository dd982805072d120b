// hub app (see hub.h).
#include "controller/apps/hub.h"

#include "controller/flows.h"
#include "core/log.h"

namespace flowlab::controller {

void Hub::switch_connected(Datapath& dp) {
  // With buffers, the switch sends 128 bytes and a buffer id; without, whole packets.
  uint16_t max_len = dp.n_buffers() > 0 ? 128 : of::kControllerMaxLenNoBuffer;
  auto st = dp.flow_mod(table_miss_to_controller(table_for(dp), max_len));
  if (!st.ok()) log::warn("hub", "{}: cannot install the table-miss flow: {}", dp.name(), st.error().message);
}

Verdict Hub::packet_in(Datapath& dp, PacketInEvent& ev) {
  auto st = dp.packet_out(packet_out_for(ev, {of::Action::output(of::port::kFlood)}));
  if (!st.ok()) log::debug("hub", "{}: packet-out refused: {}", dp.name(), st.error().message);
  return Verdict::kConsumed;
}

}  // namespace flowlab::controller

// OpenFlow 1.5 controller status (see agent.h): every controller connection
// of the switch as an ofp_controller_status. short_id is the connection's
// peer id (1, 2, ... in the order they came, as 16 bits), the URI property
// the connection's target as the switch names it (`tcp:HOST:PORT`), the role
// the one the controller holds. Service peers (ofctl on --listen) are not
// controllers: they are neither listed nor told. The async message goes to
// every 1.5 controller connection, the one whose status changed included
// (for a new connection it is its first message after the handshake) whose
// async config asks for the reason in its role's mask (set-async's
// OFPACPT_CONT_STATUS_SLAVE / _MASTER; every reason by default).
#include "switch/agent.h"

namespace flowlab::sw {
namespace {

of::ControllerStatusEntry entry_of(uint64_t id, of::ControllerRole role, const std::string& name,
                                   of::ControllerStatusReason reason, of::ChannelStatus channel) {
  of::ControllerStatusEntry e;
  e.short_id = uint16_t(id);
  e.role = role;
  e.reason = reason;
  e.channel_status = channel;
  e.uri = name;
  return e;
}

}  // namespace

void Agent::send_controller_status(const Peer& subject, of::ControllerStatusReason reason,
                                   of::ChannelStatus channel) {
  const of::ControllerStatusEntry e = entry_of(subject.id, subject.role, subject.name, reason, channel);
  for (auto& [id, q] : peers_) {
    if (q.service || q.version < of::kOf15) continue;
    const size_t slot = q.role == of::ControllerRole::kSlave ? 1 : 0;
    if (!(q.async.controller_status_mask[slot] >> uint8_t(reason) & 1)) continue;
    reply(q, 0, of::ControllerStatus{e});
    ++counters_.controller_status_sent;
  }
}

// One controller per reply message, OFPMPF_REPLY_MORE on all but the last
// (the spec lets a reply span messages): os-ken's parser (python3-os-ken 2.x)
// reads an entry's properties `length` bytes past its fixed part, so with two
// entries in one message it takes the second for properties and never returns.
void Agent::send_controller_status_reply(Peer& p, uint32_t xid) {
  std::vector<of::ControllerStatusEntry> all;
  for (const auto& [id, q] : peers_)
    if (!q.service)
      all.push_back(
          entry_of(id, q.role, q.name, of::ControllerStatusReason::kRequest, of::ChannelStatus::kUp));
  if (all.empty()) return send_multipart(p, xid, of::ControllerStatusReply{});
  for (size_t i = 0; i < all.size(); ++i) {
    const uint16_t flags = i + 1 < all.size() ? of::kMultipartMore : 0;
    p.send(of::make_message(p.version, xid, of::MultipartReply{flags, of::ControllerStatusReply{{all[i]}}}));
  }
}

}  // namespace flowlab::sw

// Datapath: the controller's handle on one connected switch. Apps send through
// it (flow-mod, packet-out, group-mod, barrier, multipart requests); replies to
// barriers and multipart requests, and errors answering them, are delivered to
// the callback registered with the request (matched by xid).
// A Datapath lives on its connection's thread; call it from event handlers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "channel/connection.h"
#include "controller/stats.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::controller {

class Datapath : public std::enable_shared_from_this<Datapath> {
 public:
  using ReplyCallback = std::function<void(Datapath&, const of::Message& reply)>;

  Datapath(channel::ConnectionPtr conn, ControllerStats& stats);
  Datapath(const Datapath&) = delete;
  Datapath& operator=(const Datapath&) = delete;

  uint64_t dpid() const { return dpid_; }
  uint8_t version() const { return conn_->version(); }
  // OpenFlow 1.3 or later: 1.4 is 1.3's model (tables, cookies masks, groups, bundles).
  bool is_of13() const { return version() >= of::kOf13; }
  uint32_t n_buffers() const { return n_buffers_; }
  uint8_t n_tables() const { return n_tables_; }
  const std::map<uint32_t, of::PortDesc>& ports() const { return ports_; }
  bool up() const { return up_; }
  std::string name() const;  // "dpid 0000000000000001"

  // Any message; version and xid (when 0) are filled in. Returns the xid.
  Result<uint32_t> send(of::MessageBody body, uint32_t xid = 0);
  Status flow_mod(of::FlowMod fm);
  Status packet_out(of::PacketOut po);
  Status group_mod(of::GroupMod gm);
  Result<uint32_t> barrier(ReplyCallback cb = {});
  // cb runs once per reply part (flags & kMultipartMore on all but the last).
  Result<uint32_t> multipart(of::MultipartRequestBody body, ReplyCallback cb);
  // Sends `mods` as one bundle (ONF extension of OF1.3, openflow/of13/bundle.h):
  // open, one add per flow-mod (its xid repeated inside), commit, back to
  // back. The switch applies all of them as one table version or none. `cb`
  // gets the commit's answer: the COMMIT_REPLY (an ExperimenterMsg) or an
  // OFPT_ERROR (OFPBFC_MSG_FAILED after a flow-mod failed: that flow-mod's own
  // error arrives before it as an ordinary error event). OF1.0: refused.
  // flags 3: ATOMIC | ORDERED. Returns the commit's xid.
  Result<uint32_t> bundle_flow_mods(std::vector<of::FlowMod> mods, ReplyCallback cb = {}, uint16_t flags = 3);
  // The same for flow-mods already encoded in OF1.3, back to back in `wire`
  // (an app that sends the same flows to many switches encodes them once).
  Result<uint32_t> bundle_flow_mods_wire(ByteSpan wire, ReplyCallback cb = {}, uint16_t flags = 3);
  // Fast path: a flow-mod or packet-out already encoded in this switch's version
  // (xid filled in by the caller). Counted like flow_mod()/packet_out().
  Status send_wire(ByteSpan wire, of::MsgType type);

  // OF1.3 roles (6.3.6): the role this controller holds on this switch (EQUAL
  // until a role request is answered). As a SLAVE it sends no state-changing
  // message (flow/group/meter/port/table mod, packet-out): send() refuses them
  // here, counted in stats.slave_refused, instead of drawing OFPBRC_IS_SLAVE.
  of::ControllerRole role() const { return role_; }
  void set_role(of::ControllerRole r) { role_ = r; }
  // A ROLE_REQUEST; cb gets the ROLE_REPLY or the error answering it.
  Result<uint32_t> role_request(of::ControllerRole role, uint64_t generation_id, ReplyCallback cb);
  // Whether the apps and the topology service were told about this switch
  // (a slave's are not, until it becomes master).
  bool attached() const { return attached_; }
  void set_attached(bool a) { attached_ = a; }

  channel::Connection& connection() { return *conn_; }
  uint64_t sent_count() const { return sent_; }

  // ---- used by the runtime ----
  void set_features(const of::FeaturesReply& f);
  void set_ports(const std::vector<of::PortDesc>& ports);
  void update_port(const of::PortStatus& ps);
  void set_up(bool up) { up_ = up; }
  // Delivers a reply to its requester; false when nobody waits for this xid.
  bool deliver_reply(const of::Message& m);
  void drop_callbacks() { pending_.clear(); }

 private:
  channel::ConnectionPtr conn_;
  ControllerStats& stats_;
  std::atomic<uint64_t> dpid_{0};  // read by other threads (Controller::assign_role)
  uint32_t n_buffers_ = 0;
  uint8_t n_tables_ = 0;
  std::atomic<bool> up_{false};
  bool attached_ = false;
  of::ControllerRole role_ = of::ControllerRole::kEqual;
  uint64_t sent_ = 0;
  uint32_t next_bundle_ = 1;
  std::map<uint32_t, of::PortDesc> ports_;
  std::unordered_map<uint32_t, ReplyCallback> pending_;
};

}  // namespace flowlab::controller

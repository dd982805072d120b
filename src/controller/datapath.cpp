// Datapath handle (see datapath.h).
#include "controller/datapath.h"

#include <fmt/format.h>

#include "openflow/codec.h"
#include "openflow/of13/bundle.h"

namespace flowlab::controller {

Datapath::Datapath(channel::ConnectionPtr conn, ControllerStats& stats)
    : conn_(std::move(conn)), stats_(stats) {}

std::string Datapath::name() const { return fmt::format("dpid {:016x}", dpid_.load()); }

namespace {

bool state_changing(of::MsgType t) {
  switch (t) {
    case of::MsgType::kFlowMod:
    case of::MsgType::kPacketOut:
    case of::MsgType::kGroupMod:
    case of::MsgType::kPortMod:
    case of::MsgType::kTableMod:
    case of::MsgType::kMeterMod:
      return true;
    default:
      return false;
  }
}

}  // namespace

Result<uint32_t> Datapath::send(of::MessageBody body, uint32_t xid) {
  of::Message m{conn_->version(), xid, std::move(body)};
  if (role_ == of::ControllerRole::kSlave && state_changing(m.type())) {
    stats_.slave_refused++;
    return fail("{}: this controller is a slave here; not sending a state-changing message", name());
  }
  bool po = m.is<of::PacketOut>(), fm = m.is<of::FlowMod>();
  auto r = conn_->send(std::move(m));
  if (!r.ok()) {
    stats_.send_refused++;
    return r;
  }
  ++sent_;
  stats_.messages_sent++;
  if (po) stats_.packet_out_sent++;
  if (fm) stats_.flow_mod_sent++;
  return r;
}

Status Datapath::send_wire(ByteSpan wire, of::MsgType type) {
  if (role_ == of::ControllerRole::kSlave && state_changing(type)) {
    stats_.slave_refused++;
    return fail("{}: this controller is a slave here; not sending a state-changing message", name());
  }
  auto st = conn_->send_raw(wire);
  if (!st.ok()) {
    stats_.send_refused++;
    return st;
  }
  ++sent_;
  stats_.messages_sent++;
  if (type == of::MsgType::kPacketOut) stats_.packet_out_sent++;
  if (type == of::MsgType::kFlowMod) stats_.flow_mod_sent++;
  return {};
}

Status Datapath::flow_mod(of::FlowMod fm) {
  FLOWLAB_TRY(send(std::move(fm)));
  return {};
}
Status Datapath::packet_out(of::PacketOut po) {
  FLOWLAB_TRY(send(std::move(po)));
  return {};
}
Status Datapath::group_mod(of::GroupMod gm) {
  FLOWLAB_TRY(send(std::move(gm)));
  return {};
}

Result<uint32_t> Datapath::barrier(ReplyCallback cb) {
  uint32_t xid = conn_->next_xid();
  if (cb) pending_[xid] = std::move(cb);
  auto r = send(of::BarrierRequest{}, xid);
  if (!r.ok()) pending_.erase(xid);
  return r;
}

Result<uint32_t> Datapath::multipart(of::MultipartRequestBody body, ReplyCallback cb) {
  uint32_t xid = conn_->next_xid();
  if (cb) pending_[xid] = std::move(cb);
  auto r = send(of::MultipartRequest{0, std::move(body)}, xid);
  if (!r.ok()) pending_.erase(xid);
  return r;
}

Result<uint32_t> Datapath::bundle_flow_mods(std::vector<of::FlowMod> mods, ReplyCallback cb, uint16_t flags) {
  if (!is_of13()) return fail("{}: bundles need OpenFlow 1.3 (the ONF extension)", name());
  Bytes wire;
  wire.reserve(mods.size() * 112);
  for (of::FlowMod& fm : mods) {
    auto st = of::encode_message_to(of::Message{version(), 0, std::move(fm)}, wire);
    if (!st.ok()) return fail("{}: cannot encode a bundled flow-mod: {}", name(), st.error().to_string());
  }
  return bundle_flow_mods_wire(wire, std::move(cb), flags);
}

Result<uint32_t> Datapath::bundle_flow_mods_wire(ByteSpan wire, ReplyCallback cb, uint16_t flags) {
  if (!is_of13()) return fail("{}: bundles need OpenFlow 1.3 (the ONF extension)", name());
  if (role_ == of::ControllerRole::kSlave) {  // a bundle of flow-mods changes state like its flow-mods
    stats_.slave_refused++;
    return fail("{}: this controller is a slave here; not sending a bundle of flow-mods", name());
  }
  const uint32_t id = next_bundle_++;
  // The adds go back to back into one buffer and are queued in one go: all
  // of them or, when the output queue is over its bound, none.
  Bytes adds;
  adds.reserve(wire.size() + wire.size() / 4);
  size_t count = 0;
  for (size_t at = 0; at < wire.size(); ++count) {
    const size_t len = wire.size() - at >= of::kHeaderLen ? load_be16(&wire[at + 2]) : 0;
    if (len < of::kHeaderLen || len > wire.size() - at || wire[at + 1] != uint8_t(of::MsgType::kFlowMod))
      return fail("{}: a bundle's flow-mods must be whole OF1.3 flow-mods", name());
    const size_t add_at = adds.size();
    auto st = of::encode_bundle_add_wire_to(id, flags, conn_->next_xid(), wire.subspan(at, len), adds);
    if (!st.ok()) return fail("{}: cannot encode a bundled flow-mod: {}", name(), st.error().to_string());
    // At 1.4 an OF1.3 flow-mod (importance 0) is 1.4's but for its version
    // byte: the add and its inner message are sent at the connection's version
    // (at 1.5 translated from that 1.4 wire).
    if ((version() == of::kOf14 || version() == of::kOf15) && wire[at] == of::kOf13) {
      Bytes inner(adds.end() - long(len), adds.end());
      inner[0] = of::kOf14;
      if (version() == of::kOf15) {
        auto w15 = of::of14_wire_to_of15(inner);
        if (!w15.ok())
          return fail("{}: cannot bundle a flow-mod at OpenFlow 1.5: {}", name(), w15.error().to_string());
        inner = std::move(*w15);
      }
      adds.resize(add_at);
      st = of::encode_bundle_add_wire_to(id, flags, load_be32(&inner[4]), inner, adds);
      if (!st.ok()) return fail("{}: cannot encode a bundled flow-mod: {}", name(), st.error().to_string());
    }
    at += len;
  }
  FLOWLAB_TRY(send(of::encode_bundle_control({id, of::BundleCtrlType::kOpenRequest, flags, {}})));
  if (auto st = conn_->send_raw(adds); !st.ok()) {
    stats_.send_refused++;
    (void)send(of::encode_bundle_control({id, of::BundleCtrlType::kDiscardRequest, flags, {}}));
    return unexpected(st.error());
  }
  sent_ += count;
  stats_.messages_sent += count;
  stats_.flow_mod_sent += count;
  const uint32_t xid = conn_->next_xid();
  if (cb) pending_[xid] = std::move(cb);
  auto r = send(of::encode_bundle_control({id, of::BundleCtrlType::kCommitRequest, flags, {}}), xid);
  if (!r.ok()) pending_.erase(xid);
  return r;
}

Result<uint32_t> Datapath::role_request(of::ControllerRole role, uint64_t generation_id, ReplyCallback cb) {
  uint32_t xid = conn_->next_xid();
  if (cb) pending_[xid] = std::move(cb);
  of::RoleRequest rr;
  rr.role = role;
  rr.generation_id = generation_id;
  auto r = send(rr, xid);
  if (!r.ok()) pending_.erase(xid);
  return r;
}

namespace {

// Messages the switch starts: never the answer to a request, whatever their xid
// (a switch numbers them from its own counter, which may meet a pending request's).
bool switch_initiated(const of::Message& m) {
  return m.is<of::PacketIn>() || m.is<of::FlowRemoved>() || m.is<of::PortStatus>() ||
         m.is<of::RoleStatus>() || m.is<of::TableStatus>() || m.is<of::RequestForward>() ||
         m.is<of::ControllerStatus>();
}

}  // namespace

bool Datapath::deliver_reply(const of::Message& m) {
  if (switch_initiated(m)) return false;
  auto it = pending_.find(m.xid);
  if (it == pending_.end()) return false;
  bool last = !(m.is<of::MultipartReply>() && (m.as<of::MultipartReply>().flags & of::kMultipartMore));
  if (last) {
    ReplyCallback cb = std::move(it->second);
    pending_.erase(it);
    cb(*this, m);
  } else {
    it->second(*this, m);
  }
  return true;
}

void Datapath::set_features(const of::FeaturesReply& f) {
  dpid_ = f.datapath_id;
  n_buffers_ = f.n_buffers;
  n_tables_ = f.n_tables;
  if (!f.ports.empty()) set_ports(f.ports);
}

void Datapath::set_ports(const std::vector<of::PortDesc>& ports) {
  ports_.clear();
  for (const auto& p : ports) ports_[p.port_no] = p;
}

void Datapath::update_port(const of::PortStatus& ps) {
  if (ps.reason == uint8_t(of::PortStatusReason::kDelete))
    ports_.erase(ps.desc.port_no);
  else
    ports_[ps.desc.port_no] = ps.desc;
}

}  // namespace flowlab::controller

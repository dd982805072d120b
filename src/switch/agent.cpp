// Agent (see agent.h): requests in, datapath calls and replies out;
// flow-removed and port-status out. Packet-ins and their pacing:
// agent_packet_in.cpp; packet-outs and their batched frames:
// agent_packet_out.cpp; bundles: agent_bundle.cpp; multiparts:
// agent_multipart.cpp.
#include "switch/agent.h"

#include <algorithm>

#include "core/clock.h"
#include "core/log.h"
#include "openflow/codec.h"

namespace flowlab::sw {

using of::OfError;

// Sinks of the agent's own ForwardingContext (packet-out): outputs go straight
// to the port, packet-ins (CONTROLLER action, TABLE miss) are collected and
// delivered after the packet-out is done.
class Agent::AgentSinks final : public dp::OutputSink, public dp::ControllerSink {
 public:
  explicit AgentSinks(Agent& a) : a_(a) {}
  void output(const Packet& pkt, uint32_t port_no, uint32_t) override {
    SwitchPort* sp = a_.ports_.find(port_no);
    if (!sp) return;
    if (sp->config.load(std::memory_order_relaxed) & (of::port_config::kNoFwd | of::port_config::kPortDown)) {
      sp->config_drops.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    a_.transmit(*sp, pkt);
  }
  void packet_in(const dp::PacketInInfo& info, const Packet& pkt) override {
    ToController t;
    t.info = info;
    t.data.assign(pkt.data(), pkt.data() + pkt.size());
    t.offload = pkt.offload;
    a_.local_packet_ins_.push_back(std::move(t));
  }

 private:
  Agent& a_;
};

namespace {

// OF1.3 6.1.1 default asynchronous configuration; OF1.4 7.3.10 adds role
// status (every reason, every role) and table status (vacancy down and up);
// OF1.5 controller status: every reason, every role (what a 1.5 controller
// got before it could filter them). Request forward stays off until a
// controller's set-async asks for it.
of::AsyncConfig default_async(bool service) {
  of::AsyncConfig a;
  if (service) return a;  // service connections (ofctl): nothing unless asked
  a.packet_in_mask = {0x7, 0x0};
  a.port_status_mask = {0x7, 0x7};
  a.flow_removed_mask = {0xf, 0x0};
  a.role_status_mask = {0x7, 0x7};
  a.table_status_mask = {0x18, 0x18};
  a.controller_status_mask = {0x7f, 0x7f};
  return a;
}

// The masks of property kind `kind` (type / 2), or null for one the model has none of (1.5's flow stats).
template <typename Config>
auto* async_kind(Config& c, size_t kind) {
  decltype(&c.packet_in_mask) k[] = {&c.packet_in_mask,
                                     &c.port_status_mask,
                                     &c.flow_removed_mask,
                                     &c.role_status_mask,
                                     &c.table_status_mask,
                                     &c.requestforward_mask,
                                     nullptr,
                                     &c.controller_status_mask};
  return kind < std::size(k) ? k[kind] : nullptr;
}

// An OF1.4 set-async changes only the kinds it carries (`present`); 1.3's carries all.
void apply_async(of::AsyncConfig& to, const of::AsyncConfig& set) {
  for (size_t type = 0; type < 16; ++type) {  // type 2k: kind k's slave mask (slot 1), 2k+1 master (slot 0)
    auto* dst = async_kind(to, type / 2);
    if (dst && set.present >> type & 1)
      (*dst)[type & 1 ? 0 : 1] = (*async_kind(set, type / 2))[type & 1 ? 0 : 1];
  }
}

OfError err_is_slave() {
  return OfError::make(of::BadRequestCode::kIsSlave, "request refused: this controller is a slave");
}

}  // namespace

Agent::Agent(const SwitchOptions& opts, dp::Datapath& dp, SwitchPorts& ports, ForwardingShared& shared)
    : opts_(opts),
      dp_(dp),
      ports_(ports),
      shared_(shared),
      buffers_(opts.n_buffers, uint64_t(opts.buffer_timeout_ms) * 1'000'000),
      sinks_(std::make_unique<AgentSinks>(*this)),
      scratch_(std::make_unique<Packet>()),
      tx_stage_(ports.size()) {
  ctx_ = std::make_unique<dp::ForwardingContext>(dp_, *sinks_, *sinks_);
  for (size_t i = 0; i < ports_.size(); ++i) tx_stage_[i].port = &ports_.at(i);
}

Agent::~Agent() = default;

uint64_t Agent::add_peer(uint8_t version, bool service, std::string name, SendFn send, BacklogFn backlog) {
  Peer p;
  p.id = next_peer_id_++;
  p.name = std::move(name);
  p.service = service;
  p.version = version;
  p.async = default_async(service);
  // OF1.4 7.3.10: a master also hears of flows removed for a meter delete or an eviction.
  if (version >= of::kOf14 && !service) p.async.flow_removed_mask[0] |= 0x30;
  p.send = std::move(send);
  p.backlog = std::move(backlog);
  uint64_t id = p.id;
  auto [it, added] = peers_.emplace(id, std::move(p));
  note_of10_controllers();
  if (added && !service)
    send_controller_status(it->second, of::ControllerStatusReason::kChannelStatus, of::ChannelStatus::kUp);
  return id;
}

void Agent::remove_peer(uint64_t id) {
  auto it = peers_.find(id);
  if (it == peers_.end()) return;
  drop_bundles(it->second);  // a closed connection discards them
  monitor_count_ -= it->second.monitors.size();
  Peer gone = std::move(it->second);
  peers_.erase(it);
  note_of10_controllers();
  update_flow_recording();
  if (!gone.service)
    send_controller_status(gone, of::ControllerStatusReason::kChannelStatus, of::ChannelStatus::kDown);
}

void Agent::note_of10_controllers() {
  dp_.set_of10_controllers(std::any_of(peers_.begin(), peers_.end(), [](const auto& kv) {
    return !kv.second.service && kv.second.version == of::kOf10;
  }));
}

bool Agent::has_controller() const {
  return std::any_of(peers_.begin(), peers_.end(), [](const auto& kv) { return !kv.second.service; });
}

void Agent::reply(Peer& p, uint32_t xid, of::MessageBody body) {
  p.send(of::Message{p.version, xid, std::move(body)});
}

void Agent::send_error(Peer& p, const OfError& err, ByteSpan raw) {
  ++counters_.errors_sent;
  log::debug("switch", "{}: answering with error: {}", p.name, err.to_string());
  of::Message m = of::make_error_reply(err, raw);
  m.version = p.version;
  p.send(std::move(m));
}

bool Agent::writable(Peer& p, ByteSpan raw) {
  if (p.role != of::ControllerRole::kSlave) return true;
  send_error(p, err_is_slave(), raw);
  return false;
}

void Agent::handle(uint64_t peer_id, const of::Message& msg, ByteSpan raw) {
  auto it = peers_.find(peer_id);
  if (it == peers_.end()) return;
  Peer& p = it->second;
  if ((++counters_.requests & 255) == 0 && request_tick_) request_tick_();
  const uint32_t xid = msg.xid;
  const of::MsgType type = msg.type();
  if (type == of::MsgType::kFlowMod || type == of::MsgType::kGroupMod || type == of::MsgType::kMeterMod)
    begin_batch();
  else if (type != of::MsgType::kPacketOut)  // a packet-out publishes; its frames stay staged
    end_batch();
  switch (msg.type()) {
    case of::MsgType::kFeaturesRequest:
      on_features(p, msg);
      break;
    case of::MsgType::kGetConfigRequest: {
      of::GetConfigReply r;
      static_cast<of::SwitchConfig&>(r) = dp_.switch_config();
      reply(p, xid, r);
      break;
    }
    case of::MsgType::kSetConfig:
      on_set_config(p, msg.as<of::SetConfig>(), raw);
      break;
    case of::MsgType::kPacketOut:
      on_packet_out(p, msg.as<of::PacketOut>(), raw);
      break;
    case of::MsgType::kFlowMod:
      on_flow_mod(p, msg.as<of::FlowMod>(), raw);
      break;
    case of::MsgType::kGroupMod:
      on_group_mod(p, msg.as<of::GroupMod>(), raw);
      break;
    case of::MsgType::kMeterMod:
      on_meter_mod(p, msg.as<of::MeterMod>(), raw);
      break;
    case of::MsgType::kPortMod:
      on_port_mod(p, msg.as<of::PortMod>(), raw);
      break;
    case of::MsgType::kTableMod:
      on_table_mod(p, msg.as<of::TableMod>(), raw);
      break;
    case of::MsgType::kMultipartRequest:
      on_multipart(p, msg, raw);
      break;
    case of::MsgType::kBarrierRequest:
      // Every earlier request was applied (and published) when its handler returned.
      reply(p, xid, of::BarrierReply{});
      break;
    case of::MsgType::kQueueGetConfigRequest: {
      uint32_t port = msg.as<of::QueueGetConfigRequest>().port;
      if (port != of::port::kAny && !ports_.find(port)) {
        send_error(
            p,
            OfError::make(of::QueueOpFailedCode::kBadPort, fmt::format("queue_get_config: no port {}", port)),
            raw);
        break;
      }
      of::QueueGetConfigReply r;
      r.port = port;
      reply(p, xid, r);
      break;
    }
    case of::MsgType::kRoleRequest:
      on_role(p, msg, raw);
      break;
    case of::MsgType::kGetAsyncRequest: {
      of::GetAsyncReply r;
      static_cast<of::AsyncConfig&>(r) = p.async;
      r.present = p.version >= of::kOf15 ? 0xcfff : 0xfff;  // every property of the version
      reply(p, xid, r);
      break;
    }
    case of::MsgType::kSetAsync:
      apply_async(p.async, msg.as<of::SetAsync>());
      break;
    case of::MsgType::kEchoRequest:  // normally answered by the channel
      reply(p, xid, of::EchoReply{msg.as<of::EchoRequest>().data});
      break;
    case of::MsgType::kEchoReply:
      on_echo_reply(p, msg.as<of::EchoReply>());
      break;
    case of::MsgType::kHello:
      break;
    case of::MsgType::kError: {
      const auto& e = msg.as<of::ErrorMsg>();
      log::info("switch", "{}: controller sent error type {} code {}", p.name, e.type, e.code);
      break;
    }
    case of::MsgType::kExperimenter:
      on_experimenter(p, msg, raw);
      break;
    default:
      send_error(
          p,
          OfError::make(of::BadRequestCode::kBadType,
                        fmt::format("{} is not a request a switch accepts", of::to_string(msg.type()))),
          raw);
      break;
  }
  if (monitor_count_ > 0) send_flow_updates(peer_id, xid);
}

void Agent::on_features(Peer& p, const of::Message& m) {
  of::FeaturesReply r;
  r.datapath_id = opts_.dpid;
  r.n_buffers = buffers_.capacity();
  r.n_tables = p.version == of::kOf10 ? 1 : dp_.n_tables();
  r.capabilities = of::capabilities::kFlowStats | of::capabilities::kTableStats |
                   of::capabilities::kPortStats | of::capabilities::kQueueStats;
  if (p.version != of::kOf10) r.capabilities |= of::capabilities::kGroupStats;
  if (p.version == of::kOf10) {
    r.reserved = 0x7ff;  // OF1.0 actions: output .. set_tp_dst (no enqueue)
    r.ports = ports_.descs();
  }
  reply(p, m.xid, r);
}

void Agent::on_set_config(Peer& p, const of::SetConfig& c, ByteSpan raw) {
  if ((c.flags & of::config_flags::kFragMask) == of::config_flags::kFragReasm) {
    send_error(p,
               OfError::make(of::SwitchConfigFailedCode::kBadFlags,
                             "IP reassembly (OFPC_FRAG_REASM) is not supported"),
               raw);
    return;
  }
  if ((c.flags & ~uint16_t(of::config_flags::kFragMask | 4)) != 0) {
    send_error(p,
               OfError::make(of::SwitchConfigFailedCode::kBadFlags,
                             fmt::format("set_config: unknown flags {:#x}", c.flags)),
               raw);
    return;
  }
  dp_.set_switch_config(c);
}

void Agent::on_flow_mod(Peer& p, const of::FlowMod& fm, ByteSpan raw) {
  if (!writable(p, raw)) return;
  uint64_t now = monotonic_ns();
  auto r = dp_.flow_mod(fm, now);
  if (!r.ok()) {
    send_error(p, r.error(), raw);
    return;
  }
  send_flow_removed(*r);
  send_table_status();
  bool adds = fm.command == of::FlowModCommand::kAdd || fm.command == of::FlowModCommand::kModify ||
              fm.command == of::FlowModCommand::kModifyStrict;
  if (fm.buffer_id != of::kNoBuffer && adds) {
    BufferStore::Miss why = BufferStore::Miss::kUnknown;
    auto b = buffers_.take(fm.buffer_id, now, &why);
    if (!b) {
      send_error(p,
                 OfError::make(why == BufferStore::Miss::kExpired ? of::BadRequestCode::kBufferEmpty
                                                                  : of::BadRequestCode::kBufferUnknown,
                               fmt::format("flow_mod: buffer {:#x} is unknown or timed out", fm.buffer_id)),
                 raw);
      return;
    }
    Packet pkt;
    pkt.assign(b->data.data(), b->data.size());
    pkt.offload = b->offload;
    pkt.in_port = b->in_port;
    pkt.metadata = b->metadata;
    pkt.tunnel_id = b->tunnel_id;
    run_packet_out(pkt, {of::Action::output(of::port::kTable)});
  }
}

void Agent::on_group_mod(Peer& p, const of::GroupMod& gm, ByteSpan raw) {
  if (!writable(p, raw)) return;
  auto r = dp_.group_mod(gm, monotonic_ns());
  if (!r.ok()) return send_error(p, r.error(), raw);
  send_flow_removed(*r);
  send_table_status();
  forward_request(p, raw, of::RequestForwardReason::kGroupMod);
}

void Agent::on_meter_mod(Peer& p, const of::MeterMod& mm, ByteSpan raw) {
  if (!writable(p, raw)) return;
  auto r = dp_.meter_mod(mm, monotonic_ns());
  if (!r.ok()) return send_error(p, r.error(), raw);
  send_flow_removed(*r);
  send_table_status();
  forward_request(p, raw, of::RequestForwardReason::kMeterMod);
}

void Agent::on_port_mod(Peer& p, const of::PortMod& pm, ByteSpan raw) {
  if (!writable(p, raw)) return;
  auto st = ports_.port_mod(pm);
  if (!st.ok()) return send_error(p, st.error(), raw);
  for (size_t i = 0; i < ports_.size(); ++i) {
    if (ports_.at(i).port_no != pm.port_no) continue;
    log::info("switch", "port {} ({}): config set to {:#x} by {}", ports_.at(i).port->name(), pm.port_no,
              ports_.at(i).config.load(), p.name);
    port_changed(i, of::PortStatusReason::kModify);
  }
}

void Agent::on_role(Peer& p, const of::Message& m, ByteSpan raw) {
  const auto& rq = m.as<of::RoleRequest>();
  using R = of::ControllerRole;
  if (rq.role != R::kNoChange && rq.role != R::kEqual && rq.role != R::kMaster && rq.role != R::kSlave) {
    send_error(p,
               OfError::make(of::RoleRequestFailedCode::kBadRole,
                             fmt::format("role {} is not a role", uint32_t(rq.role))),
               raw);
    return;
  }
  if (rq.role == R::kMaster || rq.role == R::kSlave) {
    if (generation_valid_ && int64_t(rq.generation_id - generation_id_) < 0) {
      send_error(
          p,
          OfError::make(of::RoleRequestFailedCode::kStale,
                        fmt::format("generation id {} is older than {}", rq.generation_id, generation_id_)),
          raw);
      return;
    }
    generation_valid_ = true;
    generation_id_ = rq.generation_id;
  }
  if (rq.role == R::kMaster) {
    for (auto& [id, other] : peers_)
      if (id != p.id && other.role == R::kMaster) {
        other.role = R::kSlave;
        log::info("switch", "{}: now slave ({} became master)", other.name, p.name);
        // OF1.4 7.4.4: the demoted controller hears it in a role status.
        if (other.version >= of::kOf14 && wants(other, 3, uint8_t(of::RoleStatusReason::kMasterRequest))) {
          of::RoleStatus rs;
          rs.role = R::kSlave;
          rs.reason = of::RoleStatusReason::kMasterRequest;
          rs.generation_id = rq.generation_id;
          reply(other, 0, std::move(rs));
          ++counters_.role_status_sent;
        }
        if (!other.service)
          send_controller_status(other, of::ControllerStatusReason::kRole, of::ChannelStatus::kUp);
      }
  }
  if (rq.role != R::kNoChange && rq.role != p.role) {
    p.role = rq.role;
    log::info("switch", "{}: role {}", p.name,
              p.role == R::kMaster  ? "master"
              : p.role == R::kSlave ? "slave"
                                    : "equal");
    if (!p.service) send_controller_status(p, of::ControllerStatusReason::kRole, of::ChannelStatus::kUp);
  }
  of::RoleReply r;
  r.role = p.role;
  r.generation_id = generation_id_;
  reply(p, m.xid, r);
}

bool Agent::wants(const Peer& p, int kind, uint8_t reason) const {
  if (reason >= 32) return false;
  size_t idx = p.role == of::ControllerRole::kSlave ? 1 : 0;
  uint32_t mask = kind == 0   ? p.async.packet_in_mask[idx]
                  : kind == 1 ? p.async.port_status_mask[idx]
                  : kind == 2 ? p.async.flow_removed_mask[idx]
                  : kind == 3 ? p.async.role_status_mask[idx]
                              : p.async.table_status_mask[idx];
  return mask & (1u << reason);
}

void Agent::forward_request(const Peer& from, ByteSpan raw, of::RequestForwardReason reason) {
  if (raw.size() < of::kHeaderLen) return;
  const uint32_t bit = 1u << uint8_t(reason);
  for (auto& [id, p] : peers_) {
    if (id == from.id || p.version < of::kOf14) continue;
    if (!(p.async.requestforward_mask[p.role == of::ControllerRole::kSlave ? 1 : 0] & bit)) continue;
    // A group-mod or meter-mod has the same wire at 1.3 and 1.4: the request
    // goes out as sent, with 1.4's version (a 1.5 one as its 1.4 wire; the
    // codec writes it at the peer's version).
    of::RequestForward rf{Bytes(raw.begin(), raw.end())};
    if (raw[0] == of::kOf15) {
      auto w14 = of::of15_wire_to_of14(raw);
      if (!w14.ok()) continue;
      rf.request = std::move(*w14);
    }
    rf.request[0] = of::kOf14;
    reply(p, load_be32(&raw[4]), std::move(rf));
    ++counters_.requests_forwarded;
  }
}

void Agent::send_flow_removed(const std::vector<of::FlowRemoved>& frs) {
  for (const auto& fr : frs) {
    for (auto& [id, p] : peers_) {
      if (!wants(p, 2, fr.reason)) continue;
      of::FlowRemoved copy = fr;
      if (p.version == of::kOf10 && copy.table_id != 0) continue;
      reply(p, 0, copy);
      ++counters_.flow_removed_sent;
    }
  }
}

void Agent::begin_batch() {
  if (batch_ || !schedule_batch_end_) return;
  batch_ = std::make_unique<dp::DeferredPublish>(dp_);
  schedule_end();
}

void Agent::schedule_end() {
  if (end_scheduled_) return;
  end_scheduled_ = true;
  schedule_batch_end_();
}

void Agent::end_batch() {
  end_scheduled_ = false;
  batch_.reset();
  flush_tx();
}

void Agent::expire(uint64_t now_ns) {
  end_batch();
  send_flow_removed(dp_.expire(now_ns));
  send_table_status();
  if (monitor_count_ > 0) send_flow_updates(0, 0);
  buffers_.expire(now_ns);
}

void Agent::port_changed(size_t port_index, of::PortStatusReason reason) {
  if (shared_.on_port_change) shared_.on_port_change();  // kernel fast path: entries become stale
  of::PortStatus ps;
  ps.reason = uint8_t(reason);
  ps.desc = ports_.desc(ports_.at(port_index));
  for (auto& [id, p] : peers_) {
    if (!wants(p, 1, ps.reason)) continue;
    reply(p, 0, ps);
    ++counters_.port_status_sent;
  }
}

}  // namespace flowlab::sw

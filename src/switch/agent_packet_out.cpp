// Agent (see agent.h): packet-outs, and the frames they send, staged per
// output port and sent in one batch per socket read ("Batching" in agent.h).
#include <algorithm>
#include <memory>

#include "core/clock.h"
#include "switch/agent.h"

namespace flowlab::sw {

using of::OfError;

void Agent::run_packet_out(Packet& pkt, const of::ActionList& actions) {
  batch_.reset();  // the packet must see the flows added before it (its frames may stay staged)
  dp_.packet_out(*ctx_, pkt, actions, monotonic_ns());
  flush_local_packet_ins();
}

void Agent::flush_local_packet_ins() {
  while (!local_packet_ins_.empty()) {
    std::vector<ToController> v;
    v.swap(local_packet_ins_);
    for (auto& t : v) deliver_packet_in(std::move(t));
  }
}

void Agent::on_packet_out(Peer& p, const of::PacketOut& po, ByteSpan raw) {
  if (!writable(p, raw)) return;
  bool in_port_ok = po.in_port == of::port::kController || po.in_port == of::port::kLocal ||
                    po.in_port == of::port::kAny || ports_.find(po.in_port) != nullptr;
  if (!in_port_ok) {
    send_error(p,
               OfError::make(of::BadRequestCode::kBadPort,
                             fmt::format("packet_out: in_port {} is not a port", po.in_port)),
               raw);
    return;
  }
  if (auto st = dp_.validate_packet_out(po.actions); !st.ok()) {
    send_error(p, st.error(), raw);
    return;
  }
  // Its own buffer (scratch_ is the output sink's), reused: no 64 KB allocation per packet-out.
  if (!packet_out_) packet_out_ = std::make_unique<Packet>();
  Packet& owned = *packet_out_;
  if (po.buffer_id != of::kNoBuffer) {
    BufferStore::Miss why = BufferStore::Miss::kUnknown;
    auto b = buffers_.take(po.buffer_id, monotonic_ns(), &why);
    if (!b) {
      send_error(
          p,
          OfError::make(why == BufferStore::Miss::kExpired ? of::BadRequestCode::kBufferEmpty
                                                           : of::BadRequestCode::kBufferUnknown,
                        fmt::format("packet_out: buffer {:#x} is {}", po.buffer_id,
                                    why == BufferStore::Miss::kExpired ? "gone (timed out)" : "unknown")),
          raw);
      return;
    }
    owned.assign(b->data.data(), b->data.size());
    owned.offload = b->offload;
    owned.metadata = b->metadata;
    owned.tunnel_id = b->tunnel_id;
  } else {
    if (po.data.empty()) {
      send_error(p, OfError::make(of::BadRequestCode::kBadPacket, "packet_out: no buffer id and no data"),
                 raw);
      return;
    }
    if (!owned.assign(po.data.data(), po.data.size())) {
      send_error(p, OfError::make(of::BadRequestCode::kBadLen, "packet_out: packet too large"), raw);
      return;
    }
  }
  owned.in_port = po.in_port;
  ++counters_.packet_outs;
  run_packet_out(owned, po.actions);
}

void Agent::transmit(SwitchPort& sp, const Packet& pkt) {
  TxStage* st = nullptr;
  if (schedule_batch_end_)
    for (auto& s : tx_stage_)
      if (s.port == &sp) st = &s;
  if (!st) {  // nobody would send a staged frame later: send it now
    Packet& s = *scratch_;
    if (!s.assign(pkt.data(), pkt.size())) return;
    s.offload = pkt.offload;
    s.in_port = pkt.in_port;
    sp.port->tx_one(s);
    return;
  }
  if (st->batch.full()) {
    st->port->port->tx_batch(st->batch);  // the port counts what it could not send
    st->batch.clear();
  }
  const size_t k = st->batch.size();
  if (k == st->bufs.size()) st->bufs.push_back(std::make_unique<Packet>());
  Packet& dst = *st->bufs[k];
  if (!dst.assign(pkt.data(), pkt.size())) return;
  dst.offload = pkt.offload;
  dst.in_port = pkt.in_port;
  if (k == 0) {
    if (tx_dirty_.empty()) schedule_end();
    if (std::find(tx_dirty_.begin(), tx_dirty_.end(), st) == tx_dirty_.end()) tx_dirty_.push_back(st);
  }
  st->batch.pkts.push_back(&dst);
}

void Agent::flush_tx() {
  for (TxStage* st : tx_dirty_) {
    if (st->batch.size() == 0) continue;
    st->port->port->tx_batch(st->batch);
    st->batch.clear();
  }
  tx_dirty_.clear();
}

}  // namespace flowlab::sw

// Agent (see agent.h): packet-ins to the controllers, paced by a window of
// unacknowledged bytes per peer and its echo probes (the design is in
// agent.h, "Packet-in pacing").
#include <algorithm>

#include "core/clock.h"
#include "packet/checksum.h"
#include "packet/gso.h"
#include "switch/agent.h"

namespace flowlab::sw {

namespace {
constexpr uint8_t kProbeMagic[8] = {'f', 'l', 'p', 'i', 'n', 'p', 'r', 'b'};
}  // namespace

uint64_t Agent::pin_ids() const {
  const uint64_t cap = buffers_.capacity();
  return cap == 0 ? 0 : std::max<uint64_t>(1, cap / 2);
}

bool Agent::pin_room(const Peer& p) const {
  if (p.pin_sent - p.pin_acked >= p.pin_window) return false;
  const uint64_t ids = pin_ids();
  if (ids > 0 && p.pin_sent_n - p.pin_acked_n >= ids) return false;
  return !p.backlog || p.backlog() <= kPacketInBacklogBytes;
}

void Agent::pin_sent(Peer& p, size_t bytes) {
  p.pin_sent += bytes + 32;  // header and match
  ++p.pin_sent_n;
  // A probe per quarter window, and per quarter of the buffer ids a peer may hold.
  const uint64_t ids = pin_ids();
  const bool ids_due = ids > 0 && p.pin_sent_n - p.pin_probed_n >= std::max<uint64_t>(1, ids / 4);
  if (p.pin_sent - p.pin_probed < p.pin_window / 4 && !ids_due) return;
  p.pin_probed = p.pin_sent;
  p.pin_probed_n = p.pin_sent_n;
  const uint64_t seq = p.next_probe++;
  p.probes.push_back({seq, p.pin_sent, p.pin_sent_n, monotonic_ns()});
  of::EchoRequest probe;
  probe.data.assign(std::begin(kProbeMagic), std::end(kProbeMagic));
  for (int i = 7; i >= 0; --i) probe.data.push_back(uint8_t(seq >> (8 * i)));
  reply(p, 0, probe);
}

void Agent::on_echo_reply(Peer& p, const of::EchoReply& r) {
  if (r.data.size() != 16 || !std::equal(std::begin(kProbeMagic), std::end(kProbeMagic), r.data.begin()))
    return;
  uint64_t seq = 0;
  for (size_t i = 8; i < 16; ++i) seq = seq << 8 | r.data[i];
  const uint64_t now = monotonic_ns();
  while (!p.probes.empty() && p.probes.front().seq <= seq) {
    const Peer::Probe pr = p.probes.front();
    p.probes.pop_front();
    p.pin_acked = std::max(p.pin_acked, pr.bytes);
    p.pin_acked_n = std::max(p.pin_acked_n, pr.count);
    const uint64_t rtt = now - pr.sent_ns;
    if (rtt > kPacketInTargetNs) {
      if (pr.sent_ns > p.pin_cut_ns) {
        p.pin_window = std::max(kPacketInMinWindow, p.pin_window / 2);
        p.pin_cut_ns = now;
      }
    } else if (rtt < kPacketInTargetNs / 5)
      p.pin_window = std::min(kPacketInMaxWindow, p.pin_window + p.pin_window / 8);
  }
}

void Agent::deliver_packet_in(ToController item) {
  // Who wants it?
  const uint8_t reason = uint8_t(item.info.reason);
  auto takes = [&](const Peer& p) {
    return (!item.info.of10_miss || p.version == of::kOf10) && wants(p, 0, reason);
  };
  bool any = false, room = false;
  for (auto& [id, p] : peers_) {
    if (!takes(p)) continue;
    any = true;
    room = room || pin_room(p);
  }
  if (!any) {
    ++counters_.packet_ins_unsent;
    return;
  }
  if (!room) {  // every taker is backed up: shed it before buffering or segmenting
    ++counters_.packet_ins_congested;
    return;
  }
  // A GSO super-frame going out whole is split into wire-sized frames, each its
  // own packet-in; a partial checksum is completed so the controller sees a
  // valid packet. A buffered packet keeps its metadata for the packet-out.
  std::vector<Bytes> frames;
  uint32_t buffer_id = of::kNoBuffer;
  const bool buffered = item.info.max_len != of::kControllerMaxLenNoBuffer && buffers_.capacity() > 0;
  const size_t total_len = item.data.size();
  if (buffered) {
    // The controller gets the first max_len bytes; the frame itself moves
    // into the store (no copy of a 64 KB super-frame). A partial checksum is
    // completed in the copy the controller sees; the buffered frame keeps it
    // partial for the output port to finish.
    Bytes& d = item.data;
    size_t len = std::min<size_t>(d.size(), item.info.max_len);
    const OffloadInfo& o = item.offload;
    size_t at = size_t(o.csum_start) + o.csum_offset;
    if (o.needs_csum() && !o.is_gso() && at + 2 <= len) {
      uint8_t saved[2] = {d[at], d[at + 1]};
      csum::complete_partial(d.data(), d.size(), o.csum_start, o.csum_offset);
      frames.emplace_back(d.begin(), d.begin() + ptrdiff_t(len));
      d[at] = saved[0];
      d[at + 1] = saved[1];
    } else {
      frames.emplace_back(d.begin(), d.begin() + ptrdiff_t(len));
    }
    BufferedPacket b;
    b.data = std::move(item.data);
    b.in_port = item.info.in_port;
    b.metadata = item.info.metadata;
    b.tunnel_id = item.info.tunnel_id;
    b.offload = item.offload;
    buffer_id = buffers_.put(std::move(b), monotonic_ns());
  } else {
    Packet pkt;
    pkt.assign(item.data.data(), item.data.size());
    pkt.offload = item.offload;
    pkt.in_port = item.info.in_port;
    if (pkt.offload.is_gso()) {
      size_t n = gso::segment_count(pkt);
      Packet seg;
      for (size_t i = 0; i < n; ++i)
        if (gso::build_segment(pkt, i, seg, gso::CsumMode::kFull))
          frames.emplace_back(seg.data(), seg.data() + seg.size());
    } else {
      if (pkt.offload.needs_csum()) csum::complete_partial(pkt);
      frames.emplace_back(pkt.data(), pkt.data() + pkt.size());
    }
  }
  for (auto& data : frames) {
    of::PacketIn pin;
    pin.buffer_id = buffer_id;
    pin.total_len = uint16_t(std::min<size_t>(buffered ? total_len : data.size(), 0xffff));
    pin.reason = reason;
    pin.table_id = item.info.table_id;
    pin.cookie = item.info.cookie;
    pin.match = item.info.match();
    pin.data = std::move(data);
    const size_t bytes = pin.data.size();
    // The last peer it goes to gets the message itself, the others a copy (the
    // usual single controller: no copy of its match and data).
    Peer* last = nullptr;
    for (auto& [id, p] : peers_)
      if (takes(p) && pin_room(p)) last = &p;
    for (auto& [id, p] : peers_) {
      if (!takes(p)) continue;
      if (!pin_room(p)) {
        ++counters_.packet_ins_congested;
        continue;
      }
      if (&p == last)
        reply(p, 0, std::move(pin));
      else
        reply(p, 0, pin);
      ++counters_.packet_ins_sent;
      pin_sent(p, bytes);
    }
  }
}

}  // namespace flowlab::sw

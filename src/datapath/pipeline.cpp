// The forwarding pipeline: table walk (cache, classifier), instructions, action
// lists, the action set, groups, meters and outputs. Runs on forwarding threads
// against one pinned Snapshot per batch; no locks, no allocation per packet.
#include <array>

#include "datapath/action_set.h"
#include "datapath/actions.h"
#include "datapath/datapath_impl.h"
#include "packet/headers.h"

namespace flowlab::dp {
namespace {

using of::ActionType;
constexpr int kMaxDepth = 8;                     // group nesting / clone levels
constexpr uint16_t kInvalidTtlToController = 4;  // OFPC_INVALID_TTL_TO_CONTROLLER
constexpr size_t kEthMinFrame = 60;              // Ethernet minimum without the FCS

class Runner {
 public:
  Runner(ForwardingState& st, const Snapshot& snap, uint64_t now, bool packet_out)
      : st_(st), snap_(snap), now_(now), packet_out_(packet_out) {}

  void run_pipeline(PacketContext& pc, uint8_t table);
  bool exec_list(PacketContext& pc, const of::ActionList& list, int depth);

  uint8_t cur_table = 0;
  uint64_t cur_cookie = ~uint64_t(0);
  bool cur_miss = false;

 private:
  bool exec(PacketContext& pc, const of::Action& a, int depth);
  void output(PacketContext& pc, uint32_t port, uint16_t max_len, int depth);
  void send(Packet& pkt, uint32_t port, uint32_t queue);
  void to_controller(PacketContext& pc, of::PacketInReason reason, uint16_t max_len, bool of10_miss = false);
  void exec_group(PacketContext& pc, uint32_t id, int depth);
  void exec_bucket(PacketContext& pc, const Group& g, size_t i, int depth);
  bool bucket_live(const of::Bucket& b, int depth) const;
  bool group_live(uint32_t id, int depth) const;
  bool invalid_ttl(PacketContext& pc);
  bool exec_action_set(PacketContext& pc, const ActionSet& as);

  ForwardingState& st_;
  const Snapshot& snap_;
  uint64_t now_;
  bool packet_out_;
};

// Select-group bucket choice: a hash over what tells one flow from another at
// every layer the frame has: L2 (MACs, VLAN, ethertype), ARP sender/target
// addresses, IPv4/IPv6 addresses, protocol and transport ports (ICMP type and
// code). Only parsed fields, so one flow always hashes the same, and traffic
// that differs only in MACs or in ARP addresses spreads too.
uint64_t select_hash(PacketContext& pc) {
  pc.refresh();
  const FlowKey& k = pc.key;
  uint64_t s = 0, d = 0;
  std::memcpy(&s, k.eth_src, 6);
  std::memcpy(&d, k.eth_dst, 6);
  uint64_t h = hash_mix(0, s);
  h = hash_mix(h, d);
  h = hash_mix(h, uint64_t(k.vlan_vid) << 32 | uint64_t(k.eth_type) << 16 | k.vlan_pcp);
  h = hash_mix(h, uint64_t(k.arp_spa) << 32 | k.arp_tpa);
  h = hash_mix(h, uint64_t(k.ipv4_src) << 32 | k.ipv4_dst);
  for (int i = 0; i < 16; i += 8) {
    uint64_t a, b;
    std::memcpy(&a, k.ipv6_src + i, 8);
    std::memcpy(&b, k.ipv6_dst + i, 8);
    h = hash_mix(h, a);
    h = hash_mix(h, b);
  }
  h = hash_mix(h, uint64_t(k.ip_proto) << 48 | uint64_t(k.tp_src) << 32 | uint64_t(k.tp_dst) << 16 |
                      uint64_t(k.icmp_type) << 8 | k.icmp_code);
  h = hash_mix(h, uint64_t(k.mpls_label) << 32 | k.pbb_isid);
  return h;
}

bool modifies(const of::Bucket& b) {
  for (const of::Action& a : b.actions)
    if (a.type != ActionType::kOutput && a.type != ActionType::kGroup && a.type != ActionType::kSetQueue)
      return true;
  return false;
}

bool Runner::invalid_ttl(PacketContext& pc) {
  bump(st_.counters.invalid_ttl);
  st_.disposed = true;
  if (st_.dp.config_flags.load(std::memory_order_relaxed) & kInvalidTtlToController)
    to_controller(pc, of::PacketInReason::kInvalidTtl, st_.dp.miss_send_len.load(std::memory_order_relaxed));
  return false;
}

bool Runner::exec(PacketContext& pc, const of::Action& a, int depth) {
  ActionResult r = ActionResult::kOk;
  switch (a.type) {
    case ActionType::kOutput:
      output(pc, a.port, a.max_len, depth);
      break;
    case ActionType::kEnqueue: {
      uint32_t q = pc.queue_id;
      pc.queue_id = a.queue_id;
      output(pc, a.port, 0, depth);
      pc.queue_id = q;
      break;
    }
    case ActionType::kSetQueue:
      pc.queue_id = a.queue_id;
      break;
    case ActionType::kGroup:
      exec_group(pc, a.group_id, depth);
      break;
    case ActionType::kSetField:
      // OF1.0 set_vlan_vid / set_vlan_pcp on an untagged frame add a tag (VID 0, PCP 0).
      if (st_.dp.cfg.of10 && pc.layers.vlan == PacketLayers::kNone &&
          (a.field.is(of::OxmId::kVlanVid) || a.field.is(of::OxmId::kVlanPcp)))
        push_vlan(pc, hdr::kEthTypeVlan);
      r = set_field(pc, a.field);
      break;
    case ActionType::kPushVlan:
      r = push_vlan(pc, a.ethertype);
      break;
    case ActionType::kPopVlan:
      r = pop_vlan(pc);
      break;
    case ActionType::kPushMpls:
      r = push_mpls(pc, a.ethertype);
      break;
    case ActionType::kPopMpls:
      r = pop_mpls(pc, a.ethertype);
      break;
    case ActionType::kPushPbb:
      r = push_pbb(pc, a.ethertype);
      break;
    case ActionType::kPopPbb:
      r = pop_pbb(pc);
      break;
    case ActionType::kSetMplsTtl:
      r = set_mpls_ttl(pc, a.ttl);
      break;
    case ActionType::kDecMplsTtl:
      r = dec_mpls_ttl(pc);
      break;
    case ActionType::kSetNwTtl:
      r = set_nw_ttl(pc, a.ttl);
      break;
    case ActionType::kDecNwTtl:
      r = dec_nw_ttl(pc);
      break;
    case ActionType::kCopyTtlOut:
      r = copy_ttl_out(pc);
      break;
    case ActionType::kCopyTtlIn:
      r = copy_ttl_in(pc);
      break;
    default:
      break;  // rejected by validation (experimenter)
  }
  if (r == ActionResult::kInvalidTtl) return invalid_ttl(pc);
  return true;
}

bool Runner::exec_list(PacketContext& pc, const of::ActionList& list, int depth) {
  for (const of::Action& a : list)
    if (!exec(pc, a, depth)) return false;
  return true;
}

void Runner::to_controller(PacketContext& pc, of::PacketInReason reason, uint16_t max_len, bool of10_miss) {
  PacketInInfo info;
  info.reason = reason;
  info.of10_miss = of10_miss;
  info.table_id = cur_table;
  info.cookie = cur_cookie;
  info.max_len = max_len;
  info.in_port = pc.pkt->in_port;
  info.metadata = pc.pkt->metadata;
  info.tunnel_id = pc.pkt->tunnel_id;
  bump(st_.counters.to_controller);
  st_.disposed = true;
  st_.ctl.packet_in(info, *pc.pkt);
}

// A frame shorter than the Ethernet minimum (60 bytes without FCS) leaves
// zero-padded, as a NIC pads it; the packet itself keeps its size (packet-ins
// and later actions see the frame as the switch holds it).
void Runner::send(Packet& pkt, uint32_t port, uint32_t queue) {
  const size_t len = pkt.size();
  if (len >= kEthMinFrame || pkt.tailroom() < kEthMinFrame - len) {
    st_.out.output(pkt, port, queue);
    return;
  }
  std::memset(pkt.data() + len, 0, kEthMinFrame - len);
  pkt.set_size(kEthMinFrame);
  st_.out.output(pkt, port, queue);
  pkt.truncate(len);
}

void Runner::output(PacketContext& pc, uint32_t port, uint16_t max_len, int depth) {
  const uint32_t in_port = pc.pkt->in_port;
  st_.disposed = true;
  switch (port) {
    case of::port::kInPort:
      if (in_port != 0 && (in_port <= of::port::kMax || in_port == of::port::kLocal))
        send(*pc.pkt, in_port, pc.queue_id);
      return;
    case of::port::kFlood:
    case of::port::kAll:
    case of::port::kNormal:  // NORMAL is treated as FLOOD (no L2 learning in the pipeline)
      if (!st_.dp.ports) return;
      st_.dp.ports->list_ports(st_.port_list);
      for (uint32_t p : st_.port_list)
        if (p != in_port) send(*pc.pkt, p, pc.queue_id);
      return;
    case of::port::kController:
      to_controller(pc, cur_miss ? of::PacketInReason::kNoMatch : of::PacketInReason::kAction, max_len);
      return;
    case of::port::kTable:
      // Packet-out only: the packet itself goes through the tables (later
      // actions of the packet-out see what the pipeline did to it).
      if (packet_out_ && depth == 0) {
        Runner inner(st_, snap_, now_, false);
        inner.run_pipeline(pc, 0);
      }
      return;
    case of::port::kAny:
    case 0:
      return;
    default:
      if (port != in_port) send(*pc.pkt, port, pc.queue_id);
      return;
  }
}

bool Runner::group_live(uint32_t id, int depth) const {
  if (depth >= kMaxDepth) return false;
  auto it = snap_.groups->find(id);
  if (it == snap_.groups->end()) return false;
  for (const of::Bucket& b : it->second->buckets)
    if (bucket_live(b, depth + 1)) return true;
  return false;
}

bool Runner::bucket_live(const of::Bucket& b, int depth) const {
  if (b.watch_port != of::port::kAny && !(st_.dp.ports && st_.dp.ports->is_live(b.watch_port))) return false;
  if (b.watch_group != of::group::kAny && !group_live(b.watch_group, depth)) return false;
  return true;
}

void Runner::exec_bucket(PacketContext& pc, const Group& g, size_t i, int depth) {
  const of::Bucket& b = g.buckets[i];
  g.counters->bucket_packets[i].fetch_add(1, std::memory_order_relaxed);
  g.counters->bucket_bytes[i].fetch_add(pc.pkt->size(), std::memory_order_relaxed);
  if (depth + 1 >= kMaxDepth) return;
  if (!modifies(b)) {
    uint32_t q = pc.queue_id;
    exec_list(pc, b.actions, depth + 1);
    pc.queue_id = q;
    return;
  }
  auto& slot = st_.clones[size_t(depth)];
  if (!slot) slot = std::make_unique<Packet>();
  copy_packet(*pc.pkt, *slot);
  PacketContext c = pc;
  c.pkt = slot.get();
  exec_list(c, b.actions, depth + 1);
}

void Runner::exec_group(PacketContext& pc, uint32_t id, int depth) {
  auto it = snap_.groups->find(id);
  if (it == snap_.groups->end() || depth >= kMaxDepth) return;
  const Group& g = *it->second;
  g.counters->packets.fetch_add(1, std::memory_order_relaxed);
  g.counters->bytes.fetch_add(pc.pkt->size(), std::memory_order_relaxed);
  st_.disposed = true;
  switch (g.type) {
    case of::GroupType::kAll:
      for (size_t i = 0; i < g.buckets.size(); ++i) exec_bucket(pc, g, i, depth);
      return;
    case of::GroupType::kIndirect:
      if (!g.buckets.empty()) exec_bucket(pc, g, 0, depth);
      return;
    case of::GroupType::kFastFailover:
      for (size_t i = 0; i < g.buckets.size(); ++i)
        if (bucket_live(g.buckets[i], depth)) {
          exec_bucket(pc, g, i, depth);
          return;
        }
      return;
    case of::GroupType::kSelect: {
      uint64_t total = 0;
      for (const of::Bucket& b : g.buckets)
        if (b.weight && bucket_live(b, depth)) total += b.weight;
      if (!total) return;
      uint64_t pick = select_hash(pc) % total;
      for (size_t i = 0; i < g.buckets.size(); ++i) {
        const of::Bucket& b = g.buckets[i];
        if (!b.weight || !bucket_live(b, depth)) continue;
        if (pick < b.weight) {
          exec_bucket(pc, g, i, depth);
          return;
        }
        pick -= b.weight;
      }
      return;
    }
  }
}

bool Runner::exec_action_set(PacketContext& pc, const ActionSet& as) {
  auto run = [&](const of::Action* a) { return !a || exec(pc, *a, 0); };
  // OF1.3 5.10 order: copy TTL in, pops, push MPLS, push PBB, push VLAN, copy TTL out, ...
  if (!run(as.copy_ttl_in) || !run(as.pop_vlan) || !run(as.pop_mpls) || !run(as.pop_pbb) ||
      !run(as.push_mpls) || !run(as.push_pbb) || !run(as.push_vlan) || !run(as.copy_ttl_out) ||
      !run(as.dec_mpls_ttl) || !run(as.dec_nw_ttl) || !run(as.set_mpls_ttl) || !run(as.set_nw_ttl))
    return false;
  for (uint64_t m = as.set_mask; m; m &= m - 1)
    if (!run(as.set_field[size_t(__builtin_ctzll(m))])) return false;
  run(as.set_queue);
  if (as.group) return run(as.group);
  return run(as.output);
}

void Runner::run_pipeline(PacketContext& pc, uint8_t table) {
  ActionSet as;
  const uint8_t n_tables = uint8_t(snap_.tables.size());
  for (;;) {
    if (table >= n_tables) return;
    pc.refresh();
    bump(st_.counters.lookups[table]);
    const FlowEntry* flow = nullptr;
    const uint64_t h = FlowCache::hash(table, pc.key);
    if (st_.cache.find(st_.version, table, pc.key, h, &flow)) {
      bump(st_.counters.cache_hits);
    } else {
      bump(st_.counters.cache_misses);
      flow = snap_.tables[table]->view->lookup(pc.key, snap_.version);
      st_.cache.insert(st_.version, table, pc.key, h, flow);
    }
    if (!flow) {
      if (st_.dp.cfg.of10 || st_.dp.of10_miss.load(std::memory_order_relaxed)) {
        cur_table = table;
        cur_cookie = ~uint64_t(0);
        cur_miss = true;
        to_controller(pc, of::PacketInReason::kNoMatch, st_.dp.miss_send_len.load(std::memory_order_relaxed),
                      !st_.dp.cfg.of10);
      } else {
        bump(st_.counters.table_miss_drops);
        st_.disposed = true;
      }
      return;
    }
    bump(st_.counters.matches[table]);
    FlowCounters& fc = *flow->counters;
    fc.packets.fetch_add(1, std::memory_order_relaxed);
    fc.bytes.fetch_add(pc.pkt->size(), std::memory_order_relaxed);
    if (fc.last_used_ns.load(std::memory_order_relaxed) < now_)
      fc.last_used_ns.store(now_, std::memory_order_relaxed);
    cur_table = table;
    cur_cookie = flow->cookie;
    cur_miss = flow->table_miss;
    if (flow->meter_id) {
      auto it = snap_.meters->find(flow->meter_id);
      if (it != snap_.meters->end()) {
        MeterVerdict v = meter_packet(*it->second, pc.pkt->size(), now_);
        if (v.drop) {
          bump(st_.counters.meter_drops);
          st_.disposed = true;
          return;
        }
        if (v.raise_precedence) {
          pc.refresh();
          set_dscp(pc, remark_dscp(pc.key.ip_dscp, v.raise_precedence));
        }
      }
    }
    if (flow->apply && !exec_list(pc, *flow->apply, 0)) return;
    if (flow->clear_actions) as.clear();
    if (flow->write) as.write(*flow->write);
    if (flow->write_metadata) {
      pc.pkt->metadata = (pc.pkt->metadata & ~flow->metadata_mask) | (flow->metadata & flow->metadata_mask);
      pc.key.metadata = pc.pkt->metadata;
    }
    if (flow->goto_table < 0) break;
    table = uint8_t(flow->goto_table);
  }
  exec_action_set(pc, as);
}

}  // namespace

void Datapath::process_batch(ForwardingContext& ctx, PacketBatch& batch, uint64_t now_ns) {
  ForwardingState& st = ctx.state();
  VersionPin pin(st);
  Runner r(st, *st.snap, now_ns, false);
  PacketContext pc;
  const bool frag_drop = (st.dp.config_flags.load(std::memory_order_relaxed) & of::config_flags::kFragMask) ==
                         of::config_flags::kFragDrop;
  for (Packet* pkt : batch.pkts) {
    bump(st.counters.packets);
    st.disposed = false;
    pc.pkt = pkt;
    pc.queue_id = 0;
    pc.reparse();
    if (frag_drop && pc.layers.frag) {
      bump(st.counters.frag_drops);
      continue;
    }
    r.cur_cookie = ~uint64_t(0);
    r.cur_miss = false;
    r.run_pipeline(pc, 0);
    if (!st.disposed) bump(st.counters.action_drops);
  }
}

void Datapath::packet_out(ForwardingContext& ctx, Packet& pkt, const of::ActionList& actions,
                          uint64_t now_ns) {
  ForwardingState& st = ctx.state();
  VersionPin pin(st);
  Runner r(st, *st.snap, now_ns, true);
  PacketContext pc;
  pc.pkt = &pkt;
  pc.reparse();
  r.cur_table = 0xff;
  r.exec_list(pc, actions, 0);
}

}  // namespace flowlab::dp

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
constexpr int kMaxDepth = kMaxGroupDepth;  // group nesting / clone levels
constexpr size_t kEthMinFrame = 60;        // Ethernet minimum without the FCS

class Runner {
 public:
  Runner(ForwardingState& st, const Snapshot& snap, uint64_t now, bool packet_out)
      : st_(st), snap_(snap), now_(now), packet_out_(packet_out) {}

  // From `table` to the end of the pipeline; `egress_output`: this runner
  // runs the egress tables for that output action (the action set starts with it).
  void run_pipeline(PacketContext& pc, uint8_t table, const of::Action* egress_output = nullptr);
  bool exec_list(PacketContext& pc, const of::ActionList& list, int depth);

  uint8_t cur_table = 0;
  uint64_t cur_cookie = ~uint64_t(0);
  bool cur_miss = false;

 private:
  bool exec(PacketContext& pc, const of::Action& a, int depth);
  void output(PacketContext& pc, uint32_t port, uint16_t max_len, int depth);
  void send(Packet& pkt, uint32_t port, uint32_t queue);
  void deliver(PacketContext& pc, uint32_t port);
  void run_egress(PacketContext& pc, uint32_t port);
  void to_controller(PacketContext& pc, of::PacketInReason reason, uint16_t max_len, bool of10_miss = false);
  void exec_group(PacketContext& pc, uint32_t id, int depth);
  void exec_bucket(PacketContext& pc, const Group& g, size_t i, int depth);
  bool bucket_live(const of::Bucket& b, int depth) const;
  bool invalid_ttl(PacketContext& pc);
  bool exec_action_set(PacketContext& pc, const ActionSet& as);

  ForwardingState& st_;
  const Snapshot& snap_;
  uint64_t now_;
  bool packet_out_;
  bool egress_ = false;       // running egress tables: outputs leave the switch
  uint32_t egress_port_ = 0;  // the port they run for
};

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
    default:
      r = apply_header_action(pc, a, st_.dp.cfg.of10);  // experimenter: rejected by validation
      break;
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

// OF1.5 egress processing: with a first egress table set, a packet an
// ingress table (its actions, its action set, a group they run) sends to a
// port goes through the egress tables first, once per port (FLOOD / ALL: each
// port), on a copy of its own, its action set holding only that output and
// actset_output that port. Outputs of the egress tables leave the switch.
// Packet-out's own outputs and CONTROLLER are not egress-processed.
void Runner::deliver(PacketContext& pc, uint32_t port) {
  if (egress_ || packet_out_ || !snap_.first_egress) return send(*pc.pkt, port, pc.queue_id);
  run_egress(pc, port);
}

void Runner::run_egress(PacketContext& pc, uint32_t port) {
  if (!st_.egress_clone) st_.egress_clone = std::make_unique<Packet>();
  copy_packet(*pc.pkt, *st_.egress_clone);
  PacketContext c = pc;
  c.pkt = st_.egress_clone.get();
  c.set_actset_output(port);
  const of::Action out = of::Action::output(port);
  Runner e(st_, snap_, now_, false);
  e.egress_ = true;
  e.egress_port_ = port;
  e.cur_cookie = ~uint64_t(0);
  e.run_pipeline(c, snap_.first_egress, &out);
}

void Runner::output(PacketContext& pc, uint32_t port, uint16_t max_len, int depth) {
  const uint32_t in_port = pc.pkt->in_port;
  st_.disposed = true;
  if (egress_ && port == egress_port_) {  // the action set's output (in_port too, if IN_PORT chose it)
    send(*pc.pkt, port, pc.queue_id);
    return;
  }
  switch (port) {
    case of::port::kInPort:
      if (in_port != 0 && (in_port <= of::port::kMax || in_port == of::port::kLocal)) deliver(pc, in_port);
      return;
    case of::port::kFlood:
    case of::port::kAll:
    case of::port::kNormal:  // NORMAL is treated as FLOOD (no L2 learning in the pipeline)
      if (!st_.dp.ports) return;
      st_.dp.ports->list_ports(st_.port_list);
      if (!egress_ && !packet_out_ && snap_.first_egress) {  // egress tables may flood (and list ports) too
        const std::vector<uint32_t> ports = st_.port_list;
        for (uint32_t p : ports)
          if (p != in_port) deliver(pc, p);
        return;
      }
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
      if (port != in_port) deliver(pc, port);
      return;
  }
}

bool Runner::bucket_live(const of::Bucket& b, int depth) const {
  return dp::bucket_live(b, *snap_.groups, st_.dp.ports, depth);
}

void Runner::exec_bucket(PacketContext& pc, const Group& g, size_t i, int depth) {
  const of::Bucket& b = g.buckets[i];
  g.counters->bucket_packets[i].fetch_add(1, std::memory_order_relaxed);
  g.counters->bucket_bytes[i].fetch_add(pc.pkt->size(), std::memory_order_relaxed);
  if (depth + 1 >= kMaxDepth) return;
  if (!bucket_modifies(b)) {
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
      pc.refresh();
      const int i =
          select_bucket(g, select_hash(pc.key), [&](const of::Bucket& b) { return bucket_live(b, depth); });
      if (i >= 0) exec_bucket(pc, g, size_t(i), depth);
      return;
    }
  }
}

bool Runner::exec_action_set(PacketContext& pc, const ActionSet& as) {
  return as.for_each([&](const of::Action& a) { return exec(pc, a, 0); });
}

void Runner::run_pipeline(PacketContext& pc, uint8_t table, const of::Action* egress_output) {
  ActionSet as;
  if (egress_output) {
    as.output = egress_output;
    as.used = true;
  }
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
    if (flow->clear_actions || flow->write)
      pc.set_actset_output(as.output && !as.group ? as.output->port : of::port::kUnset);
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
    pc.actset_output = of::port::kUnset;
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

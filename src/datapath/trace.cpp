// Trace (see trace.h): the pipeline's walk over one pinned snapshot, recorded
// instead of executed. Follows pipeline.cpp step for step; what it shares with
// it (header actions, the action set's order, bucket choice) is the same code.
#include "datapath/trace.h"

#include <fmt/format.h>

#include <algorithm>

#include "datapath/action_set.h"
#include "datapath/actions.h"
#include "datapath/datapath_impl.h"
#include "datapath/fast_path_decision.h"
#include "openflow/text/flow_text.h"

namespace flowlab::dp {
namespace {

using of::ActionType;

class Tracer {
 public:
  Tracer(ForwardingState& st, const Snapshot& snap, Trace& t) : st_(st), snap_(snap), t_(t) {}

  // From `table`; `egress_output`: this tracer runs the egress tables for that output.
  void run(PacketContext& pc, uint8_t table = 0, const of::Action* egress_output = nullptr);

 private:
  bool exec(PacketContext& pc, const of::Action& a, int depth, const std::string& via);
  bool exec_list(PacketContext& pc, const of::ActionList& list, int depth, const std::string& via);
  void output(PacketContext& pc, uint32_t port, uint16_t max_len, const std::string& via);
  void add_output(PacketContext& pc, uint32_t port, std::string via);
  void to_controller(of::PacketInReason reason, uint16_t max_len, std::string via);
  void group(PacketContext& pc, uint32_t id, int depth);
  void bucket(PacketContext& pc, const Group& g, size_t i, int depth, size_t gi);
  bool bucket_live(const of::Bucket& b, int depth) const {
    return dp::bucket_live(b, *snap_.groups, st_.dp.ports, depth);
  }
  bool invalid_ttl();
  std::shared_ptr<const TraceEgress> run_egress(PacketContext& pc, uint32_t port);

  ForwardingState& st_;
  const Snapshot& snap_;
  Trace& t_;
  std::vector<TraceGroup>* groups_ = nullptr;  // where the groups run now are recorded
  bool cur_miss = false;
  bool egress_ = false;       // tracing egress tables: outputs leave the switch
  uint32_t egress_port_ = 0;  // the port they run for
};

bool Tracer::invalid_ttl() {
  t_.drop_reason = "invalid TTL";
  if (st_.dp.config_flags.load(std::memory_order_relaxed) & kInvalidTtlToController)
    to_controller(of::PacketInReason::kInvalidTtl, st_.dp.miss_send_len.load(std::memory_order_relaxed),
                  "invalid TTL");
  return false;
}

bool Tracer::exec(PacketContext& pc, const of::Action& a, int depth, const std::string& via) {
  switch (a.type) {
    case ActionType::kOutput:
      output(pc, a.port, a.max_len, via);
      return true;
    case ActionType::kEnqueue: {
      const uint32_t q = pc.queue_id;
      pc.queue_id = a.queue_id;
      output(pc, a.port, 0, via);
      pc.queue_id = q;
      return true;
    }
    case ActionType::kSetQueue:
      pc.queue_id = a.queue_id;
      return true;
    case ActionType::kGroup:
      group(pc, a.group_id, depth);
      return true;
    default:
      if (apply_header_action(pc, a, st_.dp.cfg.of10) == ActionResult::kInvalidTtl) return invalid_ttl();
      return true;
  }
}

bool Tracer::exec_list(PacketContext& pc, const of::ActionList& list, int depth, const std::string& via) {
  for (const of::Action& a : list)
    if (!exec(pc, a, depth, via)) return false;
  return true;
}

void Tracer::add_output(PacketContext& pc, uint32_t port, std::string via) {
  if (st_.dp.ports) {  // the switch drops an output to a port it does not have
    st_.dp.ports->list_ports(st_.port_list);
    if (std::find(st_.port_list.begin(), st_.port_list.end(), port) == st_.port_list.end()) {
      t_.notes.push_back(
          fmt::format("{}: output:{} names no port of this switch: not sent", via, of::format_port(port)));
      return;
    }
  }
  TraceOutput o;
  o.port = port;
  o.queue_id = pc.queue_id;
  o.via = std::move(via);
  if (!egress_ && snap_.first_egress) o.egress = run_egress(pc, port);
  t_.outputs.push_back(std::move(o));
}

// As the pipeline's run_egress: a copy of the packet, actset_output `port`,
// the action set holding only output:port, from the first egress table.
std::shared_ptr<const TraceEgress> Tracer::run_egress(PacketContext& pc, uint32_t port) {
  Trace sub;
  Packet clone(pc.pkt->size() + 256);
  copy_packet(*pc.pkt, clone);
  PacketContext c = pc;
  c.pkt = &clone;
  c.set_actset_output(port);
  const of::Action out = of::Action::output(port);
  Tracer e(st_, snap_, sub);
  e.egress_ = true;
  e.egress_port_ = port;
  e.run(c, snap_.first_egress, &out);
  auto r = std::make_shared<TraceEgress>();
  r->port = port;
  r->tables = std::move(sub.tables);
  r->set_groups = std::move(sub.set_groups);
  r->outputs = std::move(sub.outputs);
  r->notes = std::move(sub.notes);
  r->drop_reason = std::move(sub.drop_reason);
  if (!r->delivered() && r->drop_reason.empty())
    r->drop_reason = fmt::format("the egress action set has no output:{}", of::format_port(port));
  return r;
}

void Tracer::to_controller(of::PacketInReason reason, uint16_t max_len, std::string via) {
  TraceOutput o;
  o.port = of::port::kController;
  o.via = std::move(via);
  o.reason = reason;
  o.max_len = max_len;
  t_.outputs.push_back(std::move(o));
}

void Tracer::output(PacketContext& pc, uint32_t port, uint16_t max_len, const std::string& via) {
  const uint32_t in_port = pc.pkt->in_port;
  if (egress_ && port == egress_port_) {  // the egress action set's output (the in_port too)
    add_output(pc, port, via);
    return;
  }
  switch (port) {
    case of::port::kInPort:
      if (in_port != 0 && (in_port <= of::port::kMax || in_port == of::port::kLocal))
        add_output(pc, in_port, via + " IN_PORT");
      else
        t_.notes.push_back(fmt::format("{}: output:IN_PORT with in_port {} is not a port", via, in_port));
      return;
    case of::port::kFlood:
    case of::port::kAll:
    case of::port::kNormal: {  // NORMAL is FLOOD in the pipeline (no L2 learning)
      const char* name = port == of::port::kFlood ? "FLOOD" : port == of::port::kAll ? "ALL" : "NORMAL";
      if (st_.dp.ports) st_.dp.ports->list_ports(st_.port_list);
      size_t n = 0;
      if (st_.dp.ports)
        for (uint32_t p : st_.port_list)
          if (p != in_port) {
            add_output(pc, p, fmt::format("{} {}", via, name));
            ++n;
          }
      if (n == 0) t_.notes.push_back(fmt::format("{}: {} reaches no port", via, name));
      return;
    }
    case of::port::kController:
      to_controller(cur_miss ? of::PacketInReason::kNoMatch : of::PacketInReason::kAction, max_len, via);
      return;
    case of::port::kTable:
      t_.notes.push_back(fmt::format("{}: output:TABLE only runs in a packet-out", via));
      return;
    case of::port::kAny:
    case 0:
      t_.notes.push_back(fmt::format("{}: output to port {} goes nowhere", via, port));
      return;
    default:
      if (port != in_port)
        add_output(pc, port, via);
      else
        t_.notes.push_back(
            fmt::format("{}: output:{} is the in_port: not sent (OpenFlow needs IN_PORT)", via, port));
      return;
  }
}

void Tracer::bucket(PacketContext& pc, const Group& g, size_t i, int depth, size_t gi) {
  (*groups_)[gi].buckets.push_back(uint32_t(i));
  if (depth + 1 >= kMaxGroupDepth) {
    t_.notes.push_back(fmt::format("group {}: nested deeper than {}: bucket not run", g.id, kMaxGroupDepth));
    return;
  }
  const of::Bucket& b = g.buckets[i];
  const std::string via = fmt::format("group {} bucket {}", g.id, i);
  if (!bucket_modifies(b)) {
    const uint32_t q = pc.queue_id;
    exec_list(pc, b.actions, depth + 1, via);
    pc.queue_id = q;
    return;
  }
  Packet clone(pc.pkt->size() + 256);  // room for the pushes a bucket may do
  copy_packet(*pc.pkt, clone);
  PacketContext c = pc;
  c.pkt = &clone;
  exec_list(c, b.actions, depth + 1, via);
}

void Tracer::group(PacketContext& pc, uint32_t id, int depth) {
  const size_t gi = groups_->size();
  groups_->emplace_back().group_id = id;
  auto it = snap_.groups->find(id);
  if (it == snap_.groups->end()) {
    (*groups_)[gi].exists = false;
    t_.notes.push_back(fmt::format("group {} does not exist: nothing done", id));
    return;
  }
  if (depth >= kMaxGroupDepth) return;
  const Group& g = *it->second;
  (*groups_)[gi].type = g.type;
  (*groups_)[gi].n_buckets = g.buckets.size();
  switch (g.type) {
    case of::GroupType::kAll:
      for (size_t i = 0; i < g.buckets.size(); ++i) bucket(pc, g, i, depth, gi);
      return;
    case of::GroupType::kIndirect:
      if (!g.buckets.empty()) bucket(pc, g, 0, depth, gi);
      return;
    case of::GroupType::kFastFailover:
      for (size_t i = 0; i < g.buckets.size(); ++i)
        if (bucket_live(g.buckets[i], depth)) {
          bucket(pc, g, i, depth, gi);
          return;
        }
      t_.notes.push_back(fmt::format("group {} (fast failover): no live bucket", id));
      return;
    case of::GroupType::kSelect: {
      pc.refresh();
      const int i =
          select_bucket(g, select_hash(pc.key), [&](const of::Bucket& b) { return bucket_live(b, depth); });
      if (i >= 0)
        bucket(pc, g, size_t(i), depth, gi);
      else
        t_.notes.push_back(fmt::format("group {} (select): no live bucket with a weight", id));
      return;
    }
  }
}

void Tracer::run(PacketContext& pc, uint8_t table, const of::Action* egress_output) {
  ActionSet as;
  if (egress_output) {
    as.output = egress_output;
    as.used = true;
  }
  const size_t n_tables = snap_.tables.size();
  for (;;) {
    if (table >= n_tables) {
      t_.drop_reason = fmt::format("goto table {}: the switch has {} tables", table, n_tables);
      return;
    }
    pc.refresh();
    const FlowEntry* flow = snap_.tables[table]->view->lookup(pc.key, snap_.version);
    const size_t ti = t_.tables.size();
    t_.tables.emplace_back().table_id = table;
    if (!flow) {
      if (st_.dp.cfg.of10 || st_.dp.of10_miss.load(std::memory_order_relaxed))
        to_controller(of::PacketInReason::kNoMatch, st_.dp.miss_send_len.load(std::memory_order_relaxed),
                      fmt::format("table {} miss (OpenFlow 1.0 controller)", table));
      else
        t_.drop_reason = fmt::format("no flow matched in table {} and it has no table-miss flow", table);
      return;
    }
    {
      TraceTable& tt = t_.tables[ti];
      tt.matched = true;
      tt.priority = flow->priority;
      tt.cookie = flow->cookie;
      tt.match = flow->match.unpack();
      tt.instructions = flow->instructions();
      tt.meter_id = flow->meter_id;
      tt.meter_exists = flow->meter_id && snap_.meters->count(flow->meter_id);
    }
    cur_miss = flow->table_miss;
    groups_ = &t_.tables[ti].groups;
    if (flow->apply && !exec_list(pc, *flow->apply, 0, fmt::format("table {} apply-actions", table))) return;
    if (flow->clear_actions) as.clear();
    if (flow->write) as.write(*flow->write);
    if (flow->clear_actions || flow->write)  // what later tables match as actset_output
      pc.set_actset_output(as.output && !as.group ? as.output->port : of::port::kUnset);
    as.for_each([&](const of::Action& a) {
      t_.tables[ti].action_set.push_back(a);
      return true;
    });
    if (flow->write_metadata) {
      pc.pkt->metadata = (pc.pkt->metadata & ~flow->metadata_mask) | (flow->metadata & flow->metadata_mask);
      pc.key.metadata = pc.pkt->metadata;
    }
    if (flow->goto_table < 0) break;
    t_.tables[ti].goto_table = flow->goto_table;
    table = uint8_t(flow->goto_table);
  }
  groups_ = &t_.set_groups;
  as.for_each(
      [&](const of::Action& a) { return exec(pc, a, 0, egress_ ? "egress action set" : "action set"); });
}

}  // namespace

Trace trace_packet(ForwardingContext& ctx, const Packet& pkt,
                   const std::function<bool(uint32_t)>* fast_path_ports) {
  Trace t;
  t.in_port = pkt.in_port;
  t.packet_len = pkt.size();
  ForwardingState& st = ctx.state();
  Packet copy(pkt.size() + 256);  // the pushes of apply-actions need room after the frame
  copy_packet(pkt, copy);
  PacketContext pc;
  pc.pkt = &copy;
  pc.reparse();
  const bool frag_drop = (st.dp.config_flags.load(std::memory_order_relaxed) & of::config_flags::kFragMask) ==
                         of::config_flags::kFragDrop;
  {
    VersionPin pin(st);
    t.version = st.snap->version;
    if (frag_drop && pc.layers.frag) {
      t.drop_reason = "IP fragment dropped before the tables (set-config frag=drop)";
    } else {
      Tracer(st, *st.snap, t).run(pc);
    }
  }
  if (t.outputs.empty() && t.drop_reason.empty())
    t.drop_reason = t.notes.empty() ? "no output action" : "nothing sent (see the notes)";
  if (fast_path_ports) {  // after the walk's pin: decide_for_fast_path pins its own
    FlowKey key;
    PacketLayers layers;
    extract_flow_key(pkt, key, layers);
    t.fast_path = decide_for_fast_path(ctx, key, *fast_path_ports) ? Trace::FastPath::kCacheable
                                                                   : Trace::FastPath::kNotCacheable;
  }
  return t;
}

}  // namespace flowlab::dp

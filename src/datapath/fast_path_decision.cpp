// FastPathDecision (see fast_path_decision.h): the pipeline's table walk for a
// key, recorded as kernel-runnable ops instead of executed.
#include "datapath/fast_path_decision.h"

#include <cstring>

#include "datapath/datapath_impl.h"
#include "packet/headers.h"

namespace flowlab::dp {
namespace {

using Kind = FastPathOp::Kind;

void or_word(FlowKey& k, size_t i, uint64_t bits) {
  uint64_t w = key_word(k, i) | bits;
  std::memcpy(reinterpret_cast<uint8_t*>(&k) + 8 * i, &w, 8);
}
constexpr uint8_t kTcp = 6, kUdp = 17, kIcmp = 1;

class Recorder {
 public:
  Recorder(FastPathDecision& d, FlowKey& key, const std::function<bool(uint32_t)>& usable,
           const PortView* ports, const GroupTable* groups)
      : d_(d), key_(key), usable_(usable), ports_(ports), groups_(groups) {}

  bool add(Kind k, uint32_t port = 0, uint64_t value = 0) {
    if (d_.n_ops == FastPathDecision::kMaxOps) return false;
    d_.ops[d_.n_ops++] = FastPathOp{k, port, value};
    return true;
  }

  bool output(uint32_t port) {
    if (port == of::port::kFlood || port == of::port::kAll || port == of::port::kNormal) {
      // As the pipeline floods (NORMAL is FLOOD there): every listed port but
      // in_port, in list order; one that cannot bypass the slow path (LOCAL,
      // a TAP, port config) keeps the whole decision in the slow path.
      if (!ports_) return true;
      ports_->list_ports(flood_);
      for (uint32_t p : flood_) {
        if (p == key_.in_port) continue;
        if (p == 0 || p > of::port::kMax || !usable_(p) || !add(Kind::kOutput, p)) return false;
      }
      return true;
    }
    if (port == of::port::kInPort)
      port = key_.in_port;
    else if (port == key_.in_port)
      return true;  // OpenFlow: never back out of in_port without IN_PORT
    if (port == 0 || port > of::port::kMax || !usable_(port)) return false;
    return add(Kind::kOutput, port);
  }

  bool set_field(const of::OxmField& f) {
    if (!f.is_basic() || f.has_mask) return false;
    const uint64_t v = f.value_u64();
    switch (f.id()) {
      case of::OxmId::kEthSrc:
        for (int i = 0; i < 6; ++i) key_.eth_src[i] = uint8_t(v >> (40 - 8 * i));
        return add(Kind::kSetEthSrc, 0, v);
      case of::OxmId::kEthDst:
        for (int i = 0; i < 6; ++i) key_.eth_dst[i] = uint8_t(v >> (40 - 8 * i));
        return add(Kind::kSetEthDst, 0, v);
      case of::OxmId::kIpv4Src:
        d_.read_mask.ip_proto = 0xff;  // the checksum fixup depends on the protocol
        if (key_.ip_proto != kTcp && key_.ip_proto != kUdp && key_.ip_proto != kIcmp) return false;
        key_.ipv4_src = uint32_t(v);
        return add(Kind::kSetIpv4Src, 0, v);
      case of::OxmId::kIpv4Dst:
        d_.read_mask.ip_proto = 0xff;
        if (key_.ip_proto != kTcp && key_.ip_proto != kUdp && key_.ip_proto != kIcmp) return false;
        key_.ipv4_dst = uint32_t(v);
        return add(Kind::kSetIpv4Dst, 0, v);
      case of::OxmId::kTcpSrc:
      case of::OxmId::kUdpSrc:
        d_.read_mask.ip_proto = 0xff;
        if (key_.ip_proto != (f.id() == of::OxmId::kTcpSrc ? kTcp : kUdp)) return false;
        key_.tp_src = uint16_t(v);
        return add(Kind::kSetTpSrc, 0, v);
      case of::OxmId::kTcpDst:
      case of::OxmId::kUdpDst:
        d_.read_mask.ip_proto = 0xff;
        if (key_.ip_proto != (f.id() == of::OxmId::kTcpDst ? kTcp : kUdp)) return false;
        key_.tp_dst = uint16_t(v);
        return add(Kind::kSetTpDst, 0, v);
      default:
        return false;
    }
  }

  // An apply-actions list, in order.
  bool apply(const of::ActionList& list) {
    for (const of::Action& a : list) {
      switch (a.type) {
        case of::ActionType::kOutput:
          if (!output(a.port)) return false;
          break;
        case of::ActionType::kSetField:
          if (!set_field(a.field)) return false;
          break;
        case of::ActionType::kDecNwTtl:
          if (!add(Kind::kDecTtl)) return false;
          break;
        case of::ActionType::kSetQueue:  // queues are not modelled on output
          break;
        case of::ActionType::kGroup:
          if (!group(a.group_id)) return false;
          break;
        default:
          return false;
      }
    }
    return true;
  }

  // Group ALL (every bucket) or INDIRECT (its one bucket) whose buckets only
  // output: each bucket sees the packet as the group got it, as the pipeline
  // runs a bucket that modifies nothing on the packet itself. Buckets that
  // modify (they run on a copy there), nested groups, select and fast-failover
  // stay in the slow path.
  bool group(uint32_t id) {
    if (!groups_ || d_.n_groups == FastPathDecision::kMaxGroups) return false;
    auto it = groups_->find(id);
    if (it == groups_->end()) return true;  // the pipeline does nothing either
    const Group& g = *it->second;
    if (g.type != of::GroupType::kAll && g.type != of::GroupType::kIndirect) return false;
    const size_t n = g.type == of::GroupType::kAll ? g.buckets.size() : std::min<size_t>(g.buckets.size(), 1);
    for (size_t b = 0; b < n; ++b)
      for (const of::Action& a : g.buckets[b].actions) {
        if (a.type == of::ActionType::kSetQueue) continue;
        if (a.type != of::ActionType::kOutput || !output(a.port)) return false;
      }
    d_.groups[d_.n_groups++] = FastPathDecision::GroupHit{g.counters, uint16_t(n)};
    return true;
  }

 private:
  FastPathDecision& d_;
  FlowKey& key_;
  const std::function<bool(uint32_t)>& usable_;
  const PortView* ports_;
  const GroupTable* groups_;
  std::vector<uint32_t> flood_;
};

// The OF1.3 action set of write-actions, restricted to what the kernel runs:
// executed in the spec's order (dec TTL, set-field, output).
struct WrittenSet {
  bool dec_ttl = false;
  std::array<const of::Action*, of::kNumBasicOxm> fields{};
  const of::Action* output = nullptr;
  const of::Action* group = nullptr;  // replaces the output when set (OF1.3 5.10)
  bool ok = true;

  void clear() { *this = WrittenSet{}; }
  void write(const of::ActionList& list) {
    for (const of::Action& a : list) {
      switch (a.type) {
        case of::ActionType::kDecNwTtl:
          dec_ttl = true;
          break;
        case of::ActionType::kSetField:
          if (a.field.is_basic() && a.field.field < of::kNumBasicOxm)
            fields[a.field.field] = &a;
          else
            ok = false;
          break;
        case of::ActionType::kOutput:
          output = &a;
          break;
        case of::ActionType::kGroup:
          group = &a;
          break;
        case of::ActionType::kSetQueue:
          break;
        default:
          ok = false;
      }
    }
  }
};

}  // namespace

std::optional<FastPathDecision> decide_for_fast_path(ForwardingContext& ctx, const FlowKey& in_key,
                                                     const std::function<bool(uint32_t)>& port_usable) {
  ForwardingState& st = ctx.state();
  VersionPin pin(st);  // called after the batch: pin a version so no rule is reclaimed under us
  if (!st.snap) return std::nullopt;
  const Snapshot& snap = *st.snap;
  if (in_key.eth_type != 0x0800 || in_key.vlan_vid != 0 || in_key.metadata != 0) return std::nullopt;
  if (!port_usable(in_key.in_port)) return std::nullopt;
  FastPathDecision d;
  d.version = snap.version;
  FlowKey key = in_key;
  key.actset_output = of::port::kUnset;  // as the pipeline starts it
  Recorder rec(d, key, port_usable, st.dp.ports, snap.groups.get());
  WrittenSet as;
  uint8_t table = 0;
  for (;;) {
    if (table >= snap.tables.size()) return std::nullopt;
    const Classifier::View& view = *snap.tables[table]->view;
    const FlowEntry* flow = view.lookup(key, snap.version);
    for (size_t w = 0; w < kFlowKeyWords; ++w) or_word(d.read_mask, w, key_word(view.fields_read(), w));
    // actset_output is not in the kernel's key and follows the action set,
    // which this walk does not track into the key: a table that reads it keeps
    // the decision in the slow path.
    if (d.read_mask.actset_output != 0) return std::nullopt;
    if (!flow) {
      if (st.dp.cfg.of10 || st.dp.of10_miss.load(std::memory_order_relaxed)) return std::nullopt;
      d.miss_table = table;
      d.n_ops = 0;  // OF1.3 table miss without a table-miss flow: drop, action set discarded
      return d;
    }
    if (d.n_flows == FastPathDecision::kMaxFlows || flow->meter_id) return std::nullopt;
    d.flows[d.n_flows] = flow->counters;
    d.tables[d.n_flows++] = table;
    if (flow->apply && !rec.apply(*flow->apply)) return std::nullopt;
    if (flow->clear_actions) as.clear();
    if (flow->write) as.write(*flow->write);
    if (!as.ok) return std::nullopt;
    if (flow->write_metadata)
      key.metadata = (key.metadata & ~flow->metadata_mask) | (flow->metadata & flow->metadata_mask);
    if (flow->goto_table < 0) break;
    table = uint8_t(flow->goto_table);
  }
  // OF1.5 egress tables run per output port on a copy (pipeline.cpp): while
  // they are set, a decision that outputs stays in the slow path.
  if (snap.first_egress && (as.output || as.group || d.n_groups || [&] {
        for (size_t i = 0; i < d.n_ops; ++i)
          if (d.ops[i].kind == Kind::kOutput) return true;
        return false;
      }()))
    return std::nullopt;
  if (as.dec_ttl && !rec.add(Kind::kDecTtl)) return std::nullopt;
  for (const of::Action* a : as.fields)
    if (a && !rec.set_field(a->field)) return std::nullopt;
  if (as.group) {
    if (!rec.group(as.group->group_id)) return std::nullopt;
  } else if (as.output && !rec.output(as.output->port)) {
    return std::nullopt;
  }
  return d;
}

void account_fast_path_hits(Datapath& dp, const FastPathDecision& d, uint64_t packets, uint64_t bytes,
                            uint64_t now_ns) {
  if (packets == 0) return;
  for (size_t i = 0; i < d.n_flows; ++i) {
    FlowCounters& fc = *d.flows[i];
    fc.packets.fetch_add(packets, std::memory_order_relaxed);
    fc.bytes.fetch_add(bytes, std::memory_order_relaxed);
    if (fc.last_used_ns.load(std::memory_order_relaxed) < now_ns)
      fc.last_used_ns.store(now_ns, std::memory_order_relaxed);
  }
  for (size_t i = 0; i < d.n_groups; ++i) {
    GroupCounters& gc = *d.groups[i].counters;
    gc.packets.fetch_add(packets, std::memory_order_relaxed);
    gc.bytes.fetch_add(bytes, std::memory_order_relaxed);
    for (size_t b = 0; b < d.groups[i].n_buckets && b < gc.bucket_packets.size(); ++b) {
      gc.bucket_packets[b].fetch_add(packets, std::memory_order_relaxed);
      gc.bucket_bytes[b].fetch_add(bytes, std::memory_order_relaxed);
    }
  }
  DatapathImpl& impl = dp.impl();
  std::lock_guard lk(impl.reg_mu);
  CounterTotals& t = impl.retired;
  t.dp.packets += packets;
  for (size_t i = 0; i < d.n_flows; ++i) {
    if (d.tables[i] < t.lookups.size()) t.lookups[d.tables[i]] += packets;
    if (d.tables[i] < t.matches.size()) t.matches[d.tables[i]] += packets;
  }
  if (d.miss_table < t.lookups.size()) {
    t.lookups[d.miss_table] += packets;
    t.dp.table_miss_drops += packets;
  }
  if (d.n_ops == 0 || [&] {
        for (size_t i = 0; i < d.n_ops; ++i)
          if (d.ops[i].kind == Kind::kOutput) return false;
        return true;
      }())
    if (d.miss_table == 0xff) t.dp.action_drops += packets;
}

}  // namespace flowlab::dp

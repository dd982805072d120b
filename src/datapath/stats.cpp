// Multipart replies: flow / aggregate / table / group / meter statistics,
// descriptions and features of what this pipeline supports.
#include <fmt/format.h>

#include <algorithm>

#include "datapath/datapath_impl.h"

namespace flowlab::dp {
namespace {

const std::vector<uint16_t> kActionTypes = {0, 11, 12, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25};
const std::vector<uint16_t> kInstructionTypes = {1, 2, 3, 4, 5, 6};

uint32_t oxm_header(uint8_t field, uint8_t len) {
  return uint32_t(of::kOxmClassBasic) << 16 | uint32_t(field) << 9 | len;
}

bool settable(of::OxmId id) {
  switch (id) {
    case of::OxmId::kInPort:
    case of::OxmId::kInPhyPort:
    case of::OxmId::kMetadata:
    case of::OxmId::kEthType:
    case of::OxmId::kIpProto:
    case of::OxmId::kIpv6Exthdr:
    case of::OxmId::kTcpFlags:
    case of::OxmId::kActsetOutput:
    case of::OxmId::kPacketType:
      return false;
    default:
      return true;
  }
}

Result<MaskedKey, of::OfError> stats_filter(const DatapathImpl& d, const of::FlowStatsRequest& req) {
  if (req.table_id != of::table::kAll && req.table_id >= d.tables.size())
    return unexpected(of::OfError::make(of::BadRequestCode::kBadTableId,
                                        fmt::format("table {} does not exist", req.table_id)));
  return compile_match(d.cfg.of10 ? of10_effective_match(req.match) : req.match);
}

}  // namespace

Result<of::FlowStatsReply, of::OfError> Datapath::flow_stats(const of::FlowStatsRequest& req,
                                                             uint64_t now_ns) const {
  const DatapathImpl& d = *impl_;
  d.sync_stats();
  std::lock_guard lk(d.mu);
  FLOWLAB_ASSIGN_OR_RETURN(MaskedKey filter, stats_filter(d, req));
  of::FlowStatsReply reply;
  reply.stats_only = req.stats_only;
  d.for_each_filtered(req.table_id, filter, req.cookie, req.cookie_mask, req.out_port, req.out_group,
                      [&](const FlowEntry& e) {
                        of::FlowStats fs;
                        fs.table_id = e.table_id;
                        fill_duration(e.created_ns, now_ns, fs.duration_sec, fs.duration_nsec);
                        fs.has_idle_time = true;
                        fill_duration(
                            std::max(e.created_ns, e.counters->last_used_ns.load(std::memory_order_relaxed)),
                            now_ns, fs.idle_sec, fs.idle_nsec);
                        fs.priority = e.priority;
                        fs.idle_timeout = e.idle_timeout;
                        fs.hard_timeout = e.hard_timeout;
                        fs.flags = e.flags;
                        fs.importance = e.importance;
                        fs.cookie = e.cookie;
                        fs.packet_count = e.counters->packets.load(std::memory_order_relaxed);
                        fs.byte_count = e.counters->bytes.load(std::memory_order_relaxed);
                        fs.match = e.match.unpack();
                        fs.instructions = e.instructions();
                        reply.stats.push_back(std::move(fs));
                      });
  return reply;
}

Result<of::AggregateStatsReply, of::OfError> Datapath::aggregate_stats(
    const of::FlowStatsRequest& req) const {
  const DatapathImpl& d = *impl_;
  d.sync_stats();
  std::lock_guard lk(d.mu);
  FLOWLAB_ASSIGN_OR_RETURN(MaskedKey filter, stats_filter(d, req));
  of::AggregateStatsReply reply;
  d.for_each_filtered(req.table_id, filter, req.cookie, req.cookie_mask, req.out_port, req.out_group,
                      [&](const FlowEntry& e) {
                        reply.packet_count += e.counters->packets.load(std::memory_order_relaxed);
                        reply.byte_count += e.counters->bytes.load(std::memory_order_relaxed);
                        ++reply.flow_count;
                      });
  return reply;
}

of::TableStatsReply Datapath::table_stats() const {
  const DatapathImpl& d = *impl_;
  d.sync_stats();
  CounterTotals totals;
  {
    std::lock_guard lk(d.reg_mu);
    totals = d.retired;
    for (const ForwardingState* s : d.states) totals.add(s->counters);
  }
  std::lock_guard lk(d.mu);
  of::TableStatsReply reply;
  for (size_t t = 0; t < d.tables.size(); ++t) {
    of::TableStats ts;
    ts.table_id = uint8_t(t);
    ts.active_count = uint32_t(d.tables[t].flows.size());
    ts.lookup_count = t < totals.lookups.size() ? totals.lookups[t] : 0;
    ts.matched_count = t < totals.matches.size() ? totals.matches[t] : 0;
    ts.name = fmt::format("table{}", t);
    ts.wildcards = 0x3fffff;  // OF1.0: every field wildcardable
    ts.max_entries = uint32_t(d.cfg.table_size);
    reply.stats.push_back(std::move(ts));
  }
  return reply;
}

of::GroupStatsReply Datapath::group_stats(const of::GroupStatsRequest& req, uint64_t now_ns) const {
  const DatapathImpl& d = *impl_;
  d.sync_stats();  // groups run in the kernel fast path too: fold its hits first
  std::lock_guard lk(d.mu);
  of::GroupStatsReply reply;
  for (const auto& [id, g] : d.groups) {
    if (req.group_id != of::group::kAll && req.group_id != id) continue;
    of::GroupStats gs;
    gs.group_id = id;
    for (const TableState& t : d.tables)
      for (const auto& e : t.flows)
        if (e->uses_group(id)) ++gs.ref_count;
    for (const auto& [other_id, other] : d.groups)
      for (const of::Bucket& b : other->buckets)
        for (const of::Action& a : b.actions)
          if (a.type == of::ActionType::kGroup && a.group_id == id) ++gs.ref_count;
    gs.packet_count = g->counters->packets.load(std::memory_order_relaxed);
    gs.byte_count = g->counters->bytes.load(std::memory_order_relaxed);
    fill_duration(g->created_ns, now_ns, gs.duration_sec, gs.duration_nsec);
    for (size_t i = 0; i < g->buckets.size(); ++i)
      gs.buckets.push_back({g->counters->bucket_packets[i].load(std::memory_order_relaxed),
                            g->counters->bucket_bytes[i].load(std::memory_order_relaxed)});
    reply.stats.push_back(std::move(gs));
  }
  return reply;
}

of::GroupDescReply Datapath::group_desc() const {
  const DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  of::GroupDescReply reply;
  for (const auto& [id, g] : d.groups) reply.groups.push_back({g->type, id, g->buckets});
  return reply;
}

of::GroupFeaturesReply Datapath::group_features() const {
  of::GroupFeaturesReply r;
  r.types = 0xf;         // all, select, indirect, fast-failover
  r.capabilities = 0xf;  // select weight, select liveness, chaining, chaining checks
  uint32_t actions = 0;
  for (uint16_t t : kActionTypes) actions |= 1u << t;
  for (int i = 0; i < 4; ++i) {
    r.max_groups[size_t(i)] = 65536;
    r.actions[size_t(i)] = actions;
  }
  return r;
}

of::MeterStatsReply Datapath::meter_stats(const of::MeterStatsRequest& req, uint64_t now_ns) const {
  const DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  of::MeterStatsReply reply;
  for (const auto& [id, m] : d.meters) {
    if (req.meter_id != of::meter::kAll && req.meter_id != id) continue;
    of::MeterStats ms;
    ms.meter_id = id;
    for (const TableState& t : d.tables)
      for (const auto& e : t.flows)
        if (e->meter_id == id) ++ms.flow_count;
    ms.packet_in_count = m->state->packets.load(std::memory_order_relaxed);
    ms.byte_in_count = m->state->bytes.load(std::memory_order_relaxed);
    fill_duration(m->created_ns, now_ns, ms.duration_sec, ms.duration_nsec);
    for (size_t i = 0; i < m->bands.size(); ++i)
      ms.bands.push_back({m->state->band_packets[i].load(std::memory_order_relaxed),
                          m->state->band_bytes[i].load(std::memory_order_relaxed)});
    reply.stats.push_back(std::move(ms));
  }
  return reply;
}

of::MeterConfigReply Datapath::meter_config(const of::MeterConfigRequest& req) const {
  const DatapathImpl& d = *impl_;
  std::lock_guard lk(d.mu);
  of::MeterConfigReply reply;
  for (const auto& [id, m] : d.meters) {
    if (req.meter_id != of::meter::kAll && req.meter_id != id) continue;
    reply.configs.push_back({m->flags, id, m->bands});
  }
  return reply;
}

of::MeterFeaturesReply Datapath::meter_features() const {
  of::MeterFeaturesReply r;
  r.max_meter = kMaxMeters;
  r.band_types = 1u << uint16_t(of::MeterBandType::kDrop) | 1u << uint16_t(of::MeterBandType::kDscpRemark);
  r.capabilities =
      of::meter_flags::kKbps | of::meter_flags::kPktps | of::meter_flags::kBurst | of::meter_flags::kStats;
  r.max_bands = kMaxMeterBands;
  r.max_color = 0;
  return r;
}

of::TableFeaturesReply Datapath::table_features() const {
  const uint8_t n = impl_->cfg.n_tables;
  std::vector<uint32_t> insts(kInstructionTypes.begin(), kInstructionTypes.end());
  std::vector<uint32_t> acts(kActionTypes.begin(), kActionTypes.end());
  std::vector<uint32_t> match, setf;
  for (int f = 0; f < of::kNumBasicOxm; ++f) {
    const of::OxmFieldInfo* info = of::oxm_info(of::OxmId(f));
    if (!info) continue;
    match.push_back(oxm_header(uint8_t(f), info->length));
    if (settable(of::OxmId(f))) setf.push_back(oxm_header(uint8_t(f), info->length));
  }
  using P = of::TableFeaturePropType;
  of::TableFeaturesReply reply;
  // OF1.5: every table can be an ingress table, all but table 0 an egress
  // table; ingress tables go to ingress tables only, egress tables neither
  // write an output or group into the action set nor run a group (validate.cpp).
  const uint8_t fe = first_egress();
  const uint8_t ingress_end = fe ? fe : n;
  std::vector<uint32_t> egress_write = acts, egress_apply = acts;
  for (auto* v : {&egress_write, &egress_apply}) std::erase(*v, uint32_t(of::ActionType::kGroup));
  std::erase(egress_write, uint32_t(of::ActionType::kOutput));
  for (uint8_t t = 0; t < n; ++t) {
    of::TableFeatures tf;
    tf.table_id = t;
    const bool egress = fe && t >= fe;
    tf.features = of::table_features::kIngressTable | (t ? of::table_features::kEgressTable : 0) |
                  (fe && t == fe ? of::table_features::kFirstEgress : 0);
    tf.name = fmt::format("table{}", t);
    tf.metadata_match = ~uint64_t(0);
    tf.metadata_write = ~uint64_t(0);
    tf.max_entries = uint32_t(impl_->cfg.table_size);
    std::vector<uint32_t> next;
    for (uint32_t u = t + 1u; u < (egress ? n : ingress_end); ++u) next.push_back(u);
    std::vector<uint32_t> ti = insts;
    if (next.empty()) std::erase(ti, uint32_t(of::InstructionType::kGotoTable));
    auto prop = [&](P type, const std::vector<uint32_t>& ids) {
      of::TableFeatureProp p;
      p.type = type;
      p.ids = ids;
      tf.properties.push_back(std::move(p));
    };
    prop(P::kInstructions, ti);
    prop(P::kInstructionsMiss, ti);
    prop(P::kNextTables, next);
    prop(P::kNextTablesMiss, next);
    prop(P::kWriteActions, egress ? egress_write : acts);
    prop(P::kWriteActionsMiss, egress ? egress_write : acts);
    prop(P::kApplyActions, egress ? egress_apply : acts);
    prop(P::kApplyActionsMiss, egress ? egress_apply : acts);
    prop(P::kMatch, match);
    prop(P::kWildcards, match);
    prop(P::kWriteSetfield, setf);
    prop(P::kWriteSetfieldMiss, setf);
    prop(P::kApplySetfield, setf);
    prop(P::kApplySetfieldMiss, setf);
    reply.tables.push_back(std::move(tf));
  }
  return reply;
}

}  // namespace flowlab::dp

// Multipart replies -> Ryu's JSON (see ryu_stats.h).
#include "rest/ryu_stats.h"

#include "openflow/codec.h"
#include "rest/ryu_request.h"

namespace flowlab::rest {

namespace {

// Ryu reports each entry's wire length ("length", "len"); encode it alone to know it.
template <typename Reply, typename Entry>
uint64_t wire_length(uint8_t version, const Entry& e, std::vector<Entry> Reply::*list) {
  Reply r;
  (r.*list).push_back(e);
  auto bytes = of::encode_message(of::make_message(version, 0, of::MultipartReply{0, std::move(r)}));
  size_t header = version >= of::kOf13 ? 16 : 12;  // ofp_header + multipart (stats) header
  return bytes.ok() && bytes->size() >= header ? bytes->size() - header : 0;
}

// Ryu names the reserved group numbers.
Json group_to_json(uint32_t g) {
  if (g == of::group::kAny) return "ANY";
  if (g == of::group::kAll) return "ALL";
  return g;
}

}  // namespace

Json desc_to_json(const of::DescReply& d) {
  return {{"mfr_desc", d.mfr_desc},
          {"hw_desc", d.hw_desc},
          {"sw_desc", d.sw_desc},
          {"serial_num", d.serial_num},
          {"dp_desc", d.dp_desc}};
}

Json flow_stats_to_json(const std::vector<of::FlowStats>& flows, uint8_t version) {
  Json out = Json::array();
  for (const auto& f : flows) {
    Json j = {{"priority", f.priority},
              {"cookie", f.cookie},
              {"idle_timeout", f.idle_timeout},
              {"hard_timeout", f.hard_timeout},
              {"byte_count", f.byte_count},
              {"duration_sec", f.duration_sec},
              {"duration_nsec", f.duration_nsec},
              {"packet_count", f.packet_count},
              {"length", wire_length(version, f, &of::FlowStatsReply::stats)},
              {"actions", instructions_to_json(f.instructions)},
              {"match", match_to_json(f.match)},
              {"table_id", f.table_id}};
    if (version >= of::kOf13) j["flags"] = f.flags;
    out.push_back(std::move(j));
  }
  return out;
}

Json aggregate_to_json(const of::AggregateStatsReply& a) {
  return Json::array(
      {{{"packet_count", a.packet_count}, {"byte_count", a.byte_count}, {"flow_count", a.flow_count}}});
}

Json port_stats_to_json(const std::vector<of::PortStats>& ports, uint8_t version) {
  Json out = Json::array();
  for (const auto& p : ports) {
    Json j = {{"port_no", port_to_json(p.port_no)},
              {"rx_packets", p.rx_packets},
              {"tx_packets", p.tx_packets},
              {"rx_bytes", p.rx_bytes},
              {"tx_bytes", p.tx_bytes},
              {"rx_dropped", p.rx_dropped},
              {"tx_dropped", p.tx_dropped},
              {"rx_errors", p.rx_errors},
              {"tx_errors", p.tx_errors},
              {"rx_frame_err", p.rx_frame_err},
              {"rx_over_err", p.rx_over_err},
              {"rx_crc_err", p.rx_crc_err},
              {"collisions", p.collisions}};
    if (version >= of::kOf13) {
      j["duration_sec"] = p.duration_sec;
      j["duration_nsec"] = p.duration_nsec;
    }
    out.push_back(std::move(j));
  }
  return out;
}

Json port_desc_to_json(const std::vector<of::PortDesc>& ports, uint8_t version) {
  Json out = Json::array();
  for (const auto& p : ports) {
    Json j = {{"port_no", port_to_json(p.port_no)},
              {"hw_addr", p.hw_addr.to_string()},
              {"name", p.name},
              {"config", p.config},
              {"state", p.state},
              {"curr", p.curr},
              {"advertised", p.advertised},
              {"supported", p.supported},
              {"peer", p.peer}};
    if (version >= of::kOf13) {
      j["curr_speed"] = p.curr_speed;
      j["max_speed"] = p.max_speed;
    }
    out.push_back(std::move(j));
  }
  return out;
}

Json table_stats_to_json(const std::vector<of::TableStats>& tables, uint8_t version) {
  Json out = Json::array();
  for (const auto& t : tables) {
    Json j = {{"table_id", t.table_id},
              {"active_count", t.active_count},
              {"lookup_count", t.lookup_count},
              {"matched_count", t.matched_count}};
    if (version == of::kOf10) {
      j["name"] = t.name;
      j["wildcards"] = t.wildcards;
      j["max_entries"] = t.max_entries;
    }
    out.push_back(std::move(j));
  }
  return out;
}

Json group_stats_to_json(const std::vector<of::GroupStats>& groups) {
  Json out = Json::array();
  for (const auto& g : groups) {
    Json buckets = Json::array();
    for (const auto& b : g.buckets)
      buckets.push_back({{"packet_count", b.packet_count}, {"byte_count", b.byte_count}});
    out.push_back({{"length", wire_length(of::kOf13, g, &of::GroupStatsReply::stats)},
                   {"group_id", g.group_id},
                   {"ref_count", g.ref_count},
                   {"packet_count", g.packet_count},
                   {"byte_count", g.byte_count},
                   {"duration_sec", g.duration_sec},
                   {"duration_nsec", g.duration_nsec},
                   {"bucket_stats", std::move(buckets)}});
  }
  return out;
}

Json group_desc_to_json(const std::vector<of::GroupDesc>& groups) {
  Json out = Json::array();
  for (const auto& g : groups) {
    Json buckets = Json::array();
    for (const auto& b : g.buckets)
      buckets.push_back({{"weight", b.weight},
                         {"watch_port", port_to_json(b.watch_port)},
                         {"watch_group", group_to_json(b.watch_group)},
                         {"actions", actions_to_json(b.actions)}});
    out.push_back(
        {{"type", group_type_name(g.type)}, {"group_id", g.group_id}, {"buckets", std::move(buckets)}});
  }
  return out;
}

Json meter_stats_to_json(const std::vector<of::MeterStats>& meters) {
  Json out = Json::array();
  for (const auto& m : meters) {
    Json bands = Json::array();
    for (const auto& b : m.bands)
      bands.push_back({{"packet_band_count", b.packet_band_count}, {"byte_band_count", b.byte_band_count}});
    out.push_back({{"meter_id", m.meter_id},
                   {"len", wire_length(of::kOf13, m, &of::MeterStatsReply::stats)},
                   {"flow_count", m.flow_count},
                   {"packet_in_count", m.packet_in_count},
                   {"byte_in_count", m.byte_in_count},
                   {"duration_sec", m.duration_sec},
                   {"duration_nsec", m.duration_nsec},
                   {"band_stats", std::move(bands)}});
  }
  return out;
}

Json meter_config_to_json(const std::vector<of::MeterConfig>& configs) {
  Json out = Json::array();
  for (const auto& c : configs) {
    Json bands = Json::array();
    for (const auto& b : c.bands) {
      Json j = {{"type", meter_band_name(b.type)}, {"rate", b.rate}, {"burst_size", b.burst_size}};
      if (b.type == of::MeterBandType::kDscpRemark) j["prec_level"] = b.prec_level;
      bands.push_back(std::move(j));
    }
    out.push_back(
        {{"flags", meter_flags_to_json(c.flags)}, {"meter_id", c.meter_id}, {"bands", std::move(bands)}});
  }
  return out;
}

}  // namespace flowlab::rest

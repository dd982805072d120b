// Ryu request bodies -> OpenFlow messages (see ryu_request.h).
#include "rest/ryu_request.h"

#include <array>

namespace flowlab::rest {

namespace {

constexpr uint64_t k32 = 0xffffffff;

struct Named16 {
  std::string_view name;
  uint16_t value;
};
constexpr std::array kMeterFlags = {Named16{"KBPS", 1}, Named16{"PKTPS", 2}, Named16{"BURST", 4},
                                    Named16{"STATS", 8}};

Result<of::GroupType> group_type(const Json& body) {
  auto it = body.find("type");
  if (it == body.end()) return of::GroupType::kAll;  // Ryu's default
  if (it->is_string()) {
    const auto& s = it->get_ref<const std::string&>();
    if (s == "ALL") return of::GroupType::kAll;
    if (s == "SELECT") return of::GroupType::kSelect;
    if (s == "INDIRECT") return of::GroupType::kIndirect;
    if (s == "FF") return of::GroupType::kFastFailover;
  }
  return fail("'type': expected ALL, SELECT, INDIRECT or FF");
}

Result<uint16_t> meter_flags(const Json& body) {
  auto it = body.find("flags");
  if (it == body.end()) return uint16_t(1);  // KBPS, as Ryu defaults
  Json list = it->is_array() ? *it : Json::array({*it});
  uint16_t flags = 0;
  for (const auto& f : list) {
    bool known = false;
    if (f.is_string())
      for (const auto& n : kMeterFlags)
        if (f.get_ref<const std::string&>() == n.name) {
          flags |= n.value;
          known = true;
        }
    if (!known) return fail("'flags': expected KBPS, PKTPS, BURST or STATS (or a list of them)");
  }
  return flags;
}

}  // namespace

Result<Json> parse_body(std::string_view body) {
  Json j;
  try {
    j = Json::parse(body);
  } catch (const Json::exception& e) {
    // nlohmann's message: "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    std::string what = e.what();
    if (auto p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return fail("bad JSON: {}", what);
  }
  if (!j.is_object()) return fail("expected a JSON object, got {}", j.type_name());
  return j;
}

Result<uint64_t> body_dpid(const Json& body) {
  if (!body.contains("dpid")) return fail("'dpid' is missing");
  return uint_field(body, "dpid", 0, UINT64_MAX);
}

Result<uint64_t> path_dpid(std::string_view s) {
  Json j = {{"dpid", std::string(s)}};
  auto r = uint_field(j, "dpid", 0, UINT64_MAX);
  if (!r.ok()) return fail("dpid '{}' is not a number", s);
  return r;
}

Result<of::FlowMod> flow_mod_from_json(const Json& body, of::FlowModCommand cmd, uint8_t version) {
  of::FlowMod fm;
  fm.command = cmd;
  FLOWLAB_ASSIGN_OR_RETURN(fm.cookie, uint_field(body, "cookie", 0, UINT64_MAX));
  FLOWLAB_ASSIGN_OR_RETURN(fm.cookie_mask, uint_field(body, "cookie_mask", 0, UINT64_MAX));
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t table, uint_field(body, "table_id", 0, 0xff));
  fm.table_id = uint8_t(table);
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t idle, uint_field(body, "idle_timeout", 0, 0xffff));
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t hard, uint_field(body, "hard_timeout", 0, 0xffff));
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t prio, uint_field(body, "priority", 0, 0xffff));
  FLOWLAB_ASSIGN_OR_RETURN(fm.buffer_id, uint_field(body, "buffer_id", of::kNoBuffer, k32));
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t flags, uint_field(body, "flags", 0, 0xffff));
  FLOWLAB_ASSIGN_OR_RETURN(fm.out_group, uint_field(body, "out_group", of::group::kAny, k32));
  fm.idle_timeout = uint16_t(idle);
  fm.hard_timeout = uint16_t(hard);
  fm.priority = uint16_t(prio);
  fm.flags = uint16_t(flags);
  if (body.contains("out_port")) {
    FLOWLAB_ASSIGN_OR_RETURN(fm.out_port, port_from_json(body["out_port"], "'out_port'"));
  }
  FLOWLAB_ASSIGN_OR_RETURN(fm.match, match_from_json(body.value("match", Json()), version));
  FLOWLAB_ASSIGN_OR_RETURN(fm.instructions,
                           instructions_from_json(body.value("actions", Json()), fm.match, version));
  if (version == of::kOf10 && table != 0 && table != of::table::kAll)
    return fail("'table_id': OpenFlow 1.0 switches have one table (0)");
  return fm;
}

Result<of::FlowStatsRequest> flow_stats_request_from_json(const Json& body, uint8_t version) {
  of::FlowStatsRequest r;
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t table, uint_field(body, "table_id", of::table::kAll, 0xff));
  r.table_id = uint8_t(table);
  if (body.contains("out_port")) {
    FLOWLAB_ASSIGN_OR_RETURN(r.out_port, port_from_json(body["out_port"], "'out_port'"));
  }
  FLOWLAB_ASSIGN_OR_RETURN(r.out_group, uint_field(body, "out_group", of::group::kAny, k32));
  FLOWLAB_ASSIGN_OR_RETURN(r.cookie, uint_field(body, "cookie", 0, UINT64_MAX));
  FLOWLAB_ASSIGN_OR_RETURN(r.cookie_mask, uint_field(body, "cookie_mask", 0, UINT64_MAX));
  FLOWLAB_ASSIGN_OR_RETURN(r.match, match_from_json(body.value("match", Json()), version));
  return r;
}

Result<of::GroupMod> group_mod_from_json(const Json& body, of::GroupModCommand cmd, uint8_t version) {
  if (version < of::kOf13) return fail("groups need OpenFlow 1.3 (this switch speaks 1.0)");
  of::GroupMod gm;
  gm.command = cmd;
  FLOWLAB_ASSIGN_OR_RETURN(gm.type, group_type(body));
  if (!body.contains("group_id")) return fail("'group_id' is missing");
  FLOWLAB_ASSIGN_OR_RETURN(gm.group_id, uint_field(body, "group_id", 0, k32));
  auto buckets = body.value("buckets", Json::array());
  if (!buckets.is_array()) return fail("'buckets': expected a list");
  for (const auto& b : buckets) {
    if (!b.is_object()) return fail("'buckets': each bucket is an object with 'actions'");
    of::Bucket bk;
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t w, uint_field(b, "weight", 0, 0xffff));
    bk.weight = uint16_t(w);
    if (b.contains("watch_port")) {
      FLOWLAB_ASSIGN_OR_RETURN(bk.watch_port, port_from_json(b["watch_port"], "bucket 'watch_port'"));
    }
    FLOWLAB_ASSIGN_OR_RETURN(bk.watch_group, uint_field(b, "watch_group", of::group::kAny, k32));
    FLOWLAB_ASSIGN_OR_RETURN(bk.actions, actions_from_json(b.value("actions", Json::array()), version));
    gm.buckets.push_back(std::move(bk));
  }
  return gm;
}

Result<of::MeterMod> meter_mod_from_json(const Json& body, of::MeterModCommand cmd) {
  of::MeterMod mm;
  mm.command = cmd;
  if (!body.contains("meter_id")) return fail("'meter_id' is missing");
  FLOWLAB_ASSIGN_OR_RETURN(mm.meter_id, uint_field(body, "meter_id", 0, k32));
  FLOWLAB_ASSIGN_OR_RETURN(mm.flags, meter_flags(body));
  auto bands = body.value("bands", Json::array());
  if (!bands.is_array()) return fail("'bands': expected a list");
  for (const auto& b : bands) {
    if (!b.is_object()) return fail("'bands': each band is an object with 'type' and 'rate'");
    of::MeterBand band;
    std::string type = b.contains("type") && b["type"].is_string() ? b["type"].get<std::string>() : "";
    if (type == "DROP")
      band.type = of::MeterBandType::kDrop;
    else if (type == "DSCP_REMARK")
      band.type = of::MeterBandType::kDscpRemark;
    else
      return fail("band 'type': expected DROP or DSCP_REMARK");
    FLOWLAB_ASSIGN_OR_RETURN(band.rate, uint_field(b, "rate", 0, k32));
    FLOWLAB_ASSIGN_OR_RETURN(band.burst_size, uint_field(b, "burst_size", 0, k32));
    FLOWLAB_ASSIGN_OR_RETURN(uint64_t prec, uint_field(b, "prec_level", 0, 0xff));
    band.prec_level = uint8_t(prec);
    mm.bands.push_back(std::move(band));
  }
  return mm;
}

Result<of::PortMod> port_mod_from_json(const Json& body, const MacAddr& current_hw_addr) {
  of::PortMod pm;
  if (!body.contains("port_no")) return fail("'port_no' is missing");
  FLOWLAB_ASSIGN_OR_RETURN(pm.port_no, port_from_json(body["port_no"], "'port_no'"));
  FLOWLAB_ASSIGN_OR_RETURN(pm.config, uint_field(body, "config", 0, k32));
  FLOWLAB_ASSIGN_OR_RETURN(pm.mask, uint_field(body, "mask", 0, k32));
  FLOWLAB_ASSIGN_OR_RETURN(pm.advertise, uint_field(body, "advertise", 0, k32));
  pm.hw_addr = current_hw_addr;
  if (body.contains("hw_addr")) {
    auto mac =
        body["hw_addr"].is_string() ? MacAddr::parse(body["hw_addr"].get<std::string>()) : std::nullopt;
    if (!mac) return fail("'hw_addr': expected a MAC address like \"00:11:22:33:44:55\"");
    pm.hw_addr = *mac;
  }
  return pm;
}

std::string_view group_type_name(of::GroupType t) {
  switch (t) {
    case of::GroupType::kAll:
      return "ALL";
    case of::GroupType::kSelect:
      return "SELECT";
    case of::GroupType::kIndirect:
      return "INDIRECT";
    case of::GroupType::kFastFailover:
      return "FF";
  }
  return "UNKNOWN";
}

Json meter_flags_to_json(uint16_t flags) {
  Json out = Json::array();
  for (const auto& n : kMeterFlags)
    if (flags & n.value) out.push_back(std::string(n.name));
  return out;
}

std::string_view meter_band_name(of::MeterBandType t) {
  switch (t) {
    case of::MeterBandType::kDrop:
      return "DROP";
    case of::MeterBandType::kDscpRemark:
      return "DSCP_REMARK";
    case of::MeterBandType::kExperimenter:
      return "EXPERIMENTER";
  }
  return "UNKNOWN";
}

}  // namespace flowlab::rest

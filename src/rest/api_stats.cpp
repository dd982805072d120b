// GET/POST /stats/<kind>/<dpid>[/<id>]: multipart requests to one switch,
// answered as Ryu's ofctl_rest answers them ({"<dpid>": ...}).
#include <fmt/format.h>

#include "rest/api_internal.h"
#include "rest/ryu_request.h"
#include "rest/ryu_stats.h"

namespace flowlab::rest::detail {

namespace {

// Every part's list of type Reply, concatenated.
template <typename Reply, typename Entry>
HttpResult<std::vector<Entry>> ask(SwitchAccess& sw, uint64_t dpid, of::MultipartRequestBody req,
                                   std::vector<Entry> Reply::*list) {
  auto parts = sw.multipart(dpid, std::move(req));
  if (!parts.ok()) return unexpected(parts.error());
  std::vector<Entry> out;
  for (auto& p : *parts) {
    auto* r = std::get_if<Reply>(&p);
    if (!r) return http_fail(502, "the switch answered with another kind of reply");
    auto& v = r->*list;
    out.insert(out.end(), std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  }
  return out;
}

template <typename Reply>
HttpResult<Reply> ask_one(SwitchAccess& sw, uint64_t dpid, of::MultipartRequestBody req) {
  auto parts = sw.multipart(dpid, std::move(req));
  if (!parts.ok()) return unexpected(parts.error());
  if (parts->empty() || !std::holds_alternative<Reply>(parts->front()))
    return http_fail(502, "the switch answered with another kind of reply");
  return std::get<Reply>(parts->front());
}

HttpResponse wrap(uint64_t dpid, Json value) {
  return json_response(Json{{std::to_string(dpid), std::move(value)}});
}

template <typename T, typename F>
HttpResponse reply(uint64_t dpid, const HttpResult<T>& r, F&& to_json) {
  if (!r.ok()) return error_response(r.error());
  return wrap(dpid, to_json(*r));
}

// Optional /<id> after the dpid: a number (or ALL / ANY names for ports).
HttpResult<uint32_t> id_arg(const Request& r, uint32_t all, std::string_view what) {
  if (r.seg.size() < 4) return all;
  if (what == "port") {
    auto p = port_from_json(Json(std::string(r.seg[3])), "port");
    if (!p.ok()) return http_fail(400, fmt::format("port '{}' is not a port number", r.seg[3]));
    return *p;
  }
  auto v = path_dpid(r.seg[3]);
  if (!v.ok() || *v > 0xffffffff)
    return http_fail(400, fmt::format("{} '{}' is not a number", what, r.seg[3]));
  return uint32_t(*v);
}

}  // namespace

std::optional<HttpResponse> handle_stats(SwitchAccess& sw, const Request& r) {
  if (r.seg.size() < 3 || r.seg.size() > 4 || r.seg[0] != "stats") return std::nullopt;
  std::string_view kind = r.seg[1];
  static constexpr std::string_view kKinds[] = {"desc",     "flow",  "aggregateflow", "table", "port",
                                                "portdesc", "group", "groupdesc",     "meter", "meterconfig"};
  if (std::find(std::begin(kKinds), std::end(kKinds), kind) == std::end(kKinds)) return std::nullopt;
  bool filterable = kind == "flow" || kind == "aggregateflow";
  bool with_id = kind == "port" || kind == "group" || kind == "meter" || kind == "meterconfig";
  if (r.seg.size() == 4 && !with_id) return std::nullopt;
  if (r.method != "GET" && !(filterable && r.method == "POST"))
    return error_response(405,
                          fmt::format("/stats/{} answers GET{}", kind, filterable ? " and POST" : " only"));
  auto s = switch_at(sw, r.seg[2]);
  if (!s.ok()) return error_response(s.error());
  uint64_t dpid = s->dpid;
  uint8_t v = s->version;
  bool needs13 = kind == "group" || kind == "groupdesc" || kind == "meter" || kind == "meterconfig";
  if (needs13 && v < of::kOf13)
    return error_response(400, fmt::format("/stats/{} needs OpenFlow 1.3; dpid {} speaks 1.0", kind, dpid));

  if (kind == "desc") {
    return reply(dpid, ask_one<of::DescReply>(sw, dpid, of::DescRequest{}),
                 [](const auto& d) { return desc_to_json(d); });
  }
  if (filterable) {
    of::FlowStatsRequest req;
    if (r.method == "POST" && !r.body.empty()) {
      auto b = body_object(r.body);
      if (!b.ok()) return error_response(b.error());
      auto fr = flow_stats_request_from_json(*b, v);
      if (!fr.ok()) return error_response(400, fr.error().message);
      req = std::move(*fr);
    }
    if (kind == "flow")
      return reply(dpid, ask(sw, dpid, req, &of::FlowStatsReply::stats),
                   [v](const auto& f) { return flow_stats_to_json(f, v); });
    return reply(dpid, ask_one<of::AggregateStatsReply>(sw, dpid, of::AggregateStatsRequest{req}),
                 [](const auto& a) { return aggregate_to_json(a); });
  }
  if (kind == "table")
    return reply(dpid, ask(sw, dpid, of::TableStatsRequest{}, &of::TableStatsReply::stats),
                 [v](const auto& t) { return table_stats_to_json(t, v); });
  if (kind == "portdesc") {
    if (v < of::kOf13) return wrap(dpid, port_desc_to_json(s->ports, v));  // OF1.0: from the features reply
    return reply(dpid, ask(sw, dpid, of::PortDescRequest{}, &of::PortDescReply::ports),
                 [v](const auto& p) { return port_desc_to_json(p, v); });
  }
  if (kind == "groupdesc")
    return reply(dpid, ask(sw, dpid, of::GroupDescRequest{}, &of::GroupDescReply::groups),
                 [](const auto& g) { return group_desc_to_json(g); });
  // port, group, meter, meterconfig: optionally one id.
  auto id = id_arg(r,
                   kind == "port"    ? of::port::kAny
                   : kind == "group" ? of::group::kAll
                                     : of::meter::kAll,
                   kind == "port" ? "port" : kind);
  if (!id.ok()) return error_response(id.error());
  if (kind == "port")
    return reply(dpid, ask(sw, dpid, of::PortStatsRequest{*id}, &of::PortStatsReply::stats),
                 [v](const auto& p) { return port_stats_to_json(p, v); });
  if (kind == "group")
    return reply(dpid, ask(sw, dpid, of::GroupStatsRequest{*id}, &of::GroupStatsReply::stats),
                 [](const auto& g) { return group_stats_to_json(g); });
  if (kind == "meter")
    return reply(dpid, ask(sw, dpid, of::MeterStatsRequest{*id}, &of::MeterStatsReply::stats),
                 [](const auto& m) { return meter_stats_to_json(m); });
  return reply(dpid, ask(sw, dpid, of::MeterConfigRequest{*id}, &of::MeterConfigReply::configs),
               [](const auto& m) { return meter_config_to_json(m); });
}

}  // namespace flowlab::rest::detail

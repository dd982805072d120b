// RestApi (see api.h): path splitting, the routes that need no switch, errors.
#include "rest/api.h"

#include <fmt/ranges.h>

#include "core/log.h"
#include "rest/api_internal.h"
#include "rest/ryu_request.h"

namespace flowlab::rest {

namespace detail {

HttpResponse json_response(const Json& j, int status) {
  return {status, j.dump(-1, ' ', false, Json::error_handler_t::replace)};
}

HttpResponse error_response(int status, std::string message) {
  return json_response(Json{{"error", std::move(message)}, {"status", status}}, status);
}

HttpResult<SwitchSummary> switch_at(SwitchAccess& sw, std::string_view dpid_text) {
  auto dpid = path_dpid(dpid_text);
  if (!dpid.ok()) return http_fail(400, dpid.error().message);
  auto s = sw.find(*dpid);
  if (!s) return http_fail(404, fmt::format("no switch with dpid {} is connected", *dpid));
  return *s;
}

HttpResult<Json> body_object(std::string_view body) {
  auto j = parse_body(body);
  if (!j.ok()) return http_fail(400, j.error().message);
  return std::move(*j);
}

}  // namespace detail

RestApi::RestApi(SwitchAccess& switches, const TopologySource& topology, std::function<Json()> stats)
    : switches_(switches), topology_(topology), stats_(std::move(stats)) {}

HttpResponse RestApi::handle(std::string_view method, std::string_view path, std::string_view body) {
  using namespace detail;
  Request r{method, {}, body};
  if (auto q = path.find('?'); q != std::string_view::npos) path = path.substr(0, q);
  while (!path.empty()) {
    size_t start = path.find_first_not_of('/');
    if (start == std::string_view::npos) break;
    path = path.substr(start);
    size_t end = path.find('/');
    r.seg.push_back(path.substr(0, end));
    path = end == std::string_view::npos ? std::string_view() : path.substr(end);
  }
  HttpResponse resp;
  if (r.seg.size() == 2 && r.seg[0] == "stats" && r.seg[1] == "switches") {
    if (method != "GET") return error_response(405, "/stats/switches answers GET only");
    Json list = Json::array();
    for (const auto& s : switches_.switches()) list.push_back(s.dpid);
    resp = json_response(list);
  } else if (r.seg.size() == 2 && r.seg[0] == "v1" && r.seg[1] == "stats") {
    if (method != "GET") return error_response(405, "/v1/stats answers GET only");
    resp = json_response(stats_ ? stats_() : Json::object());
  } else if (r.seg.size() == 2 && r.seg[0] == "v1" && r.seg[1] == "cluster") {
    if (method != "GET") return error_response(405, "/v1/cluster answers GET only");
    if (!cluster_) return error_response(404, "this controller is not a cluster member (no --cluster)");
    auto j = cluster_();
    resp = j.is_null() ? error_response(503, "etcd did not answer") : json_response(j);
  } else if (auto m = handle_modify(switches_, r)) {
    resp = std::move(*m);
  } else if (auto s = handle_stats(switches_, r)) {
    resp = std::move(*s);
  } else if (auto t = handle_topology(topology_, r)) {
    resp = std::move(*t);
  } else {
    resp = error_response(404, fmt::format("no such endpoint: {} /{}", method, fmt::join(r.seg, "/")));
  }
  if (resp.status >= 400)
    log::info("rest", "{} /{}: {} {}", method, fmt::join(r.seg, "/"), resp.status, resp.body);
  return resp;
}

}  // namespace flowlab::rest

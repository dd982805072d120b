// Private to RestApi (api.cpp, api_stats.cpp, api_modify.cpp): the parsed
// request and the response helpers the endpoint files share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rest/api.h"

namespace flowlab::rest::detail {

struct Request {
  std::string_view method;
  std::vector<std::string_view> seg;  // path segments, e.g. {"stats", "flow", "1"}
  std::string_view body;
};

HttpResponse json_response(const Json& j, int status = 200);
HttpResponse error_response(int status, std::string message);
inline HttpResponse error_response(const HttpError& e) { return error_response(e.status, e.message); }

// The switch a path's <dpid> names: 400 when not a number, 404 when not connected.
HttpResult<SwitchSummary> switch_at(SwitchAccess& sw, std::string_view dpid_text);
// The JSON object of a request body: 400 with the parser's message otherwise.
HttpResult<Json> body_object(std::string_view body);

// GET/POST /stats/* that read from a switch; nullopt when the path is not theirs.
std::optional<HttpResponse> handle_stats(SwitchAccess& sw, const Request& r);
// POST /stats/{flowentry,groupentry,meterentry}/..., /stats/portdesc/modify,
// DELETE /stats/flowentry/clear/<dpid>; nullopt when the path is not theirs.
std::optional<HttpResponse> handle_modify(SwitchAccess& sw, const Request& r);
// GET /v1.0/topology/{switches,links,hosts}[/<dpid>].
std::optional<HttpResponse> handle_topology(const TopologySource& topo, const Request& r);

}  // namespace flowlab::rest::detail

// RestApi: Ryu's ofctl_rest and rest_topology endpoints (plus flowlab's own
// GET /v1/stats) over SwitchAccess and TopologySource. It knows HTTP only as
// (method, path, body) in and (status, JSON body) out, so it is tested without
// sockets; http_server.h puts it on the network.
//
// Shapes follow Ryu: stats come back as {"<dpid>": [...]} with dpids in
// decimal; topology dpids are 16 hex digits and port numbers 8. Modifications
// answer 200 with an empty body once the switch confirmed them (barrier).
// Errors answer {"error": "...", "status": N}: 400 bad JSON / field / value,
// 404 unknown dpid or path, 405 wrong method, 504 the switch did not answer.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "rest/ryu_json.h"
#include "rest/switch_access.h"
#include "rest/topology_source.h"

namespace flowlab::rest {

struct HttpResponse {
  int status = 200;
  std::string body;                               // JSON, or empty
  std::string content_type = "application/json";  // sent when there is a body
};

class RestApi {
 public:
  // `stats` returns the controller's --stats-json document (GET /v1/stats).
  RestApi(SwitchAccess& switches, const TopologySource& topology, std::function<Json()> stats);

  // GET /v1/cluster: the cluster's status (null: etcd did not answer). Unset: 404.
  void set_cluster_status(std::function<Json()> cluster) { cluster_ = std::move(cluster); }

  // Any thread; blocks while a switch is asked.
  HttpResponse handle(std::string_view method, std::string_view path, std::string_view body);

 private:
  SwitchAccess& switches_;
  const TopologySource& topology_;
  std::function<Json()> stats_;
  std::function<Json()> cluster_;
};

}  // namespace flowlab::rest

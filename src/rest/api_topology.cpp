// GET /v1.0/topology/{switches,links,hosts}[/<dpid>] in Ryu rest_topology's
// shapes: dpids as 16 hex digits, port numbers as 8, MACs and addresses as text.
#include <fmt/format.h>

#include "rest/api_internal.h"

namespace flowlab::rest::detail {

namespace {

Json port_json(const TopoPort& p) {
  return {{"dpid", fmt::format("{:016x}", p.dpid)},
          {"port_no", fmt::format("{:08x}", p.port_no)},
          {"hw_addr", p.hw_addr.to_string()},
          {"name", p.name}};
}

// Ryu's route takes exactly 16 hex digits.
std::optional<uint64_t> hex_dpid(std::string_view s) {
  if (s.size() != 16) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9'   ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                   : -1;
    if (d < 0) return std::nullopt;
    v = v << 4 | uint64_t(d);
  }
  return v;
}

}  // namespace

std::optional<HttpResponse> handle_topology(const TopologySource& topo, const Request& r) {
  if (r.seg.size() < 3 || r.seg.size() > 4 || r.seg[0] != "v1.0" || r.seg[1] != "topology")
    return std::nullopt;
  std::string_view what = r.seg[2];
  if (what != "switches" && what != "links" && what != "hosts") return std::nullopt;
  if (r.method != "GET") return error_response(405, fmt::format("/v1.0/topology/{} answers GET only", what));
  std::optional<uint64_t> only;
  if (r.seg.size() == 4) {
    only = hex_dpid(r.seg[3]);
    if (!only) return error_response(400, fmt::format("dpid '{}' is not 16 hex digits", r.seg[3]));
  }
  Json out = Json::array();
  if (what == "switches") {
    for (const auto& s : topo.switches()) {
      if (only && s.dpid != *only) continue;
      Json ports = Json::array();
      for (const auto& p : s.ports) ports.push_back(port_json(p));
      out.push_back({{"dpid", fmt::format("{:016x}", s.dpid)}, {"ports", std::move(ports)}});
    }
  } else if (what == "links") {
    for (const auto& l : topo.links())
      if (!only || l.src.dpid == *only) out.push_back({{"src", port_json(l.src)}, {"dst", port_json(l.dst)}});
  } else {
    for (const auto& h : topo.hosts()) {
      if (only && h.port.dpid != *only) continue;
      Json v4 = Json::array(), v6 = Json::array();
      for (const auto& a : h.ipv4) v4.push_back(a.to_string());
      for (const auto& a : h.ipv6) v6.push_back(a.to_string());
      out.push_back({{"mac", h.mac.to_string()},
                     {"ipv4", std::move(v4)},
                     {"ipv6", std::move(v6)},
                     {"port", port_json(h.port)}});
    }
  }
  return json_response(out);
}

}  // namespace flowlab::rest::detail

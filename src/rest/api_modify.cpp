// POST /stats/{flowentry,groupentry,meterentry}/<command>, POST /stats/portdesc/modify
// and DELETE /stats/flowentry/clear/<dpid>: the body names the switch ("dpid"),
// is decoded for its OpenFlow version and sent with a barrier.
#include <fmt/format.h>

#include <array>

#include "rest/api_internal.h"
#include "rest/ryu_request.h"

namespace flowlab::rest::detail {

namespace {

struct Named {
  std::string_view name;
  uint8_t value;
};
constexpr std::array kFlowCommands = {
    Named{"add", uint8_t(of::FlowModCommand::kAdd)},
    Named{"modify", uint8_t(of::FlowModCommand::kModify)},
    Named{"modify_strict", uint8_t(of::FlowModCommand::kModifyStrict)},
    Named{"delete", uint8_t(of::FlowModCommand::kDelete)},
    Named{"delete_strict", uint8_t(of::FlowModCommand::kDeleteStrict)},
};
constexpr std::array kEntryCommands = {Named{"add", 0}, Named{"modify", 1}, Named{"delete", 2}};

template <size_t N>
std::optional<uint8_t> command(const std::array<Named, N>& table, std::string_view s) {
  for (const auto& n : table)
    if (n.name == s) return n.value;
  return std::nullopt;
}

HttpResponse done(const HttpStatus& st) {
  if (!st.ok()) return error_response(st.error());
  return {200, ""};  // Ryu answers modifications with an empty 200
}

}  // namespace

std::optional<HttpResponse> handle_modify(SwitchAccess& sw, const Request& r) {
  if (r.seg.size() < 3 || r.seg[0] != "stats") return std::nullopt;
  std::string_view what = r.seg[1], cmd = r.seg[2];
  bool entry = what == "flowentry" || what == "groupentry" || what == "meterentry";
  bool portmod = what == "portdesc" && cmd == "modify" && r.seg.size() == 3;
  if (!entry && !portmod) return std::nullopt;

  if (what == "flowentry" && cmd == "clear") {
    if (r.seg.size() != 4) return error_response(404, "use DELETE /stats/flowentry/clear/<dpid>");
    if (r.method != "DELETE") return error_response(405, "/stats/flowentry/clear/<dpid> answers DELETE only");
    auto s = switch_at(sw, r.seg[3]);
    if (!s.ok()) return error_response(s.error());
    of::FlowMod fm;
    fm.command = of::FlowModCommand::kDelete;
    fm.table_id = of::table::kAll;
    return done(sw.modify(s->dpid, fm));
  }
  if (r.seg.size() != 3) return std::nullopt;
  std::optional<uint8_t> c = what == "flowentry" ? command(kFlowCommands, cmd)
                             : portmod           ? std::optional<uint8_t>(0)
                                                 : command(kEntryCommands, cmd);
  if (!c) return error_response(404, fmt::format("/stats/{}: unknown command '{}'", what, cmd));
  if (r.method != "POST")
    return error_response(405, fmt::format("/stats/{}/{} answers POST only", what, cmd));
  auto b = body_object(r.body);
  if (!b.ok()) return error_response(b.error());
  auto dpid = body_dpid(*b);
  if (!dpid.ok()) return error_response(400, dpid.error().message);
  auto s = sw.find(*dpid);
  if (!s) return error_response(404, fmt::format("no switch with dpid {} is connected", *dpid));

  if (what == "flowentry") {
    auto fm = flow_mod_from_json(*b, of::FlowModCommand(*c), s->version);
    if (!fm.ok()) return error_response(400, fm.error().message);
    return done(sw.modify(*dpid, std::move(*fm)));
  }
  if (what == "groupentry") {
    auto gm = group_mod_from_json(*b, of::GroupModCommand(*c), s->version);
    if (!gm.ok()) return error_response(400, gm.error().message);
    return done(sw.modify(*dpid, std::move(*gm)));
  }
  if (what == "meterentry") {
    if (s->version < of::kOf13)
      return error_response(400, fmt::format("meters need OpenFlow 1.3; dpid {} speaks 1.0", *dpid));
    auto mm = meter_mod_from_json(*b, of::MeterModCommand(*c));
    if (!mm.ok()) return error_response(400, mm.error().message);
    return done(sw.modify(*dpid, std::move(*mm)));
  }
  // portdesc/modify: hw_addr defaults to the port's own, as Ryu does.
  MacAddr hw;
  if (b->contains("port_no")) {
    auto no = port_from_json((*b)["port_no"], "'port_no'");
    bool found = false;
    if (no.ok())
      for (const auto& p : s->ports)
        if (p.port_no == *no) {
          hw = p.hw_addr;
          found = true;
        }
    if (no.ok() && !found) return error_response(404, fmt::format("dpid {} has no port {}", *dpid, *no));
  }
  auto pm = port_mod_from_json(*b, hw);
  if (!pm.ok()) return error_response(400, pm.error().message);
  return done(sw.modify(*dpid, std::move(*pm)));
}

}  // namespace flowlab::rest::detail

// `flowlab ofctl monitor`: flow monitoring in ovs-ofctl's syntax and output.
#include "channel/ofctl_monitor.h"

#include <fmt/format.h>

#include "openflow/print/print.h"
#include "openflow/text/flow_text.h"

namespace flowlab::channel {

Result<of::FlowMonitorRequest> parse_watch(std::string_view text, uint8_t version) {
  of::FlowMonitorRequest r;
  r.flags = uint16_t(of::flow_monitor::kInitial | of::flow_monitor::kAdd | of::flow_monitor::kRemoved |
                     of::flow_monitor::kModify | of::flow_monitor::kInstructions);
  if (!text.starts_with("watch:")) return fail("monitor: '{}': expected watch:[SPEC,...]", text);
  text.remove_prefix(6);
  std::string rest;  // table, out_port and the match: flow-stats text
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view tok = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (tok.empty()) continue;
    if (tok == "!initial") {
      r.flags &= uint16_t(~of::flow_monitor::kInitial);
    } else if (tok == "!add") {
      r.flags &= uint16_t(~of::flow_monitor::kAdd);
    } else if (tok == "!delete") {
      r.flags &= uint16_t(~of::flow_monitor::kRemoved);
    } else if (tok == "!modify") {
      r.flags &= uint16_t(~of::flow_monitor::kModify);
    } else if (tok == "!actions") {
      r.flags &= uint16_t(~of::flow_monitor::kInstructions);
    } else if (tok == "!own") {
      // this connection changes no flows: nothing of its own to leave out
    } else if (tok.starts_with("!")) {
      return fail("monitor: '{}' (!initial, !add, !delete, !modify, !actions or !own)", tok);
    } else if (tok.starts_with("id=")) {
      auto id = of::parse_port(tok.substr(3));
      if (!id.ok() || tok.size() == 3 || tok[3] < '0' || tok[3] > '9')
        return fail("monitor: '{}': id takes a number", tok);
      r.monitor_id = *id;
    } else if (tok.starts_with("cookie=")) {
      return fail("monitor: '{}': a flow monitor cannot select by cookie", tok);
    } else {
      if (!rest.empty()) rest += ',';
      rest += tok;
    }
  }
  auto sel = of::parse_flow_stats_request(rest, version);
  if (!sel.ok()) return fail("monitor: {}", sel.error().message);
  r.table_id = sel->table_id;
  r.out_port = sel->out_port;
  r.out_group = sel->out_group;
  r.match = std::move(sel->match);
  return r;
}

Status run_monitor(SyncClient& client, const std::vector<std::string>& args, const OfctlOptions& opts) {
  if (client.version() < of::kOf14)
    return fail("monitor needs OpenFlow 1.4 or 1.5 (-O OpenFlow14); the switch negotiated 0x{:02x}",
                client.version());
  if (args.size() > 2) return fail("monitor: '{}': only watch:[SPEC] is supported", args[2]);
  FLOWLAB_ASSIGN_OR_RETURN(of::FlowMonitorRequest rq,
                           parse_watch(args.size() > 1 ? args[1] : "watch:", client.version()));
  FLOWLAB_ASSIGN_OR_RETURN(uint32_t xid, client.send(of::make_message(
                                             client.version(), 0, of::MultipartRequest{0, std::move(rq)})));
  auto emit = [&](const std::string& s) {
    if (opts.monitor_out) opts.monitor_out(s);
  };
  uint64_t updates = 0;
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(std::optional<of::Message> m, client.receive_within(opts.timeout));
    if (!m) continue;  // nothing yet: keep watching (echo requests keep the connection checked)
    if (m->is<of::ErrorMsg>() && m->xid == xid) {
      emit(of::format_message(*m));
      return fail("the switch refused the flow monitor");
    }
    const auto* mp = std::get_if<of::MultipartReply>(&m->body);
    const auto* fr = mp ? std::get_if<of::FlowMonitorReply>(&mp->body) : nullptr;
    if (!fr) continue;  // asynchronous messages of other kinds
    emit(of::format_message(*m));
    updates += fr->updates.size();
    if (opts.monitor_count > 0 && updates >= opts.monitor_count) return ok_status();
  }
}

}  // namespace flowlab::channel

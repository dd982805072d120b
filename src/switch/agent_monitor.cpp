// Agent: OpenFlow 1.4 flow monitoring (OFPMP_FLOW_MONITOR).
//
// Each connection keeps its monitors (Peer::monitors). A request adds one
// (OFPFMC_ADD; its id must be new), replaces one (MODIFY) or deletes one
// (DELETE); ADD and MODIFY answer with the flows the monitor selects now when
// it asks for OFPFMF_INITIAL (the request's xid; an empty reply otherwise).
// After every request and every expiry round the agent takes the flow changes
// the datapath recorded (datapath/flow_monitor.h) and sends each connection,
// in one reply (with the connection's next xid, as every message the switch
// starts; Open vSwitch uses 0), one update per change that any of its monitors
// selects and asks for (ADD, REMOVED, MODIFY):
//   - a change made by another connection (or by the switch: timeouts) in
//     full, with the instructions when a selecting monitor asks for them
//     (never for a removal: the spec leaves them out there);
//     monitors with OFPFMF_ONLY_OWN ignore it;
//   - a change the connection made itself in full when a selecting monitor
//     has OFPFMF_NO_ABBREV, else as one ABBREV update carrying the xid of the
//     request that made it (once per request, as the spec words it).
// Flow control: when more than kMonitorPauseBytes wait in a monitoring
// connection's output, it gets one OFPFME_PAUSED update and no more updates;
// the changes are held (in order) until its output is under
// kMonitorResumeBytes (checked at every request and every expiry round), then
// sent in full (an ABBREV's request is long answered; ONLY_OWN still sees
// only its connection's) followed by one OFPFME_RESUMED, as Open vSwitch
// does. What is held is a pointer per change: a removed flow's entry lives
// until then.
//
// Errors (OFPET_FLOW_MONITOR_FAILED): an id that exists (MONITOR_EXISTS) or
// does not (UNKNOWN_MONITOR), a command past DELETE (BAD_COMMAND), flag bits
// 1.4 does not define (BAD_FLAGS), a table past the last (BAD_TABLE_ID), an
// out_port that is not a port here nor reserved, an out_group past OFPG_MAX
// (BAD_OUT); a match that does not compile answers with its OFPET_BAD_MATCH.
#include <fmt/format.h>

#include "switch/agent.h"

namespace flowlab::sw {

using of::FlowMonitorFailedCode;
using of::OfError;

namespace {

uint16_t event_flag(of::FlowUpdateEvent e) {
  switch (e) {
    case of::FlowUpdateEvent::kAdded:
      return of::flow_monitor::kAdd;
    case of::FlowUpdateEvent::kRemoved:
      return of::flow_monitor::kRemoved;
    case of::FlowUpdateEvent::kModified:
      return of::flow_monitor::kModify;
    default:
      return 0;
  }
}

}  // namespace

void Agent::update_flow_recording() { dp_.set_record_flow_changes(monitor_count_ > 0); }

void Agent::on_flow_monitor(Peer& p, uint32_t xid, const of::FlowMonitorRequest& rq, ByteSpan raw) {
  auto fail = [&](FlowMonitorFailedCode code, std::string why) {
    send_error(p, OfError::make(code, std::move(why)), raw);
  };
  if (uint8_t(rq.command) > uint8_t(of::FlowMonitorCommand::kDelete))
    return fail(FlowMonitorFailedCode::kBadCommand,
                fmt::format("flow monitor command {} (add 0, modify 1, delete 2)", uint8_t(rq.command)));
  auto it = p.monitors.find(rq.monitor_id);
  if (rq.command == of::FlowMonitorCommand::kAdd && it != p.monitors.end())
    return fail(FlowMonitorFailedCode::kMonitorExists,
                fmt::format("flow monitor {} exists on this connection", rq.monitor_id));
  if (rq.command != of::FlowMonitorCommand::kAdd && it == p.monitors.end())
    return fail(FlowMonitorFailedCode::kUnknownMonitor,
                fmt::format("no flow monitor {} on this connection", rq.monitor_id));
  if (rq.command == of::FlowMonitorCommand::kDelete) {
    p.monitors.erase(it);
    --monitor_count_;
    update_flow_recording();
    send_multipart(p, xid, of::FlowMonitorReply{});
    return;
  }
  if (rq.flags & ~of::flow_monitor::kAllFlags)
    return fail(FlowMonitorFailedCode::kBadFlags,
                fmt::format("flow monitor flags {:#x} (OpenFlow 1.4 defines {:#x})", rq.flags,
                            of::flow_monitor::kAllFlags));
  if (rq.table_id != of::table::kAll && rq.table_id >= dp_.n_tables())
    return fail(FlowMonitorFailedCode::kBadTableId,
                fmt::format("table {} does not exist (tables 0..{})", rq.table_id, dp_.n_tables() - 1));
  if (rq.out_port != of::port::kAny && rq.out_port < of::port::kMax && !ports_.find(rq.out_port))
    return fail(FlowMonitorFailedCode::kBadOut, fmt::format("out_port {} is not a port here", rq.out_port));
  if (rq.out_group != of::group::kAny && rq.out_group > of::group::kMax)
    return fail(
        FlowMonitorFailedCode::kBadOut,
        fmt::format("out_group {:#x} is not a group id (at most {:#x})", rq.out_group, of::group::kMax));
  auto sel = dp::FlowSelector::compile(rq);
  if (!sel.ok()) return send_error(p, sel.error(), raw);
  of::FlowMonitorReply initial;
  if (rq.flags & of::flow_monitor::kInitial)
    initial.updates = dp_.monitor_initial(*sel, rq.flags & of::flow_monitor::kInstructions);
  if (it == p.monitors.end()) {
    p.monitors.emplace(rq.monitor_id, Peer::Monitor{rq, std::move(*sel)});
    ++monitor_count_;
  } else {
    it->second = Peer::Monitor{rq, std::move(*sel)};
  }
  update_flow_recording();
  send_chunked(p, xid, std::move(initial), &of::FlowMonitorReply::updates);
}

void Agent::send_flow_updates(uint64_t origin, uint32_t xid) {
  const std::vector<dp::FlowChange> changes = dp_.take_flow_changes();
  for (auto& [id, p] : peers_) {
    if (p.monitors.empty()) continue;
    const size_t backlog = p.backlog ? p.backlog() : 0;
    if (p.monitors_paused) {
      for (const auto& c : changes) p.held_changes.push_back({c, id == origin});
      if (backlog >= kMonitorResumeBytes) continue;
      // Held changes go in full: the requests an ABBREV would name are long answered.
      of::FlowMonitorReply out;
      for (const auto& h : p.held_changes)
        if (UpdateForm f = update_form(p, h.change, h.own); f.selected)
          out.updates.push_back(
              dp::flow_update(*h.change.flow, h.change.event, h.change.reason, f.instructions));
      p.held_changes.clear();
      p.monitors_paused = false;
      of::FlowUpdate resumed;
      resumed.event = of::FlowUpdateEvent::kResumed;
      out.updates.push_back(std::move(resumed));
      counters_.flow_updates_sent += out.updates.size();
      send_chunked(p, 0, std::move(out), &of::FlowMonitorReply::updates);
      continue;
    }
    if (changes.empty()) continue;
    if (backlog > kMonitorPauseBytes) {
      p.monitors_paused = true;
      for (const auto& c : changes) p.held_changes.push_back({c, id == origin});
      of::FlowMonitorReply out;
      out.updates.emplace_back().event = of::FlowUpdateEvent::kPaused;
      counters_.flow_updates_sent += 1;
      send_chunked(p, 0, std::move(out), &of::FlowMonitorReply::updates);
      continue;
    }
    of::FlowMonitorReply out = flow_updates_for(p, changes, id == origin, xid);
    if (out.updates.empty()) continue;
    counters_.flow_updates_sent += out.updates.size();
    send_chunked(p, 0, std::move(out), &of::FlowMonitorReply::updates);
  }
}

Agent::UpdateForm Agent::update_form(const Peer& p, const dp::FlowChange& c, bool own) const {
  const uint16_t flag = event_flag(c.event);
  UpdateForm form;
  form.full = !own;
  for (const auto& [mid, m] : p.monitors) {
    const uint16_t f = m.request.flags;
    if (!(f & flag) || ((f & of::flow_monitor::kOnlyOwn) && !own) || !m.selector.selects(*c.flow)) continue;
    form.selected = true;
    form.full |= (f & of::flow_monitor::kNoAbbrev) != 0;
    form.instructions |= (f & of::flow_monitor::kInstructions) != 0;
  }
  // 1.4 7.3.5.19: a removal carries no instructions.
  form.instructions &= c.event != of::FlowUpdateEvent::kRemoved;
  return form;
}

of::FlowMonitorReply Agent::flow_updates_for(const Peer& p, const std::vector<dp::FlowChange>& changes,
                                             bool own, uint32_t xid) const {
  of::FlowMonitorReply out;
  bool abbreviated = false;
  for (const dp::FlowChange& c : changes) {
    const UpdateForm f = update_form(p, c, own);
    if (!f.selected) continue;
    if (f.full) {
      out.updates.push_back(dp::flow_update(*c.flow, c.event, c.reason, f.instructions));
    } else if (!abbreviated) {
      of::FlowUpdate a;
      a.event = of::FlowUpdateEvent::kAbbrev;
      a.xid = xid;
      out.updates.push_back(std::move(a));
      abbreviated = true;
    }
  }
  return out;
}

}  // namespace flowlab::sw

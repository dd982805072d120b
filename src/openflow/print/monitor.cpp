// ofp-print of OpenFlow 1.4 flow monitoring, as Open vSwitch 3.1 prints it:
//   OFPST_FLOW_MONITOR reply (OF1.4) (xid=0x0):
//    event=ADDED table=0 idle_timeout=30 cookie=0x12 ip,nw_dst=10.0.0.1 actions=output:1
//    event=DELETED reason=delete table=0 cookie=0 in_port=1 actions=output:2
//    event=ABBREV xid=0x7
// (timeouts only when set, no priority, actions only with instructions).
#include <fmt/format.h>

#include <iterator>
#include <string>

#include "openflow/print/internal.h"
#include "openflow/text/flow_text.h"

namespace flowlab::of::print {
namespace {

// C's "%#x": "0" for zero, as OVS prints cookies and xids here.
std::string c_hex(uint64_t v) { return v == 0 ? "0" : fmt::format("{:#x}", v); }

}  // namespace

std::string flow_removed_reason(uint8_t r) {
  static constexpr std::string_view kNames[] = {"idle",         "hard",     "delete",
                                                "group_delete", "eviction", "meter_delete"};
  return r < std::size(kNames) ? std::string(kNames[r]) : fmt::format("{}", r);
}

std::string flow_monitor_reply(const FlowMonitorReply& r) {
  std::string s;
  for (const FlowUpdate& u : r.updates) {
    s += "\n event=";
    switch (u.event) {
      case FlowUpdateEvent::kInitial:
        s += "INITIAL";
        break;
      case FlowUpdateEvent::kAdded:
        s += "ADDED";
        break;
      case FlowUpdateEvent::kRemoved:
        s += "DELETED reason=" + flow_removed_reason(u.reason);
        break;
      case FlowUpdateEvent::kModified:
        s += "MODIFIED";
        break;
      case FlowUpdateEvent::kAbbrev:
        s += "ABBREV xid=" + c_hex(u.xid);
        continue;
      case FlowUpdateEvent::kPaused:
        s += "PAUSED";
        continue;
      case FlowUpdateEvent::kResumed:
        s += "RESUMED";
        continue;
      default:
        s += fmt::format("{}", uint16_t(u.event));
        continue;
    }
    s += fmt::format(" table={}", u.table_id);
    if (u.idle_timeout) s += fmt::format(" idle_timeout={}", u.idle_timeout);
    if (u.hard_timeout) s += fmt::format(" hard_timeout={}", u.hard_timeout);
    s += " cookie=" + c_hex(u.cookie) + " ";
    s += format_match(u.match);
    if (!u.instructions.empty()) {
      if (s.back() != ' ') s += ' ';
      s += "actions=" + format_instructions(u.instructions);
    }
  }
  return s;
}

std::string flow_monitor_request(const FlowMonitorRequest& r) {
  static constexpr std::string_view kCommands[] = {"add", "modify", "delete"};
  const uint8_t c = uint8_t(r.command);
  std::string s = fmt::format(" id={} command={} flags=", r.monitor_id,
                              c < std::size(kCommands) ? std::string(kCommands[c]) : fmt::format("{}", c));
  static constexpr std::string_view kFlags[] = {"initial", "add",       "delete",  "modify",
                                                "actions", "no_abbrev", "only_own"};
  std::string f;
  for (size_t i = 0; i < std::size(kFlags); ++i)
    if (r.flags & (1u << i)) f += std::string(kFlags[i]) + ",";
  if (r.flags & ~flow_monitor::kAllFlags) f += fmt::format("{:#x},", r.flags & ~flow_monitor::kAllFlags);
  s += f.empty() ? "0" : f.substr(0, f.size() - 1);
  if (r.table_id != table::kAll) s += fmt::format(" table={}", r.table_id);
  if (r.out_port != port::kAny) s += " out_port=" + format_port(r.out_port);
  if (r.out_group != group::kAny) s += fmt::format(" out_group={}", r.out_group);
  if (!r.match.empty()) s += " " + format_match(r.match);
  return s;
}

}  // namespace flowlab::of::print

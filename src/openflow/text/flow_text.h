// Flow text in ovs-ofctl syntax, both ways.
//
// Parsing: "table=0,priority=100,tcp,nw_dst=10.0.0.0/8,tp_dst=80,actions=output:2"
// becomes a FlowMod (match as a canonical OXM list sorted by field id, so that
// prerequisites precede the fields that need them; instructions in the OF1.3
// execution order meter, apply, clear, write, write-metadata, goto). The
// ovs-ofctl shorthands (ip, tcp, tcp6, arp, ...), the OF1.0 names (dl_*, nw_*,
// tp_*) and the OXM names are all accepted; prerequisites are added by the
// shorthands, and a field whose prerequisite is missing is an error naming it.
// Every error says which token is bad and why:
//   bad flow "in_port=1,foo=2": unknown field 'foo' at column 11
//
// Formatting follows `ovs-ofctl -O OpenFlow13 dump-flows` of Open vSwitch 3.1
// exactly for everything OVS can express (field order, shorthands, masks, port
// names, set_field spellings); fields OVS does not print get the obvious
// name=value form. Everything printed parses back to the same model.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::of {

struct FlowParseOptions {
  FlowModCommand command = FlowModCommand::kAdd;
  uint8_t version = kOf13;  // OF1.0: no instructions, enqueue stays enqueue
  // Table when the text names none: 0 for add/modify, table::kAll for the
  // match argument of dump-flows / del-flows.
  uint8_t default_table = 0;
  bool allow_actions = true;     // false: dump-flows / del-flows match text
  bool require_actions = false;  // add-flow: "actions=" must be present
};

// Parses a whole flow ("add-flow" / "mod-flows" / "del-flows" text).
Result<FlowMod> parse_flow_mod(std::string_view text, const FlowParseOptions& opts = {});
// The match argument of dump-flows / dump-aggregate: match, table, cookie/mask, out_port.
Result<FlowStatsRequest> parse_flow_stats_request(std::string_view text, uint8_t version = kOf13);
// "output:2,set_field:..." (may include instructions like goto_table:1).
// `match` is the flow's match, needed by mod_tp_* and mod_vlan_vid.
Result<InstructionList> parse_instructions(std::string_view text, const Match& match = {},
                                           uint8_t version = kOf13);
// A plain action list (no instructions), e.g. packet-out or group bucket actions.
Result<ActionList> parse_actions(std::string_view text, const Match& match = {}, uint8_t version = kOf13);
// A port number or name (LOCAL, CONTROLLER, IN_PORT, ANY, ...).
Result<uint32_t> parse_port(std::string_view text);

// "group_id=1,type=select,bucket=weight:10,watch_port:1,actions=output:1,bucket=..."
Result<GroupMod> parse_group_mod(std::string_view text, GroupModCommand cmd);
// "meter=1,kbps,burst,stats,bands=type=drop,rate=1000,burst_size=100"
Result<MeterMod> parse_meter_mod(std::string_view text, MeterModCommand cmd);
// "in_port=1,packet=HEX,actions=output:2"
Result<PacketOut> parse_packet_out(std::string_view text, uint8_t version = kOf13);

// ---- formatting ---------------------------------------------------------------

// "priority=100,tcp,in_port=1,nw_dst=10.0.0.0/8,tp_dst=80"; priority is printed
// unless it is the default 32768 (pass -1 to never print it).
std::string format_match(const Match& m, int priority = -1);
// "output:2,CONTROLLER:128,set_field:00:11:22:33:44:55->eth_dst"; empty -> "drop".
std::string format_actions(const ActionList& actions);
// Actions of apply-actions inline, other instructions by name; empty -> "drop".
std::string format_instructions(const InstructionList& insts);
std::string format_port(uint32_t port);  // "LOCAL", "CONTROLLER", "7", ...
// One dump-flows line without the trailing newline, e.g.
// " cookie=0x0, duration=1.234s, table=0, n_packets=0, n_bytes=0, priority=100,tcp actions=output:2".
// With show_stats=false: like `ovs-ofctl --no-stats`.
std::string format_flow_stats(const FlowStats& fs, bool show_stats = true);
// ovs-ofctl add-flow text of a flow-mod that parse_flow_mod() reads back identically.
std::string format_flow_mod_text(const FlowMod& fm);
// "1.234s" the way OVS prints durations.
std::string format_duration(uint32_t sec, uint32_t nsec);
// "group_id=1,type=all,bucket=actions=output:1" (dump-groups line without the leading space).
std::string format_group_desc(const GroupDesc& g);
std::string format_bucket(const Bucket& b, GroupType type);
// "meter=1 kbps burst stats bands=\ntype=drop rate=1000 burst_size=100"
std::string format_meter_config(const MeterConfig& mc);
// set_field value in ovs-ofctl form, e.g. "10.0.0.1" or "0x5/0xff".
std::string format_field_value(const OxmField& f);
// ovs-ofctl name of a basic field in set_field ("ip_dst", "tun_id", ...).
std::string_view set_field_name(OxmId id);

}  // namespace flowlab::of

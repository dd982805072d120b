// Request bodies of Ryu's ofctl_rest, decoded into flowlab's OpenFlow model:
// flow entries, group entries, meter entries, port modifications and the
// filter of POST /stats/flow/<dpid>. Every error names the key that is wrong.
// The switch's version matters (OF1.0 has no groups, meters or instructions),
// so decoding is two steps: parse_body() and body_dpid() find the switch, the
// decoders then build the message for its version.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "openflow/message.h"
#include "rest/ryu_json.h"

namespace flowlab::rest {

// A JSON object (Ryu sends nothing else); "bad JSON at byte N: ..." otherwise.
Result<Json> parse_body(std::string_view body);
// "dpid": a number or a decimal string, as Ryu accepts.
Result<uint64_t> body_dpid(const Json& body);
// A dpid in a URL path: decimal, as Ryu's routes take it.
Result<uint64_t> path_dpid(std::string_view s);

Result<of::FlowMod> flow_mod_from_json(const Json& body, of::FlowModCommand cmd, uint8_t version);
Result<of::FlowStatsRequest> flow_stats_request_from_json(const Json& body, uint8_t version);
Result<of::GroupMod> group_mod_from_json(const Json& body, of::GroupModCommand cmd, uint8_t version);
Result<of::MeterMod> meter_mod_from_json(const Json& body, of::MeterModCommand cmd);
// hw_addr, when absent from the body, is the switch's (Ryu looks it up the same way).
Result<of::PortMod> port_mod_from_json(const Json& body, const MacAddr& current_hw_addr);

// Names Ryu uses for group types and meter flags / band types.
std::string_view group_type_name(of::GroupType t);
Json meter_flags_to_json(uint16_t flags);
std::string_view meter_band_name(of::MeterBandType t);

}  // namespace flowlab::rest

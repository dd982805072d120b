// Ryu's ofctl_rest JSON <-> flowlab's OpenFlow model (src/openflow/message.h).
//
// Scripts written for Ryu send matches like {"dl_type": 2048, "nw_dst": "10.0.0.1"}
// and actions like [{"type": "OUTPUT", "port": 2}], and read flows back in the
// same spelling (old OF1.0 names for the common fields, "OUTPUT:2" strings for
// actions). Decoding is strict where Ryu is lax: an unknown field, a value of the
// wrong kind or a missing prerequisite is an error naming it, never a silently
// dropped field. Values are numbers or strings ("0x800", "10.0.0.0/24",
// "00:00:00:00:00:01", port names such as "LOCAL").
//
// Matches go through the ovs-ofctl flow-text parser (src/openflow/text/flow_text.h),
// so both use one field syntax; only whitelisted names and values made of
// [0-9A-Za-z.:/_-] reach it, so nothing in a JSON value can add a field.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::rest {

using Json = nlohmann::json;

// A JSON object of Ryu match fields -> match (canonical order).
Result<of::Match> match_from_json(const Json& j, uint8_t version = of::kOf13);
// Match -> Ryu's spelling: dl_src, nw_dst, tp_dst ..., masks as "value/mask".
Json match_to_json(const of::Match& m);

// Ryu's action list: plain actions become one apply-actions instruction;
// WRITE_ACTIONS, CLEAR_ACTIONS, GOTO_TABLE, WRITE_METADATA and METER become
// instructions (OF1.3 only). OF1.0's SET_DL_SRC ... names are accepted too.
Result<of::InstructionList> instructions_from_json(const Json& actions, const of::Match& match,
                                                   uint8_t version = of::kOf13);
// A plain action list (group buckets): instructions are an error here.
Result<of::ActionList> actions_from_json(const Json& actions, uint8_t version = of::kOf13);
// "OUTPUT:2", "SET_FIELD: {eth_dst:00:00:00:00:00:01}", "GOTO_TABLE:1", ...
std::string action_to_string(const of::Action& a);
Json actions_to_json(const of::ActionList& actions);
Json instructions_to_json(const of::InstructionList& insts);

// Ports, groups, meters, tables as users write them: a number or a reserved name.
Result<uint32_t> port_from_json(const Json& j, std::string_view what);
Json port_to_json(uint32_t port);  // 1 or "LOCAL", "CONTROLLER", ...

// Unsigned integer field of an object: a number or a "0x.."/decimal string, at
// most `max`; `def` when absent.
Result<uint64_t> uint_field(const Json& obj, std::string_view key, uint64_t def, uint64_t max);

// The flow-text parser's message without its flow-text framing (`bad flow "...": `,
// ` at column N`), which means nothing to someone who sent JSON.
std::string plain_text_error(std::string message);
// A string value that may go into flow text: digits, letters and . : / _ - only.
bool plain_value(std::string_view s);

}  // namespace flowlab::rest

// ofp-print: whole OpenFlow messages as text, in the style of `ovs-ofctl ofp-print`.
//
//   OFPT_FLOW_MOD (OF1.3) (xid=0x1): ADD priority=100,tcp,tp_dst=80 idle:30 actions=output:2
//   OFPST_FLOW reply (OF1.3) (xid=0x2):
//    cookie=0x0, duration=1.234s, table=0, n_packets=0, n_bytes=0, priority=100 actions=drop
//
// The first line is "<TYPE> (OF1.3) (xid=0x..):" ("(OF1.3)" is left out for
// OF1.0, as OVS does); multipart messages are named OFPST_<KIND> request/reply.
// Replies that `ovs-ofctl dump-*` prints (flows, ports, port desc, tables,
// groups, meters, features) follow OVS 3.1's layout line by line.
// Every line, the last included, ends with '\n'.
#pragma once

#include <string>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::of {

std::string format_message(const Message& m);
// "OFPST_FLOW reply (OF1.3) (xid=0x2):" — the first line without the body.
std::string format_message_header(const Message& m);
// ovs-style hex dump: "00000000  04 13 02 28 00 00 00 00-00 01 ... |...(....|", one line per 16 bytes.
std::string format_hexdump(ByteSpan b);
// " 1(eth0): addr:...\n     config: ...\n..." as in ovs-ofctl show / dump-ports-desc.
std::string format_port_desc(const PortDesc& p, uint8_t version);
// The body lines of a port-stats reply ("  port  1: rx pkts=...").
std::string format_port_stats(const PortStats& s, uint8_t version);
// The body of a table-stats reply, with OVS's "ditto" folding of equal tables.
std::string format_table_stats(const std::vector<TableStats>& tables, uint8_t version);

// ofp-parse: decodes concatenated messages and appends each one's text to `out`.
// Fails at the first malformed message: "message 2 (OFPT_FLOW_MOD) at byte offset
// 40: OFPBMC_BAD_PREREQ at offset 16: ..." (the texts of earlier ones stay in `out`).
Status format_message_stream(ByteSpan data, std::string& out);

}  // namespace flowlab::of

// `flowlab ofctl monitor SWITCH [watch:[SPEC]]` (OpenFlow 1.4 and 1.5): one
// flow monitor, its updates printed as they come, as ovs-ofctl prints them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "channel/sync_client.h"
#include "channel/sync_client_ofctl.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::channel {

// The monitor request of ovs-ofctl's "watch:[SPEC,...]" (SPEC: !initial,
// !add, !delete, !modify, !actions, !own, id=N, table=N, out_port=P and match
// fields). Without `!`, every event is watched with instructions
// (INITIAL|ADD|REMOVED|MODIFY|INSTRUCTIONS). `!own` drops this connection's
// own changes, and it makes none, so it changes nothing on the wire.
// OFPFMF_ONLY_OWN is never set (1.4's "only my changes"; Open vSwitch reads
// it as "mine too").
Result<of::FlowMonitorRequest> parse_watch(std::string_view text, uint8_t version);

// Sends the monitor request of `args` (args[0] the switch, then what
// ovs-ofctl takes: "watch:[SPEC]") and writes every reply to it to
// `opts.monitor_out` as it arrives (format_message), until the connection
// closes or `opts.monitor_count` updates (INITIAL ones included) were printed.
Status run_monitor(SyncClient& client, const std::vector<std::string>& args, const OfctlOptions& opts);

}  // namespace flowlab::channel

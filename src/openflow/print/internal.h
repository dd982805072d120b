// Private pieces of ofp-print shared between print.cpp and print_stats.cpp.
#pragma once

#include <string>

#include "openflow/message.h"

namespace flowlab::of::print {

std::string multipart_kind(MultipartType t);
std::string table_config(uint32_t config, const std::optional<TableVacancy>& vacancy);  // a 1.4 table-mod's
// Text after the header's ':' for multipart bodies (starts with ' ' or '\n', no trailing newline).
std::string reply_body(const MultipartReply& r, uint8_t version);
std::string request_body(const MultipartRequest& r);
// A queue's properties as ovs-ofctl prints them: " min_rate:5.0% max_rate:10.0%".
std::string queue_properties(const std::vector<QueueProperty>& props);
// OFPRR_* as OVS names them: idle, hard, delete, group_delete, eviction, meter_delete.
std::string flow_removed_reason(uint8_t r);
// OF1.4 flow monitoring (monitor.cpp): the reply's updates as `ovs-ofctl
// monitor` prints them, one "\n event=..." line each; the request's fields.
std::string flow_monitor_reply(const FlowMonitorReply& r);
std::string flow_monitor_request(const FlowMonitorRequest& r);
// OF1.5 controller status (print.cpp): " short_id=1 role=primary reason=request
// channel_status=up uri=tcp:..." (ovs-ofctl has no printer of its own for it).
std::string controller_status(const ControllerStatusEntry& e);

}  // namespace flowlab::of::print

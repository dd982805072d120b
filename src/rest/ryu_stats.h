// Multipart replies -> the JSON Ryu's ofctl_rest returns for them. Each function
// gets every part of one reply (multipart "more" parts concatenated by the
// caller) and returns the list (or object, for desc) that Ryu puts under the
// switch's dpid key: {"1": [...]}.
#pragma once

#include <vector>

#include "openflow/message.h"
#include "rest/ryu_json.h"

namespace flowlab::rest {

Json desc_to_json(const of::DescReply& d);
Json flow_stats_to_json(const std::vector<of::FlowStats>& flows, uint8_t version);
Json aggregate_to_json(const of::AggregateStatsReply& a);
Json port_stats_to_json(const std::vector<of::PortStats>& ports, uint8_t version);
Json port_desc_to_json(const std::vector<of::PortDesc>& ports, uint8_t version);
Json table_stats_to_json(const std::vector<of::TableStats>& tables, uint8_t version);
Json group_stats_to_json(const std::vector<of::GroupStats>& groups);
Json group_desc_to_json(const std::vector<of::GroupDesc>& groups);
Json meter_stats_to_json(const std::vector<of::MeterStats>& meters);
Json meter_config_to_json(const std::vector<of::MeterConfig>& configs);

}  // namespace flowlab::rest

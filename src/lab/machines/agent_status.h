// What an agent says of its part of a run (/flowlab/lab/runs/ID/status/NAME):
// building, ready or failed, and where its nodes are (namespaces and link ends),
// which the coordinator needs to run the tests. Pure; the decoder is fuzzed.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct AgentStatus {
  std::string machine;
  std::string case_name;
  std::string state;  // building | ready | failed
  std::string error;  // with failed
  std::string core_ns;
  std::map<std::string, std::string> host_ns;  // host -> namespace
  // Per link of the scenario: the ends built here ({ns, ifname}; ns empty: elsewhere).
  std::vector<std::pair<std::pair<std::string, std::string>, std::pair<std::string, std::string>>> link_ends;
  double build_s = 0;
  // The shaped links built here, as results.json records them (shaped_link_records,
  // each with its "machine"), as they stood when ready: their delay lines'
  // final counters come at the end of the tests (finish_parts.h).
  nlohmann::json shaped_links = nlohmann::json::array();
};

std::string encode_status(const AgentStatus& s);
Result<AgentStatus> decode_status(std::string_view text);

// An agent's registration (/flowlab/lab/agents/NAME).
struct AgentInfo {
  std::string name;
  std::string underlay;
  int pid = 0;
  std::string host;
};

std::string encode_agent(const AgentInfo& a);
Result<AgentInfo> decode_agent(std::string_view text);

}  // namespace flowlab::lab

// The JSON of an agent's status and registration.
#include "lab/machines/agent_status.h"

#include <nlohmann/json.hpp>

namespace flowlab::lab {

using nlohmann::json;

std::string encode_status(const AgentStatus& s) {
  json ends = json::array();
  // Explicit arrays: a list of string pairs would otherwise become an object.
  for (const auto& [a, b] : s.link_ends)
    ends.push_back(json::array({json::array({a.first, a.second}), json::array({b.first, b.second})}));
  return json{{"machine", s.machine}, {"case", s.case_name},  {"state", s.state},
              {"error", s.error},     {"core_ns", s.core_ns}, {"host_ns", s.host_ns},
              {"link_ends", ends},    {"build_s", s.build_s}, {"shaped_links", s.shaped_links}}
      .dump();
}

Result<AgentStatus> decode_status(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("agent status: not a JSON object");
  AgentStatus s;
  try {
    s.machine = j.at("machine").get<std::string>();
    s.case_name = j.at("case").get<std::string>();
    s.state = j.at("state").get<std::string>();
    s.error = j.value("error", std::string());
    s.core_ns = j.value("core_ns", std::string());
    s.build_s = j.value("build_s", 0.0);
    const json hosts = j.value("host_ns", json::object()), ends = j.value("link_ends", json::array());
    for (const auto& [h, ns] : hosts.items()) s.host_ns[h] = ns.get<std::string>();
    s.shaped_links = j.value("shaped_links", json::array());
    if (!s.shaped_links.is_array()) return fail("agent status: shaped_links is not an array");
    for (const auto& l : s.shaped_links)
      if (!l.is_object()) return fail("agent status: a shaped link record is not an object");
    for (const auto& e : ends)
      s.link_ends.push_back({{e.at(0).at(0).get<std::string>(), e.at(0).at(1).get<std::string>()},
                             {e.at(1).at(0).get<std::string>(), e.at(1).at(1).get<std::string>()}});
  } catch (const json::exception& e) {
    return fail("agent status: {}", e.what());
  }
  if (s.state != "building" && s.state != "ready" && s.state != "failed")
    return fail("agent status: unknown state '{}'", s.state);
  return s;
}

std::string encode_agent(const AgentInfo& a) {
  return json{{"name", a.name}, {"underlay", a.underlay}, {"pid", a.pid}, {"host", a.host}}.dump();
}

Result<AgentInfo> decode_agent(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("agent record: not a JSON object");
  AgentInfo a;
  try {
    a.name = j.at("name").get<std::string>();
    a.underlay = j.at("underlay").get<std::string>();
    a.pid = j.value("pid", 0);
    a.host = j.value("host", std::string());
  } catch (const json::exception& e) {
    return fail("agent record: {}", e.what());
  }
  if (a.name.empty() || a.underlay.empty()) return fail("agent record: no name or underlay address");
  return a;
}

}  // namespace flowlab::lab

// The JSON of exec requests and replies.
#include "lab/machines/exec_wire.h"

#include <nlohmann/json.hpp>

namespace flowlab::lab {

using nlohmann::json;

namespace {

// A cut that keeps the end (the last lines say most) and stays valid UTF-8 for
// the JSON encoder: it starts on a character boundary.
std::string capped(const std::string& s) {
  if (s.size() <= kExecOutputCap) return s;
  size_t from = s.size() - kExecOutputCap;
  while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
  return "[... cut]\n" + s.substr(from);
}

}  // namespace

std::string encode_exec_request(const ExecRequest& r) {
  json env = json::array();
  for (const auto& [k, v] : r.env) env.push_back(json::array({k, v}));
  return json{
      {"mode", r.mode},
      {"label", r.label},
      {"ns", r.ns},
      {"argv", r.argv},
      {"self", r.self},
      {"timeout_s", r.timeout_s},
      {"interruptible", r.interruptible},
      {"env", env},
      {"event",
       {{"action", r.event.action},
        {"node", r.event.node},
        {"link_a", r.event.link_a},
        {"link_b", r.event.link_b},
        {"set", {{"a_to_b", r.event.set.a_to_b.to_wire()}, {"b_to_a", r.event.set.b_to_a.to_wire()}}}}},
      {"file", r.file},
      {"offset", r.offset}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ExecRequest> decode_exec_request(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("exec request: not a JSON object");
  ExecRequest r;
  try {
    r.mode = j.at("mode").get<std::string>();
    r.label = j.value("label", std::string());
    r.ns = j.value("ns", std::string());
    r.argv = j.value("argv", std::vector<std::string>());
    r.self = j.value("self", false);
    r.timeout_s = j.value("timeout_s", 10.0);
    r.interruptible = j.value("interruptible", true);
    r.file = j.value("file", std::string());
    r.offset = j.value("offset", uint64_t(0));
    const json env = j.value("env", json::array());
    for (const auto& e : env) r.env.emplace_back(e.at(0).get<std::string>(), e.at(1).get<std::string>());
    const json ev = j.value("event", json::object());
    r.event.action = ev.value("action", std::string());
    r.event.node = ev.value("node", std::string());
    r.event.link_a = ev.value("link_a", std::string());
    r.event.link_b = ev.value("link_b", std::string());
    const json set = ev.value("set", json::object());
    for (auto [dir, shape] :
         {std::pair{"a_to_b", &r.event.set.a_to_b}, std::pair{"b_to_a", &r.event.set.b_to_a}}) {
      if (!set.contains(dir)) continue;
      auto s = link_shape_from_wire(set.at(dir));
      if (!s.ok()) return fail("exec request: event set {}: {}", dir, s.error().message);
      *shape = *s;
    }
  } catch (const json::exception& e) {
    return fail("exec request: {}", e.what());
  }
  if (r.mode == "event") {
    const auto& a = r.event.action;
    if (a != "down" && a != "up" && a != "kill" && a != "start" && a != "set")
      return fail("exec request: unknown event '{}'", a);
    if ((a == "kill" || a == "start") == r.event.node.empty())
      return fail("exec request: event {} without its node", a);
    if (a == "set" && r.event.set.empty()) return fail("exec request: event set without a shape");
    return r;
  }
  if (r.mode == "restore" || r.mode == "finish") return r;
  if (r.mode == "fetch") {
    if (r.file.empty() || r.file.find('/') != std::string::npos || r.file == "." || r.file == "..")
      return fail("exec request: fetch of a bad file name '{}'", r.file);
    return r;
  }
  if (r.mode == "capture") {  // argv: a_ns, a_if, b_ns, b_if (an end with no interface: not here)
    if (r.label.empty() || r.argv.size() != 4) return fail("exec request: capture without its link's ends");
    if ((r.argv[1].empty() && r.argv[3].empty()))
      return fail("exec request: capture {} with no end on this machine", r.label);
    for (size_t k : {0, 2})
      if (r.argv[k].find('/') != std::string::npos || r.argv[k] == "." || r.argv[k] == "..")
        return fail("exec request: bad namespace '{}'", r.argv[k]);
    return r;
  }
  if (r.mode != "run" && r.mode != "spawn") return fail("exec request: unknown mode '{}'", r.mode);
  if (r.argv.empty()) return fail("exec request: empty argv");
  if (!(r.timeout_s > 0 && r.timeout_s <= 86400))
    return fail("exec request: timeout {} s out of range", r.timeout_s);
  if (r.ns.empty() || r.ns.find('/') != std::string::npos)
    return fail("exec request: bad namespace '{}'", r.ns);
  return r;
}

std::string encode_exec_reply(const ExecReply& r) {
  return json{{"state", r.state},
              {"error", r.error},
              {"exit_code", r.exit_code},
              {"timed_out", r.timed_out},
              {"interrupted", r.interrupted},
              {"out", capped(r.out)},
              {"err", capped(r.err)},
              {"log", capped(r.log)}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ExecReply> decode_exec_reply(std::string_view text) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("exec reply: not a JSON object");
  ExecReply r;
  try {
    r.state = j.at("state").get<std::string>();
    r.error = j.value("error", std::string());
    r.exit_code = j.value("exit_code", -1);
    r.timed_out = j.value("timed_out", false);
    r.interrupted = j.value("interrupted", false);
    r.out = j.value("out", std::string());
    r.err = j.value("err", std::string());
    r.log = j.value("log", std::string());
  } catch (const json::exception& e) {
    return fail("exec reply: {}", e.what());
  }
  if (r.state != "running" && r.state != "exited" && r.state != "failed")
    return fail("exec reply: unknown state '{}'", r.state);
  return r;
}

}  // namespace flowlab::lab

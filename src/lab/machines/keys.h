// Where a lab across machines lives in etcd (the one shared state):
//
//   /flowlab/lab/agents/NAME            an agent, under its lease: {"name","underlay","pid","host"}
//   /flowlab/lab/runs/ID/record         the run: {"scenario","machines","coordinator","started_at"}
//   /flowlab/lab/runs/ID/plan           the case being built (plan.h), read by every agent
//   /flowlab/lab/runs/ID/status/NAME    what agent NAME built of it, under its lease (agent_status.h)
//   /flowlab/lab/runs/ID/exec/NAME/SEQ  a command for one of agent NAME's namespaces (exec_wire.h)
//   /flowlab/lab/runs/ID/reply/NAME/SEQ its answer: running, exited with its output, or failed
//   /flowlab/lab/pieces/ID/NAME/SEQ     a piece of a capture file asked by request SEQ (raw
//                                       bytes; outside runs/, so the agents' watches skip it)
//
// Agents build what the plans name them in and tear down what no plan names;
// deleting /flowlab/lab/runs/ID/ (from any machine: `lab down ID --etcd`) takes
// the run down everywhere.
#pragma once

#include <string>
#include <string_view>

namespace flowlab::lab::keys {

inline constexpr std::string_view kAgents = "/flowlab/lab/agents/";
inline constexpr std::string_view kRuns = "/flowlab/lab/runs/";
inline constexpr std::string_view kPieces = "/flowlab/lab/pieces/";

inline std::string agent(std::string_view name) { return std::string(kAgents) + std::string(name); }
inline std::string run(std::string_view id) { return std::string(kRuns) + std::string(id) + "/"; }
inline std::string record(std::string_view id) { return run(id) + "record"; }
inline std::string plan(std::string_view id) { return run(id) + "plan"; }
inline std::string statuses(std::string_view id) { return run(id) + "status/"; }
inline std::string status(std::string_view id, std::string_view name) {
  return statuses(id) + std::string(name);
}
inline std::string execs(std::string_view id, std::string_view name) {
  return run(id) + "exec/" + std::string(name) + "/";
}
inline std::string exec(std::string_view id, std::string_view name, std::string_view seq) {
  return execs(id, name) + std::string(seq);
}
inline std::string replies(std::string_view id, std::string_view name) {
  return run(id) + "reply/" + std::string(name) + "/";
}
inline std::string reply(std::string_view id, std::string_view name, std::string_view seq) {
  return replies(id, name) + std::string(seq);
}

inline std::string pieces(std::string_view id) { return std::string(kPieces) + std::string(id) + "/"; }
inline std::string piece(std::string_view id, std::string_view name, std::string_view seq) {
  return pieces(id) + std::string(name) + "/" + std::string(seq);
}

// The run id of a key under kRuns ("" if it is not one).
inline std::string run_of(std::string_view key) {
  if (key.substr(0, kRuns.size()) != kRuns) return {};
  key.remove_prefix(kRuns.size());
  return std::string(key.substr(0, key.find('/')));
}

}  // namespace flowlab::lab::keys

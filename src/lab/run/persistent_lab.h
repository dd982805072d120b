// A lab left running (containerlab's deploy, Mininet's CLI without the CLI):
//   flowlab lab up FILE|--topo ...   builds one case and leaves it up; prints its id
//   flowlab lab exec LAB HOST CMD... runs CMD in the host's namespace (Mininet's `h1 ping h2`:
//                                    an argument that is a host's name becomes its address)
//   flowlab lab status               the labs that are up
//   flowlab lab down LAB             tears it down
//   flowlab lab capture LAB LINK     a live pcap of one link on stdout (`| tshark -r -`)
// `up` forks a supervisor (own session) that builds the case like `run` does and then
// waits for SIGTERM (or, with `--owner PID`, for that process to exit); everything it creates is recorded in
// its run state, so `lab clean --force` removes a lab whose supervisor died, and `down` is a SIGTERM to the
// recorded supervisor (pid + start time, never a name). The record is
// STATE/<id>/lab.json: {id, scenario, case, pid, start, out_dir, hosts: {h1: netns},
// addresses: {h1: 10.0.0.1}, links: [{name, a, b, a_ns, a_if, b_ns, b_if}]}, and for
// a lab across machines (`up --etcd|--machines`, lab/machines) `across`: {etcd, run,
// machines, placement: {node: machine}}, so `exec` reaches a host this machine cannot
// enter through its machine's agent.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/capture/pcap_capture.h"
#include "lab/run/runner.h"

namespace flowlab::lab {

// What builds the case of `lab up` on other machines (lab/machines): made in the
// supervisor before the build, destroyed after the teardown.
class LabBuilder {
 public:
  virtual ~LabBuilder() = default;
  virtual Status build(RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& case_out,
                       CaseTopology& topo) = 0;
  // The record's `across`, once built.
  virtual nlohmann::json across() const = 0;
};
using LabBuilderFactory = std::function<Result<std::unique_ptr<LabBuilder>>(const std::string& out_dir)>;
// `lab exec` of a host whose namespace is not on this machine: (across, host, its
// namespace, the command) -> the command's exit code.
using AcrossExec = std::function<Result<int>(const nlohmann::json&, const std::string&, const std::string&,
                                             const std::vector<std::string>&)>;

// Returns the exit code for the CLI (in the parent: 0 once the lab is up).
// With `capture`, the case's links are captured to files from bring-up to down;
// with `metrics` (or the scenario's `metrics:`), a Prometheus scrapes the case's
// flowlab switches and controllers (its address in lab.json's "prometheus").
// With `across`, the case is built by what it makes.
// `lab_id`, when given, receives the id of the lab brought up.
// With an `owner` (a pid), the lab goes down by itself when that process exits, on
// any path (a Mininet script killed with SIGKILL): the supervisor holds a pidfd of it.
Result<int> lab_up(const std::string& label, const std::string& text, const std::string& only_case,
                   const std::string& out_dir, const CaptureOptions& capture = {}, bool metrics = false,
                   const LabBuilderFactory& across = {}, std::string* lab_id = nullptr, pid_t owner = 0);
// Mininet's CLI rule: every argument after the command that is exactly a host's
// name becomes that host's address ("ping h2" -> "ping 10.0.0.2"); cmd[0] stays.
std::vector<std::string> with_host_addresses(const std::vector<std::string>& cmd,
                                             const std::map<std::string, std::string>& addresses);
// Replaces the process with `ip netns exec NS CMD...`; returns only on error, or
// with the command's exit code when it ran through `across` (a host on another machine).
Result<int> lab_exec(const std::string& lab, const std::string& host, const std::vector<std::string>& cmd,
                     const AcrossExec& across = {});
std::string lab_status();
// The record of a lab whose supervisor is alive (lab.json above), or why there is none.
Result<nlohmann::json> running_lab_record(const std::string& lab);
Status lab_down(const std::string& lab, double timeout_s = 60);
// `flowlab lab capture`: both directions of the one link `link` names (link_select.h)
// as a pcap stream on stdout until Ctrl-C, the reader leaves or the lab goes down.
// Errors (no such lab, no such link) come before the first byte.
// A lab across machines: the stream comes from the agents holding the link's ends
// through `across` (lab/machines/live_capture.h's capture_across).
using AcrossCapture =
    std::function<Status(const nlohmann::json& across, const CaptureTarget& t, const std::string& node_a,
                         const std::string& node_b, FILE* out, const std::function<bool()>& should_stop)>;
Status lab_capture(const std::string& lab, const std::string& link, const AcrossCapture& across = {});

}  // namespace flowlab::lab

// The lab's commands across machines, on top of the coordinator and the agents:
//   flowlab lab run FILE --etcd E | --machines N     every case, its tests, the report
//   flowlab lab up FILE --etcd E | --machines N      one case left standing on the machines
//   flowlab lab exec LAB HOST CMD...                 a host on another machine: through its agent
//   flowlab lab status --etcd E                      the runs and agents etcd knows, from any machine
// `up`'s supervisor holds the coordinator (and, with --machines, the emulated
// machines and their etcd) until `lab down LAB`; if it dies, `lab down ID --etcd`
// takes the run down everywhere.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/run/persistent_lab.h"

namespace flowlab::lab {

struct RunOptions;

// `--etcd E` or `--machines N` and the underlay's settings, for `run` and `up`.
struct MachinesOptions {
  std::string etcd;
  int machines = 0;
  int vxlan_port = 4789;
  int underlay_mtu = 0;  // 0: the scenario's `underlay: {mtu}`, else 1500
  double underlay_rate_bps =
      0;  // the NIC's rate: --machines shapes to it; the verdicts' bound (0: the scenario's)
  bool exec_on_agents = false;
};

// `lab run ... --etcd E | --machines N`: the scenario across the machines of etcd
// E's agents, or of N emulated machines (emulation.h) started and removed around the run.
Result<int> run_across_machines(const std::string& file, RunOptions opts, const MachinesOptions& m);

// `lab up ... --etcd E | --machines N`: what lab_up's supervisor builds the case with.
// `text` is the scenario (empty: read `file`). Errors in the options come now.
Result<LabBuilderFactory> machines_builder(const std::string& file, const std::string& text,
                                           const MachinesOptions& m);

// `lab exec` of a host on another machine: the command through that machine's
// agent (no stdin; its output once it ends, bounded by an hour; Ctrl-C stops it).
Result<int> exec_across(const nlohmann::json& across, const std::string& host, const std::string& netns,
                        const std::vector<std::string>& argv);

// `lab status --etcd E`: the agents registered and the runs in etcd, each with its
// scenario, case, coordinator and what every machine reports of it.
Result<std::string> runs_status(const std::string& etcd);

}  // namespace flowlab::lab

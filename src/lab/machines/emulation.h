// `flowlab lab run --machines N`: a lab across N machines on one box.
//
// Each machine is a network namespace (flR-mK) holding only its underlay end,
// ul0 203.0.113.K+1/24, a veth to one bridge in the underlay's namespace (flR-ul),
// which can be shaped like a NIC (a token bucket on each machine's port, both
// ways). An etcd member of the lab's own (Debian's /usr/bin/etcd on free loopback
// ports, its data dir in /dev/shm) holds the shared state, and each machine runs
// its own `flowlab lab agent` process, whose tunnels start in that machine's
// namespace. Everything, agents, etcd, namespaces and data dir, is removed by
// the destructor (or by `flowlab lab clean` after a kill -9: all are recorded in
// the run state).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"

namespace flowlab::lab {

struct EmulationOptions {
  int machines = 3;
  int underlay_mtu = 1500;
  double underlay_rate_bps = 0;  // 0: unshaped
  std::string log_dir;           // where the agents' and etcd's logs are kept at the end (empty: nowhere)
};

class EmulatedMachines {
 public:
  static Result<std::unique_ptr<EmulatedMachines>> start(const EmulationOptions& opts);
  ~EmulatedMachines();
  EmulatedMachines(const EmulatedMachines&) = delete;
  EmulatedMachines& operator=(const EmulatedMachines&) = delete;

  const std::string& etcd() const { return etcd_; }
  // Each agent's log, for error messages.
  std::string agent_logs() const;

 private:
  EmulatedMachines() = default;
  Status start_etcd();
  Status make_underlay(const EmulationOptions& opts);
  Status start_agents(int n);

  std::unique_ptr<RunState> state_;
  std::string data_dir_, etcd_, log_dir_;
  Process etcd_proc_;
  std::vector<Netns> namespaces_;
  std::vector<Process> agents_;
};

}  // namespace flowlab::lab

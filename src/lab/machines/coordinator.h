// The coordinator's side of a lab across machines: `flowlab lab run --etcd`.
//
// It builds nothing itself. For each case it places the nodes on the live agents
// (plan.h), writes the run's record and the case's plan to etcd, and waits until
// every machine's agent says ready (or failed, or its lease went: an error that
// names the machine). The case's hosts are then where the agents say; the tests
// run from here: in a host's namespace when it is on this machine (or on the
// emulated machines of `--machines N`, which share it), through the host's agent
// otherwise (remote_exec.h).
// Taking a case down erases its plan and waits for the agents' statuses to go.
// Destroying the coordinator erases the whole run from etcd, and with it what
// every agent built; if the coordinator dies, `flowlab lab down ID --etcd` does.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "coord/etcd_client.h"
#include "core/result.h"
#include "lab/run/case_topology.h"

namespace flowlab::lab {

struct CoordinatorOptions {
  std::string etcd;           // endpoints
  std::string scenario_text;  // what every agent parses (the file's text, or --topo's)
  std::string file;           // its label
  int vxlan_port = 4789;
  int underlay_mtu = 1500;
  double ready_timeout_s = 300;
  bool exec_on_agents = false;   // every host's commands through its agent, even when here
  double underlay_rate_bps = 0;  // the NIC's rate when known (emulated: shaped to it), for the verdicts
};

class Coordinator {
 public:
  static Result<std::unique_ptr<Coordinator>> connect(CoordinatorOptions opts);
  ~Coordinator();
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  // The live agents: name -> underlay address.
  Result<std::map<std::string, std::string>> agents();
  // Waits until at least `n` agents are registered, at most `timeout_s`.
  Status wait_agents(size_t n, double timeout_s);

  // build_case's counterpart across machines (RunContext::build).
  Status build(RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& case_out,
               CaseTopology& topo);

  // Of the last case built: its run's id, its machines and where its nodes are.
  const std::string& run_id() const { return run_; }
  const std::vector<std::string>& machines() const { return machines_; }
  const std::map<std::string, std::string>& placement() const { return placement_; }
  const std::string& etcd() const { return opts_.etcd; }

 private:
  explicit Coordinator(CoordinatorOptions opts, coord::EtcdConfig cfg);
  Status take_down(const std::string& case_name);
  void unroute();

  CoordinatorOptions opts_;
  coord::EtcdConfig cfg_;
  coord::EtcdClient etcd_;
  std::vector<std::string> routed_;  // namespaces whose commands go to agents
  std::string run_;                  // set by the first build
  std::vector<std::string> machines_;
  std::map<std::string, std::string> placement_;
  std::string etcd_lost_;  // the case's first failed look at etcd, told in its record
};

// `flowlab lab down ID --etcd E`: erases run ID from etcd (its agents tear down
// what they built) and waits, bounded, until no agent reports a part of it.
Status down_run(const std::string& etcd, const std::string& run_id);

}  // namespace flowlab::lab

// One Open vSwitch (ovsdb-server + ovs-vswitchd, userspace netdev datapath) per case,
// shared by every OVS switch of the case: each switch is a bridge br-<switch> on it.
// Two vswitchd in one namespace would fight over the datapath's "ovs-netdev" tap,
// which is also why ovs and ovs-tso (a global setting) cannot mix in one case.
//
// Private run dir (OVS_RUNDIR/LOGDIR/DBDIR) under the run's scratch dir; both daemons
// run in the foreground under supervision, logs in the case's out dir. Stopped when
// the last switch that uses it lets go (shared_ptr), vswitchd first.
//
// Events: `do: kill` on an OVS switch SIGKILLs this ovs-vswitchd (so every OVS
// switch of the case goes down with it, as on a real host); `do: start` starts it
// again on the same database, which still holds the bridges, ports, controller
// and fail mode, so it comes back as it was configured.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/result.h"
#include "lab/host/process.h"

namespace flowlab::lab {

struct CaseEnv;
class RunState;

class OvsDaemon {
 public:
  OvsDaemon() = default;
  OvsDaemon(const OvsDaemon&) = delete;
  OvsDaemon& operator=(const OvsDaemon&) = delete;
  ~OvsDaemon() { stop(); }

  // Starts the daemons on first use; later calls check that `tso` matches.
  Status ensure_started(const CaseEnv& env, bool tso);
  bool started() const { return !dir_.empty(); }
  void stop();
  // Events: SIGKILL ovs-vswitchd (ovsdb-server keeps running); start it again.
  Status kill_vswitchd();
  Status start_vswitchd();
  bool vswitchd_running();

  const std::string& dir() const { return dir_; }
  std::vector<std::pair<std::string, std::string>> env() const;
  std::vector<std::string> vsctl(std::vector<std::string> args) const;
  // Why a daemon died (its log tail), empty while both run.
  std::string dead();
  // Deletes every flow of the datapath's cache (`ovs-appctl revalidator/purge`, which
  // returns once they are gone), so that the next packets are translated by the
  // OpenFlow tables as they are now. A flow-table change that ovs-ofctl has completed
  // (its barrier answered) reaches the datapath's cached flows only when the
  // revalidator threads next go over them: until then packets still follow the flows
  // that were deleted (mobility.py's `del-flows`, then an echo reply sent the way its
  // host was before it moved).
  Status purge_datapath_flows() const;

 private:
  std::string dir_;
  bool tso_ = false;
  std::vector<Process> procs_;  // ovsdb-server, ovs-vswitchd
  std::string core_ns_, out_dir_;
  RunState* state_ = nullptr;
};

}  // namespace flowlab::lab

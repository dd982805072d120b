// The case's flowlab switches in one process: `flowlab switch-host` in the core
// namespace (src/switch/switch_host.h), shared by every flowlab switch of the
// case as the case's ovs-vswitchd is by its OVS switches (ovs_daemon.h). Each
// switch is added over the host's control socket with the arguments a
// `flowlab switch` process of its own would get, and is stopped and started
// again alone (events, Mininet's `switch S stop|start`): the others keep
// forwarding. The host goes when the case's switches go (stop(): every switch
// closed at once).
//
// FLOWLAB_SWITCH_HOST=0 in the lab's environment gives every flowlab switch a
// process of its own again (as before; the benchmark compares both).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/process.h"

namespace flowlab::lab {

struct CaseEnv;

class SwitchHostProcess {
 public:
  SwitchHostProcess() = default;
  SwitchHostProcess(const SwitchHostProcess&) = delete;
  SwitchHostProcess& operator=(const SwitchHostProcess&) = delete;
  ~SwitchHostProcess() { stop(); }

  // Whether the case's flowlab switches go in a host: not when
  // FLOWLAB_SWITCH_HOST=0, nor when the core namespace is on another machine.
  static bool wanted(const CaseEnv& env);
  // Starts the host on first use (on the thread that lives as long as the lab,
  // as every child: see Process) and waits until its control socket answers.
  Status ensure_started(const CaseEnv& env);
  // Requests (switch_host.h): each returns once the host has done it.
  Status add(const std::string& name, const std::vector<std::string>& switch_args);
  Status stop_switch(const std::string& name);
  Status start_switch(const std::string& name);
  Status remove_switch(const std::string& name);
  bool running();
  // Why the host died (its log tail), empty while it runs.
  std::string dead();
  // SIGTERM: the host stops every switch (in parallel), then exits.
  void stop();

 private:
  Result<std::string> request(const std::vector<std::string>& fields, double timeout_s);
  std::mutex mu_;
  std::string socket_;
  Process proc_;
};

}  // namespace flowlab::lab

// Per-run state file: what a lab run created (namespaces, processes, directories),
// kept on disk as it changes so that `flowlab lab clean` can remove exactly that
// after the lab was killed with -9, and nothing else.
//
// Layout: STATE_ROOT/<runid>/state.json, STATE_ROOT = $FLOWLAB_STATE_DIR, else
// /run/flowlab when writable, else /tmp/flowlab-runs. Processes are recorded with
// their start time (field 22 of /proc/PID/stat) so a recycled pid is never killed.
// The run's owner (the lab's pid + start time) is recorded too: `clean` leaves runs
// whose owner is still alive unless forced.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

std::string state_root();
uint64_t process_start_time(pid_t pid);  // 0 if the process does not exist or is a zombie

class RunState {
 public:
  static Result<std::unique_ptr<RunState>> create(const std::string& scenario);
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;
  // Removes the state file and the run dir: call once everything recorded is gone.
  ~RunState();

  const std::string& id() const { return id_; }
  const std::string& dir() const { return dir_; }  // private scratch dir (OVS run dirs)

  void add_netns(const std::string& name);
  void remove_netns(const std::string& name);
  // Many at once (one write of the state file); thread-safe like the rest.
  void add_netns(const std::vector<std::string>& names);
  void remove_netns(const std::vector<std::string>& names);
  void add_process(pid_t pid, const std::string& label);
  void remove_process(pid_t pid);

 private:
  RunState() = default;
  void save() const;
  struct Proc {
    pid_t pid;
    uint64_t start;
    std::string label;
  };
  mutable std::mutex mu_;
  std::string id_, dir_, scenario_;
  std::vector<std::string> netns_;
  std::vector<Proc> procs_;
};

struct CleanReport {
  std::vector<std::string> actions;  // "killed pid 123 (ovs-vswitchd)", "deleted netns fl..."
  std::vector<std::string> kept;     // runs left alone because their lab is alive
};
// Removes what crashed runs left. `force` also cleans runs whose lab is alive,
// stopping that lab's own process first (SIGTERM, SIGKILL after 3 s);
// `only_scenario` limits it to the runs created under that label (an agent's own).
CleanReport clean_runs(bool force, const std::string& only_scenario = {});

}  // namespace flowlab::lab

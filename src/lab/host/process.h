// Process supervision for the lab: bounded one-shot commands (run_command) and
// supervised long-running children (Process), optionally inside a network namespace
// (through `ip netns exec`, which execs in place, so the pid we hold is the tool's).
//
// Every child runs in its own process group (so a tree is stopped with one kill),
// with PR_SET_PDEATHSIG=SIGKILL (so a `kill -9` of the lab takes its children too,
// when they have not reparented) and stdin from /dev/null. The lab's SIGINT/SIGTERM
// handler only sets a flag; waits here poll it and return early, so the caller unwinds
// and the RAII owners tear everything down.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

class RunState;

// SIGINT/SIGTERM set a flag instead of killing the lab. Idempotent.
void install_signal_handlers();
bool interrupted();
int interrupt_signal();  // the signal received, 0 if none
// Sleeps up to `seconds`, returning early (false) when interrupted.
bool sleep_unless_interrupted(double seconds);

struct CommandOptions {
  std::string netns;          // empty: the lab's own namespace
  double timeout_s = 10;      // the child's process group is killed past this
  bool interruptible = true;  // false for teardown: runs to the end despite SIGINT
  std::vector<std::pair<std::string, std::string>> env;
};

inline CommandOptions in_ns(std::string ns, double timeout_s = 10) {
  CommandOptions o;
  o.netns = std::move(ns);
  o.timeout_s = timeout_s;
  return o;
}
inline CommandOptions with_timeout(double timeout_s) { return in_ns("", timeout_s); }
// For teardown commands, which must run even after SIGINT/SIGTERM.
inline CommandOptions uninterruptible(double timeout_s) {
  CommandOptions o = with_timeout(timeout_s);
  o.interruptible = false;
  return o;
}

struct CommandResult {
  int exit_code = -1;  // -1: did not exit normally
  bool timed_out = false;
  bool interrupted = false;
  std::string out, err;

  bool ok() const { return exit_code == 0 && !timed_out && !interrupted; }
  // "exit 1: <last stderr line>" / "timed out after 10 s" for error messages.
  std::string describe() const;
};

CommandResult run_command(const std::vector<std::string>& argv, const CommandOptions& opts = {});
// Runs and returns ok or an error naming the command and its stderr.
Status run_checked(const std::vector<std::string>& argv, const CommandOptions& opts = {});
// True if `name` is an executable path or found on PATH.
bool have_program(const std::string& name);
// The flowlab binary itself (/proc/self/exe), for helper subcommands.
std::string self_binary();

// Commands for a namespace on another machine. run_command and Process::spawn
// hand a command for a routed namespace to its RemoteExec (machines/ routes a
// host's namespace to the agent of the machine it is on); nothing here knows how
// the command gets there.
class RemoteChild {
 public:
  virtual ~RemoteChild() = default;
  virtual bool running() = 0;
  virtual int exit_code() const = 0;
  virtual void stop(double grace_s) = 0;
  virtual std::string log_tail(size_t bytes) const = 0;
};

class RemoteExec {
 public:
  virtual ~RemoteExec() = default;
  virtual CommandResult run(const std::vector<std::string>& argv, const CommandOptions& opts) = 0;
  virtual Result<std::unique_ptr<RemoteChild>> spawn(const std::string& label,
                                                     const std::vector<std::string>& argv,
                                                     const CommandOptions& opts) = 0;
};

// Commands for namespace `ns` go to `exec` from now on; nullptr: here again.
void route_netns(const std::string& ns, std::shared_ptr<RemoteExec> exec);
// The RemoteExec routed for `ns`, nullptr if its commands run here.
std::shared_ptr<RemoteExec> routed_netns(const std::string& ns);

// A supervised child; stopped (SIGTERM, then SIGKILL after a grace period) by
// stop() or the destructor. Registered in the RunState while it lives.
class Process {
 public:
  static Result<Process> spawn(std::string label, const std::vector<std::string>& argv,
                               const CommandOptions& opts, const std::string& log_path, RunState* state);
  Process() = default;
  Process(Process&& o) noexcept { *this = std::move(o); }
  Process& operator=(Process&& o) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process() { stop(); }

  pid_t pid() const { return pid_; }  // -1 for a child on another machine
  const std::string& label() const { return label_; }
  const std::string& log_path() const { return log_path_; }
  bool running();
  int exit_code() const { return remote_ ? remote_->exit_code() : exit_code_; }
  // Waits up to `seconds` for the child to exit on its own; true if it did.
  bool wait_exit(double seconds);
  void stop(double grace_s = 2.0);
  std::string log_tail(size_t bytes = 1500) const;

 private:
  void reap(int status);
  pid_t pid_ = -1;
  int exit_code_ = -1;
  std::string label_, log_path_;
  RunState* state_ = nullptr;
  std::shared_ptr<RemoteChild> remote_;  // set for a child in a routed namespace
};

}  // namespace flowlab::lab

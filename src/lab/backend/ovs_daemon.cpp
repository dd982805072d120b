// The case's shared Open vSwitch daemons (see ovs_daemon.h).
#include "lab/backend/ovs_daemon.h"

#include <signal.h>

#include <filesystem>

#include "core/clock.h"
#include "lab/backend/backends.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> OvsDaemon::env() const {
  return {{"OVS_RUNDIR", dir_}, {"OVS_LOGDIR", dir_}, {"OVS_DBDIR", dir_}};
}

std::vector<std::string> OvsDaemon::vsctl(std::vector<std::string> args) const {
  std::vector<std::string> a = {"ovs-vsctl", "--db=unix:" + dir_ + "/db.sock", "--timeout=10"};
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

Status OvsDaemon::purge_datapath_flows() const {
  if (dir_.empty()) return fail("Open vSwitch is not running in this case");
  return run_checked({"ovs-appctl", "-t", dir_ + "/ovs-vswitchd.ctl", "revalidator/purge"}, with_timeout(10));
}

std::string OvsDaemon::dead() {
  for (auto& p : procs_)
    if (!p.running())
      return fmt::format("{} exited (code {}); log {}: {}", p.label(), p.exit_code(), p.log_path(),
                         p.log_tail(600));
  return {};
}

Status OvsDaemon::ensure_started(const CaseEnv& env, bool tso) {
  if (started()) {
    if (tso != tso_)
      return fail(
          "ovs and ovs-tso switches cannot share a case (one ovs-vswitchd per namespace; TSO is global)");
    return ok_status();
  }
  const std::string R = env.scratch_dir + "/ovs";
  std::error_code ec;
  fs::create_directories(R, ec);
  if (ec) return fail("cannot create {}: {}", R, ec.message());
  dir_ = R;
  tso_ = tso;
  CommandOptions o = in_ns(env.core_ns, 15);
  o.env = this->env();
  CommandOptions here = with_timeout(15);
  here.env = this->env();
  // A case run again (--repeat) reuses its scratch dir: start from an empty database.
  fs::remove(R + "/conf.db", ec);
  fs::remove(R + "/.conf.db.~lock~", ec);
  FLOWLAB_TRY(run_checked(
      {"ovsdb-tool", "create", R + "/conf.db", "/usr/share/openvswitch/vswitch.ovsschema"}, here));
  FLOWLAB_ASSIGN_OR_RETURN(
      auto db, Process::spawn("ovsdb-server",
                              {"ovsdb-server", R + "/conf.db", "--remote=punix:" + R + "/db.sock",
                               "--pidfile=" + R + "/ovsdb-server.pid", "--unixctl=" + R + "/ovsdb-server.ctl",
                               "--log-file=" + env.out_dir + "/ovsdb-server.log"},
                              o, env.out_dir + "/ovsdb-server.out", env.state));
  procs_.push_back(std::move(db));
  uint64_t deadline = monotonic_ns() + 10'000'000'000ULL;
  while (!fs::exists(R + "/db.sock")) {
    if (auto d = dead(); !d.empty()) return fail("ovsdb-server socket: {}", d);
    if (monotonic_ns() > deadline) return fail("ovsdb-server socket: not ready after 10 s");
    if (!sleep_unless_interrupted(0.1)) return fail("interrupted");
  }
  FLOWLAB_TRY(run_checked(vsctl({"--no-wait", "init"}), here));
  if (tso)
    FLOWLAB_TRY(run_checked(
        vsctl({"--no-wait", "set", "Open_vSwitch", ".", "other_config:userspace-tso-enable=true"}), here));
  core_ns_ = env.core_ns;
  out_dir_ = env.out_dir;
  state_ = env.state;
  return start_vswitchd();
}

Status OvsDaemon::start_vswitchd() {
  if (!started() || procs_.empty()) return fail("ovs-vswitchd: the case's OVS daemons were never started");
  if (procs_.size() > 1) {
    if (procs_[1].running()) return fail("ovs-vswitchd is already running");
    procs_.pop_back();
  }
  const std::string& R = dir_;
  CommandOptions o = in_ns(core_ns_, 15);
  o.env = env();
  // Appends to its log: the lines of the killed daemon stay readable above.
  FLOWLAB_ASSIGN_OR_RETURN(
      auto vs,
      Process::spawn("ovs-vswitchd",
                     {"ovs-vswitchd", "unix:" + R + "/db.sock", "--pidfile=" + R + "/ovs-vswitchd.pid",
                      "--unixctl=" + R + "/ovs-vswitchd.ctl", "--log-file=" + out_dir_ + "/ovs-vswitchd.log"},
                     o, out_dir_ + "/ovs-vswitchd.out", state_));
  procs_.push_back(std::move(vs));
  return ok_status();
}

bool OvsDaemon::vswitchd_running() { return procs_.size() > 1 && procs_[1].running(); }

Status OvsDaemon::kill_vswitchd() {
  if (!vswitchd_running()) return fail("ovs-vswitchd is not running");
  Process& p = procs_[1];
  ::kill(-p.pid(), SIGKILL);
  if (!p.wait_exit(5)) return fail("ovs-vswitchd did not die after SIGKILL");
  // A SIGKILLed vswitchd cannot remove its pidfile; the next one must not find it.
  std::error_code ec;
  fs::remove(dir_ + "/ovs-vswitchd.pid", ec);
  return ok_status();
}

void OvsDaemon::stop() {
  for (auto it = procs_.rbegin(); it != procs_.rend(); ++it) it->stop();
  procs_.clear();
}

}  // namespace flowlab::lab

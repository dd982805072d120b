// Switch and controller backends: the same topology node realised by flowlab's own
// switch/controller or by a peer (Open vSwitch userspace, Linux bridge, os-ken).
//
// Placement (see docs/LAB.md): every case gets a private "core" namespace that holds
// the switches' ports, the switch processes and the controllers; controllers listen
// on the core namespace's loopback (127.0.0.1:6653, 6654, ...), so parallel runs never
// compete for ports and nothing of a case is visible in the lab's own namespace.
// Hosts live each in their own namespace, a veth to the switch port.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/backend/ovs_daemon.h"
#include "lab/backend/switch_host.h"
#include "lab/host/netlink.h"
#include "lab/host/process.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

class RunState;

// What a backend needs to know about the case it runs in.
struct CaseEnv {
  std::string core_ns;      // namespace of switches and controllers
  std::string out_dir;      // logs and raw outputs of this case
  std::string scratch_dir;  // short private dir (OVS sockets), removed with the run
  std::string flowlab_bin;  // the flowlab binary for `switch`/`controller`/`ofctl`
  RunState* state = nullptr;
  std::shared_ptr<OvsDaemon> ovs;  // shared by the case's OVS switches, started by the first
  // The process hosting the case's flowlab switches (switch_host.h), started by the
  // first; null: each flowlab switch is a process of its own.
  std::shared_ptr<SwitchHostProcess> switch_host;
};

// Why a backend cannot run here (a peer is not installed), empty if it can.
std::string missing_peer(const SwitchSpec& s);
std::string missing_peer(const ControllerSpec& c, const std::string& flowlab_bin);
// Established TCP connections to `port` in the namespace NS (a sock_diag dump).
size_t connections_to(const std::string& ns, int port);

class ControllerInstance {
 public:
  ControllerInstance(ControllerSpec spec, int port) : spec_(std::move(spec)), port_(port) {}
  Status start(const CaseEnv& env);
  void stop();
  int port() const { return port_; }
  // Where it listens: the core namespace's loopback, or its own namespace's address
  // with a controller_link (set before start()).
  void set_listen_host(std::string host) { host_ = std::move(host); }
  const std::string& host() const { return host_; }
  // A flowlab controller's `--metrics HOST:PORT` (set before start(); empty: none).
  void set_metrics(std::string address) { metrics_ = std::move(address); }
  const ControllerSpec& spec() const { return spec_; }
  // The controller's statistics (flowlab --stats-json), or null when it has none.
  nlohmann::json stats() const;
  bool running() { return proc_.running(); }
  std::string log_tail() const { return proc_.log_tail(); }
  // Events: SIGKILL the controller's process group, as a crash would.
  Status kill_now();
  // A remote controller: the address:port the relay reaches (after start()).
  std::string remote_target() const { return remote_target_; }

 private:
  Status start_remote(const CaseEnv& env);

  ControllerSpec spec_;
  std::string remote_target_;
  int port_;
  std::string host_ = "127.0.0.1";
  std::string metrics_;
  std::string stats_path_;
  Process proc_;
};

// One of a lab switch's controllers: it connects to tcp:HOST:PORT.
struct ControllerTarget {
  std::string host;
  int port = 0;
};

class SwitchInstance {
 public:
  // ports: interface names in the core namespace, in OpenFlow port order (1, 2, ...).
  SwitchInstance(SwitchSpec spec, std::vector<std::string> ports, int listen_port)
      : spec_(std::move(spec)), ports_(std::move(ports)), listen_port_(listen_port) {}
  ~SwitchInstance() { stop(); }
  SwitchInstance(const SwitchInstance&) = delete;
  SwitchInstance& operator=(const SwitchInstance&) = delete;

  // With no controller (set_controllers): OVS standalone / NORMAL, a bridge as is.
  Status start(const CaseEnv& env);
  // The switch's controllers (set before start()): connected at once, or one at a
  // time when its spec asks for failover; wait_connected() waits for the first.
  void set_controllers(std::vector<ControllerTarget> controllers) { controllers_ = std::move(controllers); }
  // A flowlab switch's `--metrics HOST:PORT` (set before start(); empty: none).
  void set_metrics(std::string address) { metrics_ = std::move(address); }
  // start() in two halves, for many switches at once: spawn() forks a flowlab
  // switch (call it on the thread that lives as long as the lab: the child dies with
  // that thread, PR_SET_PDEATHSIG) and wait_started() waits until it listens (any
  // thread). For the other kinds spawn() is start() and wait_started() is ok.
  Status spawn(const CaseEnv& env);
  Status wait_started();
  // Waits (bounded) until the switch holds an OpenFlow connection to its controller.
  Status wait_connected(double timeout_s);
  void stop();
  const SwitchSpec& spec() const { return spec_; }
  // The host this flowlab switch runs in, null when it is a process of its own.
  SwitchHostProcess* host() const { return hosted_ ? env_.switch_host.get() : nullptr; }
  // linux-bridge with stp: waits until every port is forwarding or blocking (no port
  // listening or learning) on two polls in a row; ok at once for other switches.
  Status wait_stp_settled(double timeout_s);
  // Raw per-port counters (ovs-ofctl/flowlab ofctl dump-ports, ip -s link) and flows.
  // A Linux bridge's come from `core_links` (one netlink dump of the core namespace
  // for all bridges; dumped here when null).
  nlohmann::json counters(const std::vector<LinkInfo>* core_links = nullptr) const;
  // Events: SIGKILL the switch process (flowlab switches; for OVS the case's
  // ovs-vswitchd, see ovs_daemon.h), and start it again with the same arguments
  // (then wait for its controller connection).
  Status kill_now();
  Status restart(double connect_timeout_s);
  // One ovs-ofctl command on this switch: args = {VERB, ARGS...} in ovs-ofctl's syntax,
  // through ovs-ofctl for OVS and flowlab ofctl for flowlab switches (Mininet's
  // dpctl); a Linux bridge has no OpenFlow tables (exit 1, a message on err).
  CommandResult ofctl(const std::vector<std::string>& args, double timeout_s = 10) const;

 private:
  Status start_ovs(const CaseEnv& env);
  Status start_bridge(const CaseEnv& env);
  Status start_flowlab(const CaseEnv& env);
  Status spawn_flowlab(const CaseEnv& env);
  Status wait_flowlab_listening();
  // An OVS bridge is named as its switch (its own database per lab: `ovs-vsctl
  // get-controller s1` as with Mininet); a Linux bridge br-NAME in the core namespace.
  std::string bridge_name() const { return is_ovs() ? spec_.name : "br-" + spec_.name; }
  // The OpenFlow number of ports_[i]: as the scenario declares it, else i + 1.
  int port_number(size_t i) const;
  bool is_ovs() const;

  SwitchSpec spec_;
  std::vector<std::string> ports_;
  int listen_port_;
  std::vector<ControllerTarget> controllers_;
  // The first controller's port (0: none): the connection wait_connected() looks for.
  int controller_port() const { return controllers_.empty() ? 0 : controllers_.front().port; }
  std::string metrics_;
  CaseEnv env_;
  std::string stats_path_;      // flowlab switch --stats-file
  std::vector<Process> procs_;  // in start order; stopped in reverse
  bool hosted_ = false;         // a switch of env_.switch_host, not a process of its own
};

}  // namespace flowlab::lab

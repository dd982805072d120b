// Switch and controller backends (see backends.h): flowlab, Open vSwitch userspace
// (netdev datapath, private run dir, optional userspace TSO), Linux bridge with an
// optional Neutron-style iptables security group, os-ken.
#include "lab/backend/backends.h"

#include <netinet/tcp.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/clock.h"
#include "lab/backend/controller_relay.h"
#include "lab/host/netns.h"
#include "lab/host/run_state.h"
#include "lab/host/sock_diag.h"

namespace flowlab::lab {

namespace fs = std::filesystem;

namespace {

// Sockets of the core namespace from a sock_diag dump (sock_diag.h), no fork of
// `ss`: a listener on `port`, or how many connections are established to `port`.
bool listening_on(const std::string& ns, int port) {
  auto socks = tcp_sockets(ns, tcp_state_bit(TCP_LISTEN));
  return socks.ok() && count_tcp(*socks, uint16_t(port), 0) > 0;
}

}  // namespace

size_t connections_to(const std::string& ns, int port) {
  auto socks = tcp_sockets(ns, tcp_state_bit(TCP_ESTABLISHED));
  return socks.ok() ? count_tcp(*socks, 0, uint16_t(port)) : 0;
}

namespace {

// Polls `ready` every 5 ms (the check is one netlink dump) up to `timeout_s`; fails
// early when `alive` says the process died, with its log tail.
template <typename Ready, typename Alive>
Status wait_until(double timeout_s, const std::string& what, Ready ready, Alive alive) {
  uint64_t deadline = monotonic_ns() + uint64_t(timeout_s * 1e9);
  for (;;) {
    if (ready()) return ok_status();
    if (auto dead = alive(); !dead.empty()) return fail("{}: {}", what, dead);
    if (monotonic_ns() > deadline) return fail("{}: not ready after {:.0f} s", what, timeout_s);
    if (!sleep_unless_interrupted(0.005)) return fail("interrupted");
  }
}

std::string exited_msg(Process& p) {
  if (p.running()) return {};
  std::string tail = p.log_tail(600);
  return fmt::format("{} exited (code {}); log {}: {}", p.label(), p.exit_code(), p.log_path(), tail);
}

}  // namespace

std::string missing_peer(const SwitchSpec& s) {
  switch (s.kind) {
    case SwitchKind::kOvs:
    case SwitchKind::kOvsTso:
      for (const char* p : {"ovs-vswitchd", "ovsdb-server", "ovsdb-tool", "ovs-vsctl", "ovs-ofctl"})
        if (!have_program(p)) return fmt::format("Open vSwitch is not installed ({} missing)", p);
      if (!fs::exists("/usr/share/openvswitch/vswitch.ovsschema")) return "Open vSwitch schema missing";
      return {};
    case SwitchKind::kLinuxBridge:
      if (s.security_group && !have_program("iptables")) return "iptables is not installed";
      return {};
    case SwitchKind::kFlowlab:
      return {};
  }
  return {};
}

std::string missing_peer(const ControllerSpec& c, const std::string& flowlab_bin) {
  switch (c.kind) {
    case ControllerKind::kOsKen:
      if (!have_program("/usr/bin/osken-manager")) return "os-ken is not installed (/usr/bin/osken-manager)";
      if (!fs::exists(c.app_file)) return fmt::format("os-ken app '{}' not found", c.app_file);
      return {};
    case ControllerKind::kFlowlab:
      if (!have_program(flowlab_bin)) return "flowlab binary not found";
      return {};
    case ControllerKind::kRemote:  // runs elsewhere: start() says whether it answers
    case ControllerKind::kNone:
      return {};
  }
  return {};
}

// ---- controllers ---------------------------------------------------------------

Status ControllerInstance::start(const CaseEnv& env) {
  std::vector<std::string> argv;
  std::string log = env.out_dir + "/" + spec_.name + "-controller.log";
  if (spec_.kind == ControllerKind::kFlowlab) {
    stats_path_ = env.out_dir + "/" + spec_.name + "-stats.json";
    argv = {env.flowlab_bin, "controller", "--listen", fmt::format("ptcp:{}", port_)};
    for (const auto& a : spec_.apps) argv.insert(argv.end(), {"--app", a});
    if (!spec_.config.empty()) argv.insert(argv.end(), {"--config", spec_.config});
    argv.insert(argv.end(), {"--stats-json", stats_path_});
    if (!metrics_.empty()) argv.insert(argv.end(), {"--metrics", metrics_});
  } else if (spec_.kind == ControllerKind::kOsKen) {
    argv = {"/usr/bin/osken-manager", "--ofp-listen-host",   host_,
            "--ofp-tcp-listen-port",  std::to_string(port_), spec_.app_file};
  } else if (spec_.kind == ControllerKind::kRemote) {
    return start_remote(env);
  } else {
    return ok_status();
  }
  CommandOptions o = in_ns(env.core_ns);
  // os-ken runs on Debian's python; a python first on PATH has no os_ken.
  if (spec_.kind == ControllerKind::kOsKen) o.env = {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};
  FLOWLAB_ASSIGN_OR_RETURN(
      proc_, Process::spawn(fmt::format("{} controller {}", to_string(spec_.kind), spec_.name), argv, o, log,
                            env.state));
  return wait_until(
      90, fmt::format("controller {} listening on {}:{}", spec_.name, host_, port_),
      [&] { return listening_on(env.core_ns, port_); }, [&] { return exited_msg(proc_); });
}

// A controller the lab does not start: it must answer now (Mininet warns and goes on
// with switches that never connect; a lab run would only time out later), then the
// relay (controller_relay.h) carries the switches' connections to it.
Status ControllerInstance::start_remote(const CaseEnv& env) {
  const std::string& addr = spec_.address;
  int port = spec_.port;
  std::string why;
  // No port: 6653, else 6633 (Mininet's RemoteController looks for both).
  for (int p : port ? std::vector<int>{port} : std::vector<int>{6653, 6633}) {
    auto st = probe_tcp(addr, p, 3);
    if (st.ok()) {
      port = p;
      why.clear();
      break;
    }
    why += (why.empty() ? "" : "; ") + st.error().message;
  }
  if (!why.empty())
    return fail(
        "remote controller {} does not answer ({}): start it first, or give its address with "
        "--controller remote,ip=A,port=P (nothing was left running)",
        spec_.name, why);
  remote_target_ = fmt::format("{}:{}", addr, port);
  // A controller at an address of its own (not the loopback, which the case's own
  // controllers share): the relay listens on that address and port in the core
  // namespace, the address put on its loopback, so the switches connect to the
  // controller's address as Mininet's do and their logs name it (controlnet.py
  // follows its switch's connections by the controller's address).
  if (addr.rfind("127.", 0) != 0) {
    // `replace`: two controllers on one machine (one address, two ports) share it.
    FLOWLAB_TRY(run_checked({"ip", "-n", env.core_ns, "addr", "replace", addr + "/32", "dev", "lo"},
                            with_timeout(10)));
    host_ = addr;
    port_ = port;
  }
  std::vector<std::string> argv = {
      env.flowlab_bin, "lab",           "controller-relay",    "--netns", env.core_ns,   "--listen-host",
      host_,           "--listen-port", std::to_string(port_), "--to",    remote_target_};
  FLOWLAB_ASSIGN_OR_RETURN(
      proc_, Process::spawn(fmt::format("relay to remote controller {}", spec_.name), argv, with_timeout(10),
                            env.out_dir + "/" + spec_.name + "-relay.log", env.state));
  return wait_until(
      30,
      fmt::format("relay to controller {} ({}) listening on {}:{}", spec_.name, remote_target_, host_, port_),
      [&] {
        // Several relays may listen on one port (controllers at addresses of their own):
        // this one's line says it listens (written once its socket is bound).
        return host_ == "127.0.0.1" ? listening_on(env.core_ns, port_)
                                    : proc_.log_tail(2000).find("relay: " + host_ + ":") != std::string::npos;
      },
      [&] { return exited_msg(proc_); });
}

void ControllerInstance::stop() { proc_.stop(); }

nlohmann::json ControllerInstance::stats() const {
  if (stats_path_.empty()) return nullptr;
  std::ifstream in(stats_path_);
  if (!in) return nullptr;
  try {
    nlohmann::json j;
    in >> j;
    return j;
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

// ---- switches ------------------------------------------------------------------

int SwitchInstance::port_number(size_t i) const {
  if (spec_.port_numbers.empty() || i >= ports_.size()) return int(i) + 1;
  const std::string& ifn = ports_[i];
  std::string name = ifn.size() > spec_.name.size() + 1 ? ifn.substr(spec_.name.size() + 1) : ifn;
  auto it = std::find(spec_.ports.begin(), spec_.ports.end(), name);
  return it == spec_.ports.end() ? int(i) + 1 : spec_.port_number(size_t(it - spec_.ports.begin()));
}

Status SwitchInstance::start(const CaseEnv& env) {
  env_ = env;
  switch (spec_.kind) {
    case SwitchKind::kOvs:
    case SwitchKind::kOvsTso:
      return start_ovs(env);
    case SwitchKind::kLinuxBridge:
      return start_bridge(env);
    case SwitchKind::kFlowlab:
      return start_flowlab(env);
  }
  return ok_status();
}

Status SwitchInstance::start_ovs(const CaseEnv& env) {
  if (!env.ovs) return fail("switch {}: no Open vSwitch for the case", spec_.name);
  FLOWLAB_TRY(env.ovs->ensure_started(env, spec_.kind == SwitchKind::kOvsTso));
  CommandOptions here = with_timeout(15);
  here.env = env.ovs->env();
  auto vsctl = [&](std::vector<std::string> args) { return env.ovs->vsctl(std::move(args)); };
  std::string br = bridge_name();
  FLOWLAB_TRY(run_checked(
      vsctl(
          {"add-br", br, "--", "set", "bridge", br, "datapath_type=netdev",
           "protocols=" + (spec_.protocols.empty() ? std::string("OpenFlow10,OpenFlow13") : spec_.protocols),
           fmt::format("other-config:datapath-id={:016x}", spec_.dpid)}),
      here));
  for (size_t i = 0; i < ports_.size(); ++i)
    FLOWLAB_TRY(run_checked(vsctl({"add-port", br, ports_[i], "--", "set", "interface", ports_[i],
                                   fmt::format("ofport_request={}", port_number(i))}),
                            here));
  if (!controllers_.empty()) {
    FLOWLAB_TRY(run_checked(vsctl({"set-fail-mode", br, "secure"}), here));
    // One Controller row per controller, each out of band, in one transaction
    // (`set controller BRIDGE` names a bridge's row only while it has one).
    std::string rows;
    std::vector<std::string> cmd;
    for (size_t i = 0; i < controllers_.size(); ++i) {
      rows += fmt::format("{}@c{}", i ? "," : "", i);
      cmd.insert(cmd.end(), {"--", fmt::format("--id=@c{}", i), "create", "controller",
                             fmt::format("target=\"tcp:{}:{}\"", controllers_[i].host, controllers_[i].port),
                             "connection-mode=out-of-band"});
    }
    std::vector<std::string> set = {"set", "bridge", br, "controller=[" + rows + "]"};
    set.insert(set.end(), cmd.begin(), cmd.end());
    FLOWLAB_TRY(run_checked(vsctl(set), here));
  } else {
    FLOWLAB_TRY(run_checked(vsctl({"set-fail-mode", br, "standalone"}), here));
  }
  return ok_status();
}

Status SwitchInstance::start_bridge(const CaseEnv& env) {
  auto o = in_ns(env.core_ns);
  std::string br = bridge_name();
  // Kernel STP (in a namespace other than the first the kernel runs it itself, no
  // userspace helper); netlink, no `ip` per port (netns.h).
  FLOWLAB_TRY(create_bridge(env.core_ns, br, spec_.stp, ports_));
  if (!spec_.security_group) return ok_status();
  // Neutron's hybrid plug: bridged traffic goes through iptables (br_netfilter, per
  // namespace sysctl); each port gets an ingress chain: return traffic accepted by
  // conntrack, then the allow rules, then drop.
  FLOWLAB_TRY(run_checked({"sysctl", "-q", "-w", "net.bridge.bridge-nf-call-iptables=1"}, o));
  for (const auto& p : ports_) {
    std::string chain = "flsg-" + p;
    FLOWLAB_TRY(run_checked({"iptables", "-N", chain}, o));
    FLOWLAB_TRY(run_checked({"iptables", "-A", "FORWARD", "-m", "physdev", "--physdev-out", p,
                             "--physdev-is-bridged", "-j", chain},
                            o));
    FLOWLAB_TRY(run_checked(
        {"iptables", "-A", chain, "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"}, o));
    FLOWLAB_TRY(
        run_checked({"iptables", "-A", chain, "-m", "conntrack", "--ctstate", "INVALID", "-j", "DROP"}, o));
    for (const auto& r : spec_.sg_rules) {
      std::vector<std::string> rule = {"iptables", "-A", chain};
      if (r.proto != "any") rule.insert(rule.end(), {"-p", r.proto});
      if (!r.src.empty()) rule.insert(rule.end(), {"-s", r.src});
      if (r.port && (r.proto == "tcp" || r.proto == "udp"))
        rule.insert(rule.end(), {"--dport", std::to_string(r.port)});
      rule.insert(rule.end(), {"-j", "ACCEPT"});
      FLOWLAB_TRY(run_checked(rule, o));
    }
    FLOWLAB_TRY(run_checked({"iptables", "-A", chain, "-j", "DROP"}, o));
  }
  return ok_status();
}

Status SwitchInstance::spawn(const CaseEnv& env) {
  if (spec_.kind != SwitchKind::kFlowlab) return start(env);
  env_ = env;
  return spawn_flowlab(env);
}

Status SwitchInstance::wait_started() {
  return spec_.kind == SwitchKind::kFlowlab ? wait_flowlab_listening() : ok_status();
}

Status SwitchInstance::start_flowlab(const CaseEnv& env) {
  FLOWLAB_TRY(spawn_flowlab(env));
  return wait_flowlab_listening();
}

Status SwitchInstance::spawn_flowlab(const CaseEnv& env) {
  std::vector<std::string> argv = {env.flowlab_bin, "switch", "--name",
                                   spec_.name,      "--dpid", fmt::format("{:#x}", spec_.dpid)};
  for (size_t i = 0; i < ports_.size(); ++i)
    argv.insert(argv.end(), {"--port", fmt::format("{}={}", ports_[i], port_number(i))});
  for (const auto& c : controllers_)
    argv.insert(argv.end(), {"--controller", fmt::format("tcp:{}:{}", c.host, c.port)});
  if (!controllers_.empty() && spec_.controller_failover) argv.push_back("--controller-failover");
  if (!spec_.protocols.empty()) argv.insert(argv.end(), {"--protocols", spec_.protocols});
  argv.insert(argv.end(), {"--listen", fmt::format("ptcp:{}", listen_port_)});
  stats_path_ = env.out_dir + "/" + spec_.name + "-switch-stats.json";
  argv.insert(argv.end(), {"--stats-file", stats_path_});
  if (!metrics_.empty()) argv.insert(argv.end(), {"--metrics", metrics_});
  argv.insert(argv.end(), spec_.extra_args.begin(), spec_.extra_args.end());
  if (env.switch_host && SwitchHostProcess::wanted(env)) {
    // The same arguments, to the case's switch host: it answers once the switch listens.
    FLOWLAB_TRY(env.switch_host->ensure_started(env));
    FLOWLAB_TRY(env.switch_host->add(spec_.name, {argv.begin() + 2, argv.end()}));
    hosted_ = true;
    return ok_status();
  }
  FLOWLAB_ASSIGN_OR_RETURN(auto p, Process::spawn("flowlab switch " + spec_.name, argv, in_ns(env.core_ns),
                                                  env.out_dir + "/" + spec_.name + "-switch.log", env.state));
  procs_.push_back(std::move(p));
  return ok_status();
}

Status SwitchInstance::wait_flowlab_listening() {
  if (hosted_) return ok_status();  // the host's add answered once it listened
  // 60 s, as for the controller connection: a switch's start is CPU-bound, and 15 s
  // was missed by the tenth switch of linear,10 (waves of 4) at load 70-90;
  // a switch that dies is caught at once by exited_msg, not by the bound.
  return wait_until(
      60, fmt::format("flowlab switch {} listening on ptcp:{}", spec_.name, listen_port_),
      [&] { return listening_on(env_.core_ns, listen_port_); }, [&] { return exited_msg(procs_.back()); });
}

Status SwitchInstance::wait_connected(double timeout_s) {
  if (!controller_port() || spec_.kind == SwitchKind::kLinuxBridge) return ok_status();
  // Any switch/controller pair: an established TCP connection to the controller's
  // port inside the core namespace (both ends live there).
  return wait_until(
      timeout_s,
      fmt::format("switch {} connecting to the controller on port {}", spec_.name, controller_port()),
      [&] { return connections_to(env_.core_ns, controller_port()) > 0; },
      [&]() -> std::string {
        if (hosted_) return env_.switch_host->dead();
        for (auto& p : procs_)
          if (auto m = exited_msg(p); !m.empty()) return m;
        return env_.ovs && (spec_.kind == SwitchKind::kOvs || spec_.kind == SwitchKind::kOvsTso)
                   ? env_.ovs->dead()
                   : std::string();
      });
}

Status SwitchInstance::wait_stp_settled(double timeout_s) {
  if (spec_.kind != SwitchKind::kLinuxBridge || !spec_.stp) return ok_status();
  int settled = 0;
  std::string last;
  auto ready = [&] {
    auto links = namespace_links(env_.core_ns);
    if (!links.ok()) return false;
    int br = 0;
    for (const auto& l : *links)
      if (l.name == bridge_name()) br = l.index;
    bool ok = br != 0;
    last.clear();
    for (const auto& l : *links) {
      if (br == 0 || l.master != br) continue;
      std::string st = bridge_port_state_name(l.bridge_port_state);
      last += l.name + "=" + st + " ";
      if (st != "forwarding" && st != "blocking" && st != "disabled") ok = false;
    }
    settled = ok ? settled + 1 : 0;
    return settled >= 2;
  };
  uint64_t deadline = monotonic_ns() + uint64_t(timeout_s * 1e9);
  while (!ready()) {
    if (monotonic_ns() > deadline)
      return fail("bridge {}: STP did not settle in {:.0f} s ({})", bridge_name(), timeout_s, last);
    if (!sleep_unless_interrupted(0.5)) return fail("interrupted");
  }
  return ok_status();
}

void SwitchInstance::stop() {
  if (hosted_) {
    hosted_ = false;
    // Alone (a case torn down stops the whole host first, every switch at once).
    if (env_.switch_host->running()) (void)env_.switch_host->remove_switch(spec_.name);
    return;
  }
  for (auto it = procs_.rbegin(); it != procs_.rend(); ++it) it->stop();
  procs_.clear();
}

CommandResult SwitchInstance::ofctl(const std::vector<std::string>& args, double timeout_s) const {
  CommandResult r;
  if (args.empty()) {
    r.exit_code = 2;
    r.err = "give an ovs-ofctl command (dump-flows, add-flow FLOW, ...)";
    return r;
  }
  std::vector<std::string> argv;
  CommandOptions o = with_timeout(timeout_s);
  if (spec_.kind == SwitchKind::kOvs || spec_.kind == SwitchKind::kOvsTso) {
    o.env = env_.ovs->env();
    argv = {"ovs-ofctl", "-O", "OpenFlow13", args[0],
            "unix:" + env_.ovs->dir() + "/" + bridge_name() + ".mgmt"};
  } else if (spec_.kind == SwitchKind::kFlowlab) {
    o.netns = env_.core_ns;
    argv = {env_.flowlab_bin, "ofctl", args[0], fmt::format("tcp:127.0.0.1:{}", listen_port_)};
  } else {
    r.exit_code = 1;
    r.err = fmt::format("{} is a Linux bridge: it has no OpenFlow tables", spec_.name);
    return r;
  }
  argv.insert(argv.end(), args.begin() + 1, args.end());
  return run_command(argv, o);
}

nlohmann::json SwitchInstance::counters(const std::vector<LinkInfo>* core_links) const {
  nlohmann::json j;
  j["kind"] = to_string(spec_.kind);
  auto keep = [&](const char* key, const CommandResult& r) {
    j[key] = r.ok() ? r.out : "error: " + r.describe();
  };
  if (spec_.kind == SwitchKind::kOvs || spec_.kind == SwitchKind::kOvsTso) {
    CommandOptions o = with_timeout(10);
    o.env = env_.ovs->env();
    std::string mgmt = "unix:" + env_.ovs->dir() + "/" + bridge_name() + ".mgmt";
    keep("dump_ports", run_command({"ovs-ofctl", "-O", "OpenFlow13", "dump-ports", mgmt}, o));
    keep("dump_flows", run_command({"ovs-ofctl", "-O", "OpenFlow13", "dump-flows", mgmt}, o));
  } else if (spec_.kind == SwitchKind::kFlowlab) {
    std::string target = fmt::format("tcp:127.0.0.1:{}", listen_port_);
    keep("dump_ports", run_command({env_.flowlab_bin, "ofctl", "dump-ports", target}, in_ns(env_.core_ns)));
    keep("dump_flows", run_command({env_.flowlab_bin, "ofctl", "dump-flows", target}, in_ns(env_.core_ns)));
    // The switch's own counters (to-controller queue, packet-ins, buffers),
    // written every 500 ms by --stats-file.
    std::ifstream in(stats_path_);
    auto stats = nlohmann::json::parse(in, nullptr, false);
    if (!stats.is_discarded()) {
      // Which datapath ran (tc: eBPF fast path, af-packet) and packets per path.
      if (stats.contains("fast_path")) j["datapath"] = stats["fast_path"].value("datapath", "");
      j["stats"] = stats;
    }
  } else {
    // The bridge's ports from netlink, printed like dump-ports (explain.cpp sums them)
    // and, with STP, each port's state as `bridge link` prints it.
    std::vector<LinkInfo> dumped;
    if (!core_links) {
      auto d = namespace_links(env_.core_ns);
      if (d.ok())
        dumped = std::move(*d);
      else
        j["dump_ports"] = "error: " + d.error().message;
      core_links = &dumped;
    }
    int br = 0;
    for (const auto& l : *core_links)
      if (l.name == bridge_name()) br = l.index;
    std::string ports, stp;
    for (const auto& l : *core_links) {
      if (br == 0 || l.master != br) continue;
      ports += fmt::format("  port {}: rx pkts={}, bytes={}, drop={}, errs={}\n", l.name, l.rx_packets,
                           l.rx_bytes, l.rx_dropped, l.rx_errors);
      ports += fmt::format("           tx pkts={}, bytes={}, drop={}, errs={}\n", l.tx_packets, l.tx_bytes,
                           l.tx_dropped, l.tx_errors);
      stp += fmt::format("{}: master {} state {}\n", l.name, bridge_name(),
                         bridge_port_state_name(l.bridge_port_state));
    }
    if (!j.contains("dump_ports")) j["dump_ports"] = ports;
    if (spec_.stp) j["stp_ports"] = stp;
    if (spec_.security_group) {
      keep("iptables", run_command({"iptables", "-L", "-v", "-n", "-x"}, in_ns(env_.core_ns)));
      keep("conntrack_count",
           run_command({"cat", "/proc/sys/net/netfilter/nf_conntrack_count"}, in_ns(env_.core_ns)));
    }
  }
  return j;
}

// ---- events: kill and start again ------------------------------------

namespace {

Status kill_group(Process& p) {
  if (p.pid() <= 0 || !p.running()) return fail("{} is not running", p.label());
  ::kill(-p.pid(), SIGKILL);
  if (!p.wait_exit(5)) return fail("{} did not die after SIGKILL", p.label());
  return ok_status();
}

}  // namespace

Status ControllerInstance::kill_now() { return kill_group(proc_); }

bool SwitchInstance::is_ovs() const {
  return spec_.kind == SwitchKind::kOvs || spec_.kind == SwitchKind::kOvsTso;
}

Status SwitchInstance::kill_now() {
  // An OVS switch is a bridge of the case's one ovs-vswitchd: killing it is killing that daemon.
  if (is_ovs()) {
    if (!env_.ovs) return fail("switch {}: no OVS daemon in this case", spec_.name);
    return env_.ovs->kill_vswitchd();
  }
  if (spec_.kind != SwitchKind::kFlowlab)
    return fail("kill of a {} switch is not supported (flowlab and ovs switches only)",
                to_string(spec_.kind));
  // A hosted switch stops alone in its host: its connections are cut, its ports
  // detached; the host and the other switches keep running.
  if (hosted_) return env_.switch_host->stop_switch(spec_.name);
  if (procs_.empty()) return fail("switch {} is not running", spec_.name);
  for (auto& p : procs_) FLOWLAB_TRY(kill_group(p));
  return ok_status();
}

Status SwitchInstance::restart(double connect_timeout_s) {
  if (is_ovs()) {
    if (!env_.ovs) return fail("switch {}: no OVS daemon in this case", spec_.name);
    // Another OVS switch of the case may have started the shared daemon already.
    if (!env_.ovs->vswitchd_running()) FLOWLAB_TRY(env_.ovs->start_vswitchd());
    return controller_port() ? wait_connected(connect_timeout_s) : ok_status();
  }
  if (spec_.kind != SwitchKind::kFlowlab)
    return fail("start of a {} switch is not supported (flowlab and ovs switches only)",
                to_string(spec_.kind));
  if (hosted_) {
    FLOWLAB_TRY(env_.switch_host->start_switch(spec_.name));
    return controller_port() ? wait_connected(connect_timeout_s) : ok_status();
  }
  for (auto& p : procs_)
    if (p.running()) return fail("switch {} is still running", spec_.name);
  procs_.clear();
  FLOWLAB_TRY(start(env_));
  return controller_port() ? wait_connected(connect_timeout_s) : ok_status();
}

}  // namespace flowlab::lab

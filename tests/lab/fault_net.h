// The network of the fault tests (root): hosts h0..hN-1 in namespaces of their
// own, each a veth to port i+1 of one switch that runs with its controller in a
// private "core" namespace (the controller listens on the core's loopback, so
// nothing is visible outside and parallel runs never share a port). The switch
// is flowlab's (`flowlab switch`) or Open vSwitch (userspace netdev, through the
// lab's OvsDaemon). Processes are killed with SIGKILL and started again with the
// same arguments; sequence-numbered traffic comes from the lab's probe
// (`flowlab lab probe-send/probe-recv`). Names are unique per run; every
// namespace and process is removed on every path (the destructor).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "lab/backend/backends.h"
#include "lab/backend/ovs_daemon.h"
#include "lab/host/process.h"
#include "lab/traffic/probe.h"

namespace flowlab::lab::fault {

// Firewall rules of the fault tests: h0 may send anything; h1 accepts ping and the
// probes' UDP (7000-7010).
inline constexpr const char* kClientServerRules = R"(default: deny
security_groups:
  - name: client
    targets: [{ip: 10.0.0.1}]
    egress: [{protocol: any}]
  - name: server
    targets: [{ip: 10.0.0.2}]
    ingress:
      - {protocol: icmp, icmp_type: 8}
      - {protocol: udp, port: 7000-7010}
)";

using namespace std::chrono_literals;

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

template <typename P>
bool eventually(P pred, std::chrono::milliseconds timeout) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(50ms);
  }
  return pred();
}

// Why a fault test cannot run here, empty if it can.
inline std::string missing_for_fault_tests() {
  if (geteuid() != 0) return "needs root (network namespaces)";
  for (const char* p : {"ip", "ping", "ss"})
    if (!have_program(p)) return std::string("needs ") + p;
  return {};
}

class FaultNet {
 public:
  enum class Kind { kFlowlab, kOvs };

  FaultNet(const std::string& tag, size_t hosts, Kind kind = Kind::kFlowlab) : kind_(kind) {
    id_ = "flf" + tag + std::to_string(getpid() % 100000);
    dir_ = "/tmp/" + id_;
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    core_ = id_ + "c";
    ok_ = sh({"ip", "netns", "add", core_}) && sh({"ip", "-n", core_, "link", "set", "lo", "up"});
    for (size_t i = 0; i < hosts && ok_; ++i) add_host();
  }
  ~FaultNet() {
    ctl_.stop();
    sw_.stop();
    if (ovs_) ovs_->stop();
    ovs_.reset();
    for (const auto& h : hosts_) sh({"ip", "netns", "del", h});
    sh({"ip", "netns", "del", core_});  // takes the switch ports (and the OVS tap) with it
    if (!std::getenv("FLOWLAB_KEEP_NET_LOGS")) std::filesystem::remove_all(dir_);
  }
  FaultNet(const FaultNet&) = delete;
  FaultNet& operator=(const FaultNet&) = delete;

  bool ok() const { return ok_; }
  const std::string& core() const { return core_; }
  const std::string& host_ns(size_t i) const { return hosts_.at(i); }
  static std::string ip(size_t i) { return "10.0.0." + std::to_string(i + 1); }
  std::string port_if(size_t i) const { return id_ + "p" + std::to_string(i + 1); }
  const std::string& dir() const { return dir_; }

  // ---- the controller --------------------------------------------------------
  // `flowlab controller --listen ptcp:6653:127.0.0.1 --stats-json ... ARGS` in the core.
  void set_controller_args(std::vector<std::string> args) { ctl_args_ = std::move(args); }
  bool start_controller() {
    std::vector<std::string> argv = {FLOWLAB_BINARY,        "controller",   "--listen",
                                     "ptcp:6653:127.0.0.1", "--stats-json", stats_path()};
    argv.insert(argv.end(), ctl_args_.begin(), ctl_args_.end());
    auto p = Process::spawn("controller", argv, in_ns(core_), ctl_log(), nullptr);
    if (!p.ok()) return false;
    ctl_ = std::move(*p);
    return eventually([&] { return listening(6653); }, 15s);
  }
  bool kill_controller() { return kill9(ctl_); }
  // SIGSTOP / SIGCONT: a controller that hangs with its connection open.
  bool pause_controller(bool pause) {
    return ctl_.running() && ::kill(ctl_.pid(), pause ? SIGSTOP : SIGCONT) == 0;
  }
  bool controller_running() { return ctl_.running(); }
  std::string ctl_log() const { return dir_ + "/controller.log"; }
  std::string stats_path() const { return dir_ + "/controller-stats.json"; }
  nlohmann::json controller_stats() const {
    auto j = nlohmann::json::parse(read_file(stats_path()), nullptr, false);
    return j.is_discarded() ? nlohmann::json() : j;
  }

  // ---- the switch ------------------------------------------------------------
  // flowlab: `flowlab switch --name s1 --dpid 1 --port P1.. --controller ... --listen ptcp:6634 ARGS`.
  // OVS: bridge br0 on the lab's OvsDaemon, fail_mode from ARGS[0] ("secure"/"standalone").
  void set_switch_args(std::vector<std::string> args) { sw_args_ = std::move(args); }
  bool start_switch() { return kind_ == Kind::kOvs ? start_ovs() : start_flowlab(); }
  bool kill_switch() {
    if (kind_ == Kind::kOvs) return ovs_ && ovs_->kill_vswitchd().ok();
    return kill9(sw_);
  }
  bool restart_switch() {
    if (kind_ == Kind::kOvs) return ovs_ && ovs_->start_vswitchd().ok() && wait_switch_connected();
    return start_flowlab();
  }
  bool switch_running() { return kind_ == Kind::kOvs ? (ovs_ && ovs_->vswitchd_running()) : sw_.running(); }
  std::string sw_log() const { return dir_ + "/switch.log"; }
  // An established OpenFlow connection from the switch to the controller.
  bool wait_switch_connected(std::chrono::milliseconds t = 20s) {
    return eventually(
        [&] {
          return ss_out({"-Htn", "state", "established", "dport = :6653"}).size() > 1;
        },
        t);
  }
  bool switch_connected() { return ss_out({"-Htn", "state", "established", "dport = :6653"}).size() > 1; }
  // ovs-ofctl style dump of the flows (flowlab ofctl on the switch's listener, ovs-ofctl on br0).
  CommandResult ofctl(const std::vector<std::string>& args) const {
    std::vector<std::string> argv;
    CommandOptions o = in_ns(core_, 10);
    if (kind_ == Kind::kOvs) {
      argv = {"ovs-ofctl", "-O", "OpenFlow13"};
      argv.insert(argv.end(), args.begin(), args.end());
      argv.insert(argv.begin() + 4, "unix:" + ovs_->dir() + "/br0.mgmt");
      o.env = ovs_->env();
    } else {
      argv = {FLOWLAB_BINARY, "ofctl"};
      argv.insert(argv.end(), args.begin(), args.end());
      argv.insert(argv.begin() + 3, "tcp:127.0.0.1:6634");
    }
    return run_command(argv, o);
  }

  // ---- traffic ---------------------------------------------------------------
  CommandResult in_host(size_t i, const std::vector<std::string>& argv, double timeout = 20) const {
    return run_command(argv, in_ns(hosts_.at(i), timeout));
  }
  // ping from host a to b: count echoes, `interval` apart, each waiting `wait` s.
  CommandResult ping(size_t a, size_t b, int count = 1, double interval = 0.2, int wait = 1) const {
    return in_host(a,
                   {"ping", "-n", "-q", "-c", std::to_string(count), "-i", fmt::format("{}", interval), "-W",
                    std::to_string(wait), ip(b)},
                   count * interval + wait + 10);
  }
  static int received(const CommandResult& ping) {
    auto p = ping.out.find(" received");
    if (p == std::string::npos) return -1;
    auto s = ping.out.rfind(", ", p);
    return std::atoi(ping.out.c_str() + (s == std::string::npos ? 0 : s + 2));
  }

  // A probe from host a to b: `duration` s, one datagram every `interval_us`.
  // start() returns at once; finish() waits for the sender and reads the arrivals.
  class Probe {
   public:
    Probe(FaultNet& net, size_t a, size_t b, double duration, int interval_us, int port = 7002)
        : out_(net.dir() + "/arrivals-" + std::to_string(port) + ".json") {
      auto rx = Process::spawn("probe-recv",
                               {FLOWLAB_BINARY, "lab", "probe-recv", "--port", std::to_string(port), "--out",
                                out_, "--max", fmt::format("{}", duration + 30)},
                               in_ns(net.host_ns(b)),
                               net.dir() + "/probe-recv-" + std::to_string(port) + ".log", nullptr);
      if (!rx.ok()) return;
      rx_ = std::move(*rx);
      if (!eventually(
              [&] { return read_file(rx_.log_path()).find("probe receiver ready") != std::string::npos; },
              10s))
        return;
      interval_ns_ = uint64_t(interval_us) * 1000;
      start_ns_ = monotonic_ns() + 500'000'000ULL;
      std::vector<std::string> argv = {FLOWLAB_BINARY,
                                       "lab",
                                       "probe-send",
                                       "--host",
                                       ip(b),
                                       "--port",
                                       std::to_string(port),
                                       "--duration",
                                       fmt::format("{}", duration),
                                       "--interval-us",
                                       std::to_string(interval_us),
                                       "--start-at",
                                       std::to_string(start_ns_)};
      std::string ns = net.host_ns(a);
      sender_ =
          std::thread([this, argv, ns, duration] { res_ = run_command(argv, in_ns(ns, duration + 20)); });
      started_ = true;
    }
    ~Probe() {
      if (sender_.joinable()) sender_.join();
      rx_.stop();
    }
    bool started() const { return started_; }
    // Seconds since the probe's first packet (negative before it).
    double now_s() const { return (double(monotonic_ns()) - double(start_ns_)) / 1e9; }
    void sleep_until(double t_s) const {
      while (now_s() < t_s) std::this_thread::sleep_for(5ms);
    }
    // Waits for the end; sent count, and the sequence numbers that arrived.
    bool finish() {
      if (!started_) return false;
      sender_.join();
      std::this_thread::sleep_for(300ms);
      rx_.stop();
      auto j = nlohmann::json::parse(res_.out, nullptr, false);
      if (!res_.ok() || j.is_discarded()) return false;
      sent = j.value("sent", uint64_t(0));
      auto got = read_probe_arrivals(out_);
      if (!got.ok()) return false;
      arrived.assign(sent, false);
      for (const auto& a : *got)
        if (a.seq < sent) arrived[a.seq] = true;
      return true;
    }
    // Sequence numbers due in [t0, t1) s that did not arrive.
    uint64_t lost_between(double t0, double t1) const {
      uint64_t n = 0;
      for (uint64_t s = 0; s < sent; ++s) {
        double t = double(s * interval_ns_) / 1e9;
        if (t >= t0 && t < t1 && !arrived[s]) ++n;
      }
      return n;
    }
    uint64_t lost() const { return lost_between(0, 1e9); }
    uint64_t arrived_between(double t0, double t1) const {
      uint64_t n = 0;
      for (uint64_t s = 0; s < sent; ++s) {
        double t = double(s * interval_ns_) / 1e9;
        if (t >= t0 && t < t1 && arrived[s]) ++n;
      }
      return n;
    }
    // "lost 1.002-1.340 s (339), ..." and the same for arrivals, for failure messages.
    std::string runs(bool want_arrived) const {
      std::string out;
      uint64_t s = 0;
      while (s < sent) {
        if (arrived[s] != want_arrived) {
          ++s;
          continue;
        }
        uint64_t e = s;
        while (e < sent && arrived[e] == want_arrived) ++e;
        out += fmt::format("{:.3f}-{:.3f} s ({}), ", double(s * interval_ns_) / 1e9,
                           double(e * interval_ns_) / 1e9, e - s);
        s = e;
      }
      return (want_arrived ? "arrived: " : "lost: ") + out + "\n";
    }
    std::string sender_output() const { return res_.out + res_.err; }

    uint64_t sent = 0;
    std::vector<bool> arrived;

   private:
    std::string out_;
    Process rx_;
    std::thread sender_;
    CommandResult res_;
    uint64_t start_ns_ = 0, interval_ns_ = 1;
    bool started_ = false;
  };

  // Everything a failing assertion should show.
  std::string logs() const {
    return "--- controller:\n" + tail(read_file(ctl_log())) + "--- switch:\n" + tail(read_file(sw_log())) +
           (ovs_ ? "--- ovs-vswitchd:\n" + tail(read_file(dir_ + "/ovs-vswitchd.log")) : "");
  }
  static std::string tail(const std::string& s) { return s.size() > 4000 ? s.substr(s.size() - 4000) : s; }
  // A TCP listener on `port` in the core namespace.
  bool listening(int port) const { return ss_out({"-Hltn", fmt::format("sport = :{}", port)}).size() > 1; }

 private:
  static bool sh(const std::vector<std::string>& argv) { return run_command(argv, with_timeout(15)).ok(); }
  bool in_core(const std::vector<std::string>& argv) const {
    return run_command(argv, in_ns(core_, 15)).ok();
  }
  std::string ss_out(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {"ss"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_command(argv, in_ns(core_, 5));
    return r.ok() ? r.out : std::string();
  }
  static bool kill9(Process& p) {
    if (!p.running()) return false;
    ::kill(p.pid(), SIGKILL);
    return p.wait_exit(5);
  }
  void add_host() {
    size_t i = hosts_.size();
    std::string ns = id_ + "h" + std::to_string(i), port = port_if(i), tmp = port + "x";
    hosts_.push_back(ns);
    char mac[32];
    std::snprintf(mac, sizeof mac, "02:00:00:00:00:%02zx", i + 1);
    ok_ = sh({"ip", "netns", "add", ns}) &&
          sh({"ip", "-n", core_, "link", "add", port, "type", "veth", "peer", "name", tmp}) &&
          sh({"ip", "-n", core_, "link", "set", tmp, "netns", ns}) &&
          sh({"ip", "-n", ns, "link", "set", tmp, "name", "eth0"}) &&
          sh({"ip", "-n", ns, "link", "set", "eth0", "address", mac}) &&
          sh({"ip", "-n", ns, "addr", "add", ip(i) + "/24", "dev", "eth0"}) &&
          sh({"ip", "-n", ns, "link", "set", "eth0", "up"}) &&
          sh({"ip", "-n", ns, "link", "set", "lo", "up"}) &&
          in_core({"sysctl", "-q", "-w", "net.ipv6.conf." + port + ".disable_ipv6=1"}) &&
          run_command({"sysctl", "-q", "-w", "net.ipv6.conf.eth0.disable_ipv6=1"}, in_ns(ns, 5)).ok() &&
          sh({"ip", "-n", core_, "link", "set", port, "up"});
  }
  bool start_flowlab() {
    std::vector<std::string> argv = {FLOWLAB_BINARY, "switch",   "--name",       "s1",
                                     "--dpid",       "1",        "--controller", "tcp:127.0.0.1:6653",
                                     "--listen",     "ptcp:6634"};
    for (size_t i = 0; i < hosts_.size(); ++i) argv.insert(argv.end(), {"--port", port_if(i)});
    argv.insert(argv.end(), sw_args_.begin(), sw_args_.end());
    auto p = Process::spawn("switch", argv, in_ns(core_), sw_log(), nullptr);
    if (!p.ok()) return false;
    sw_ = std::move(*p);
    return eventually([&] { return listening(6634); }, 20s);
  }
  bool start_ovs() {
    // OVS's userspace datapath (no TSO) forwards a partial checksum as it is: the
    // hosts complete their checksums themselves (quick.yaml's offloads: off).
    for (const auto& h : hosts_)
      if (!run_command({"ethtool", "-K", "eth0", "tx", "off"}, in_ns(h, 5)).ok()) return false;
    ovs_ = std::make_shared<OvsDaemon>();
    CaseEnv env;
    env.core_ns = core_;
    env.out_dir = dir_;
    env.scratch_dir = dir_;
    env.flowlab_bin = FLOWLAB_BINARY;
    if (!ovs_->ensure_started(env, false).ok()) return false;
    CommandOptions o = in_ns(core_, 15);
    o.env = ovs_->env();
    std::string mode = sw_args_.empty() ? "secure" : sw_args_[0];
    std::vector<std::string> add = {"add-br",
                                    "br0",
                                    "--",
                                    "set",
                                    "bridge",
                                    "br0",
                                    "datapath_type=netdev",
                                    "protocols=OpenFlow13",
                                    "other-config:datapath-id=0000000000000001",
                                    "fail_mode=" + mode};
    for (size_t i = 0; i < hosts_.size(); ++i)
      add.insert(add.end(), {"--", "add-port", "br0", port_if(i), "--", "set", "interface", port_if(i),
                             fmt::format("ofport_request={}", i + 1)});
    add.insert(add.end(), {"--", "set-controller", "br0", "tcp:127.0.0.1:6653"});
    if (!run_command(ovs_->vsctl(add), o).ok()) return false;
    // Echo (inactivity probe) every second, so standalone takes over as quickly as flowlab's.
    if (!run_command(ovs_->vsctl({"set", "controller", "br0", "connection-mode=out-of-band",
                                  "inactivity_probe=1000", "max_backoff=1000"}),
                     o)
             .ok())
      return false;
    return wait_switch_connected();
  }

  Kind kind_;
  std::string id_, dir_, core_;
  std::vector<std::string> hosts_;
  std::vector<std::string> ctl_args_, sw_args_;
  Process ctl_, sw_;
  std::shared_ptr<OvsDaemon> ovs_;
  bool ok_ = false;
};

}  // namespace flowlab::lab::fault

// A multi-switch network for the controller's interop tests (root): switches
// joined by veth cables in the root namespace, hosts in namespaces of their
// own, run as flowlab switches (one process each) or as OVS bridges (one
// ovs-vswitchd, datapath_type=netdev, private run dir). The lab's own
// multi-switch support is separate (src/lab); this is the minimum a test
// needs. Names are unique per run; everything is removed on every path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "switch_topology.h"

namespace flowlab::switch_interop {

class SwitchNet {
 public:
  enum class Kind { kFlowlab, kOvs };
  struct Host {
    std::string ns, ip, mac;
    size_t sw;
    uint32_t port;
  };
  struct Cable {
    size_t a, b;
    uint32_t pa, pb;
    std::string ifa, ifb;
  };

  SwitchNet(Kind kind, size_t n_switches, const std::string& tag) : kind_(kind), ports_(n_switches) {
    prefix_ = tag + std::to_string(::getpid() % 10000);
    dir_ = "/tmp/flowlab-net-" + prefix_;
    std::filesystem::create_directories(dir_);
  }
  ~SwitchNet() {
    procs_.clear();
    ctl_.reset();
    if (kind_ == Kind::kOvs) {
      // Bridges deleted while ovs-vswitchd runs: with the last netdev bridge it also
      // removes its datapath device (ovs-netdev), which a killed daemon leaves behind.
      for (size_t s = 0; s < ports_.size(); ++s)
        run_quiet(ovs_env() + "ovs-vsctl --timeout=5 --db=unix:" + dir_ + "/db.sock del-br " + bridge(s));
      for (const char* p : {"ovs-vswitchd.pid", "ovsdb-server.pid"}) {
        std::ifstream f(dir_ + "/" + p);
        int pid = 0;
        if (f >> pid && pid > 0) ::kill(pid, SIGTERM);
      }
      std::this_thread::sleep_for(300ms);
      // The netdev datapath leaves a tap device per bridge behind.
      for (size_t s = 0; s < ports_.size(); ++s) run_quiet("ip link del " + bridge(s));
    }
    for (const auto& c : cables_) run_quiet("ip link del " + c.ifa);
    for (const auto& h : hosts_) {
      run_quiet("ip link del " + h.ns);
      run_quiet("ip netns del " + h.ns);
    }
    if (!std::getenv("FLOWLAB_KEEP_NET_LOGS"))
      std::filesystem::remove_all(dir_);  // else: logs stay for a look
  }
  // Before start(): switches speak OpenFlow 1.0 only (flowlab `--protocols
  // OpenFlow10`, OVS protocols=OpenFlow10); dump_flows() reads with -O OpenFlow10.
  void only_of10() { of10_ = true; }
  // Signals the controller (SIGHUP: the apps reload).
  bool signal_controller(int sig) const { return ctl_ && ctl_->signal(sig); }
  SwitchNet(const SwitchNet&) = delete;
  SwitchNet& operator=(const SwitchNet&) = delete;

  // Host i (0-based) on switch sw: 10.0.<i/250>.<i%250+1>/16.
  bool add_host(size_t sw) {
    size_t i = hosts_.size();
    Host h{prefix_ + "h" + std::to_string(i), fmt_ip(i), fmt_mac(i), sw, next_port(sw, "")};
    hosts_.push_back(h);
    ports_[sw].back() = h.ns;  // the switch side of the veth has the namespace's name
    std::string tmp = h.ns + "x";
    return ok_ = ok_ && run_quiet("ip netns add " + h.ns) == 0 &&
                 run_quiet("ip link add " + h.ns + " type veth peer name " + tmp) == 0 &&
                 run_quiet("ip link set " + tmp + " netns " + h.ns) == 0 &&
                 run_quiet(in(i, "ip link set " + tmp + " name eth0")) == 0 &&
                 run_quiet(in(i, "ip link set eth0 address " + h.mac)) == 0 &&
                 run_quiet(in(i, "ip addr add " + h.ip + "/16 dev eth0")) == 0 &&
                 run_quiet(in(i, "ip link set eth0 up")) == 0 && run_quiet(in(i, "ip link set lo up")) == 0 &&
                 run_quiet(in(i, "sysctl -w net.ipv6.conf.all.disable_ipv6=1")) == 0 && up(h.ns);
  }
  bool add_cable(size_t a, size_t b) {
    size_t i = cables_.size();
    Cable c{a, b, 0, 0, prefix_ + "c" + std::to_string(i) + "a", prefix_ + "c" + std::to_string(i) + "b"};
    c.pa = next_port(a, c.ifa);
    c.pb = next_port(b, c.ifb);
    cables_.push_back(c);
    return ok_ = ok_ && run_quiet("ip link add " + c.ifa + " type veth peer name " + c.ifb) == 0 &&
                 up(c.ifa) && up(c.ifb);
  }

  // Starts the controller (flowlab, `args` after the listen option), then the switches.
  bool start(const std::string& args) {
    if (!ok_) return fail("building the topology failed");
    ctl_port_ = free_tcp_port();
    std::vector<std::string> argv = {FLOWLAB_BINARY, "controller",
                                     "--listen",     "ptcp:" + std::to_string(ctl_port_) + ":127.0.0.1",
                                     "--stats-json", stats_json()};
    std::istringstream words(args);
    for (std::string w; words >> w;) argv.push_back(w);
    ctl_ = std::make_unique<Process>(argv, dir_ + "/controller.log");
    if (!eventually([&] { return tcp_listening(ctl_port_); }, 30s))
      return fail("controller did not listen on port " + std::to_string(ctl_port_) + ":\n" + ctl_->log());
    if (kind_ == Kind::kFlowlab ? !start_flowlab() : !start_ovs()) return false;
    size_t n = ports_.size();
    if (!eventually([&] { return count(ctl_->log(), "switch up:") >= n; }, 30s))
      return fail("not every switch came up at the controller");
    return true;
  }

  // Every host pings every other once (bounded); returns the pairs that failed.
  std::vector<std::string> pingall() const {
    std::vector<std::string> failed;
    for (size_t i = 0; i < hosts_.size(); ++i) {
      std::string cmd;
      for (size_t j = 0; j < hosts_.size(); ++j)
        if (j != i)
          cmd += "(ping -c 1 -W 2 " + hosts_[j].ip + " >/dev/null || echo " + std::to_string(j) + ") & ";
      std::string out = run_output(in(i, "sh -c '" + cmd + " wait'"));
      std::istringstream lines(out);
      for (std::string l; std::getline(lines, l);)
        if (!l.empty()) failed.push_back(std::to_string(i) + "->" + l);
    }
    return failed;
  }
  // ovs-ofctl dump-flows of switch sw (flowlab: its --listen port; OVS: the bridge).
  std::string dump_flows(size_t sw) const {
    std::string target =
        kind_ == Kind::kFlowlab ? "tcp:127.0.0.1:" + std::to_string(sw_ports_.at(sw)) : bridge(sw);
    return run_output(ovs_env() + "ovs-ofctl -O " + (of10_ ? "OpenFlow10" : "OpenFlow13") + " dump-flows " +
                      target);
  }
  nlohmann::json stats() const {
    std::ifstream f(stats_json());
    nlohmann::json j;
    try {
      f >> j;
    } catch (...) {
    }
    return j;
  }
  std::string in(size_t host, const std::string& cmd) const {
    return "ip netns exec " + hosts_[host].ns + " " + cmd;
  }
  const std::vector<Host>& hosts() const { return hosts_; }
  const std::vector<Cable>& cables() const { return cables_; }
  std::string logs() const {
    std::string s = "--- controller:\n" + (ctl_ ? ctl_->log() : "");
    for (size_t i = 0; i < procs_.size(); ++i)
      s += "--- switch " + std::to_string(i + 1) + ":\n" + procs_[i]->log();
    return s + (err_.empty() ? "" : "--- error: " + err_ + "\n");
  }
  std::string controller_log() const { return ctl_ ? ctl_->log() : ""; }
  const std::string& dir() const { return dir_; }

 private:
  static size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
    return n;
  }
  static std::string fmt_ip(size_t i) {
    return "10.0." + std::to_string(i / 250) + "." + std::to_string(i % 250 + 1);
  }
  static std::string fmt_mac(size_t i) {
    char b[32];
    std::snprintf(b, sizeof b, "02:00:00:00:%02zx:%02zx", (i >> 8) & 0xff, i & 0xff);
    return b;
  }
  uint32_t next_port(size_t sw, const std::string& ifname) {
    ports_[sw].push_back(ifname);
    return uint32_t(ports_[sw].size());
  }
  static bool up(const std::string& ifname) {
    return run_quiet("sysctl -w net.ipv6.conf." + ifname + ".disable_ipv6=1") == 0 &&
           run_quiet("ip link set " + ifname + " up") == 0;
  }
  std::string bridge(size_t sw) const { return prefix_ + "s" + std::to_string(sw + 1); }
  std::string ovs_env() const {
    return kind_ == Kind::kOvs ? "OVS_RUNDIR=" + dir_ + " OVS_LOGDIR=" + dir_ + " OVS_DBDIR=" + dir_ + " "
                               : "";
  }
  std::string stats_json() const { return dir_ + "/controller-stats.json"; }
  bool start_flowlab() {
    for (size_t s = 0; s < ports_.size(); ++s) {
      sw_ports_.push_back(free_tcp_port());
      std::vector<std::string> argv = {
          FLOWLAB_BINARY, "switch",
          "--name",       "s" + std::to_string(s + 1),
          "--dpid",       std::to_string(s + 1),
          "--fail-mode",  "secure",
          "--controller", "tcp:127.0.0.1:" + std::to_string(ctl_port_),
          "--listen",     "ptcp:" + std::to_string(sw_ports_.back()) + ":127.0.0.1"};
      if (of10_) {
        argv.push_back("--protocols");
        argv.push_back("OpenFlow10");
      }
      for (size_t p = 0; p < ports_[s].size(); ++p) {
        argv.push_back("--port");
        argv.push_back(ports_[s][p] + "=" + std::to_string(p + 1));
      }
      procs_.push_back(std::make_unique<Process>(argv, dir_ + "/s" + std::to_string(s + 1) + ".log"));
    }
    return true;
  }
  bool start_ovs() {
    std::string e = ovs_env(), db = "unix:" + dir_ + "/db.sock";
    if (run_quiet("ovsdb-tool create " + dir_ + "/conf.db /usr/share/openvswitch/vswitch.ovsschema") != 0 ||
        run_quiet(e + "ovsdb-server " + dir_ + "/conf.db --remote=punix:" + dir_ + "/db.sock --pidfile=" +
                  dir_ + "/ovsdb-server.pid --detach --log-file=" + dir_ + "/ovsdb.log") != 0 ||
        run_quiet(e + "ovs-vsctl --db=" + db + " --no-wait init") != 0 ||
        run_quiet(e + "ovs-vswitchd " + db + " --pidfile=" + dir_ +
                  "/ovs-vswitchd.pid --detach --log-file=" + dir_ + "/ovs-vswitchd.log") != 0)
      return fail("cannot start OVS");
    for (size_t s = 0; s < ports_.size(); ++s) {
      char dpid[17];
      std::snprintf(dpid, sizeof dpid, "%016zx", s + 1);
      std::string cmd =
          e + "ovs-vsctl --db=" + db + " add-br " + bridge(s) + " -- set bridge " + bridge(s) +
          " datapath_type=netdev protocols=" + (of10_ ? "OpenFlow10" : "OpenFlow10,OpenFlow13") +
          " other_config:datapath-id=" + dpid + " fail_mode=secure";
      for (size_t p = 0; p < ports_[s].size(); ++p)
        cmd += " -- add-port " + bridge(s) + " " + ports_[s][p] + " -- set interface " + ports_[s][p] +
               " ofport_request=" + std::to_string(p + 1);
      cmd += " -- set-controller " + bridge(s) + " tcp:127.0.0.1:" + std::to_string(ctl_port_);
      if (run_quiet(cmd) != 0) return fail("cannot add bridge " + bridge(s));
    }
    return true;
  }
  bool fail(std::string e) {
    err_ = std::move(e);
    return false;
  }

  Kind kind_;
  std::string prefix_, dir_, err_;
  std::vector<std::vector<std::string>> ports_;  // per switch: interface of OpenFlow port i+1
  std::vector<Host> hosts_;
  std::vector<Cable> cables_;
  std::vector<uint16_t> sw_ports_;
  uint16_t ctl_port_ = 0;
  std::unique_ptr<Process> ctl_;
  std::vector<std::unique_ptr<Process>> procs_;
  bool ok_ = true;
  bool of10_ = false;
};

// "link up:" lines in the controller's log (each direction of a cable is one).
inline size_t links_up(const SwitchNet& net) {
  size_t n = 0;
  std::string log = net.controller_log();
  for (size_t p = log.find("link up:"); p != std::string::npos; p = log.find("link up:", p + 1)) ++n;
  return n;
}

// Packet-ins the controller received (its --stats-json).
inline uint64_t packet_ins(const SwitchNet& net) {
  auto j = net.stats();
  return j.contains("packet_in") ? j["packet_in"].value("received", uint64_t(0)) : 0;
}

// A flow to eth_dst=mac in a dump-flows output (OF1.0 and OF1.3 spellings).
inline bool has_flow_to(const std::string& dump, const std::string& mac) {
  return dump.find("dl_dst=" + mac) != std::string::npos || dump.find("eth_dst=" + mac) != std::string::npos;
}

// A flow to eth_dst=mac whose duration is at least `seconds`: one installed before an
// event that long ago (a flow installed again since, for a host's ARP probe, is younger).
inline bool has_flow_to_older_than(const std::string& dump, const std::string& mac, double seconds) {
  std::istringstream lines(dump);
  for (std::string line; std::getline(lines, line);) {
    if (!has_flow_to(line, mac)) continue;
    size_t d = line.find("duration=");
    if (d == std::string::npos || std::strtod(line.c_str() + d + 9, nullptr) >= seconds) return true;
  }
  return false;
}

}  // namespace flowlab::switch_interop

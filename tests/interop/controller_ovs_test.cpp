// flowlab controller driving Open vSwitch (userspace, datapath_type=netdev) with
// two hosts in namespaces the test creates: learning-switch (OF1.4, OF1.3 and OF1.0),
// hub, firewall, and the learning switch with OVS connecting over TLS. Needs
// root, ovs-vswitchd, ovsdb-server, iperf3, openssl; skips otherwise.
// OVS's AF_PACKET ports break TCP with veth offloads on (see peers/README.md),
// so this test turns tx offloads off on the veths, as the README does for OVS.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "firewall_rules.h"
#include "tls_certs.h"

namespace {

using namespace std::chrono_literals;

struct CmdResult {
  int rc = -1;
  std::string out;
};

CmdResult sh(const std::string& cmd) {
  CmdResult r;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int st = ::pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

bool have(const char* prog) { return sh(fmt::format("command -v {} >/dev/null", prog)).rc == 0; }

pid_t spawn(const std::string& cmd, const std::string& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    execl("/bin/sh", "sh", "-c", fmt::format("exec {} >{} 2>&1", cmd, log).c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Waits for pid up to `t`; returns the exit code, or -1 (then kills it).
int reap(pid_t pid, std::chrono::milliseconds t, int sig = SIGTERM) {
  if (pid <= 0) return -1;
  ::kill(pid, sig);
  auto end = std::chrono::steady_clock::now() + t;
  int st = 0;
  while (std::chrono::steady_clock::now() < end) {
    if (::waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    std::this_thread::sleep_for(20ms);
  }
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &st, 0);
  return -1;
}

// The whole topology; everything is torn down in the destructor.
class Topology {
 public:
  Topology(const std::string& protocols) {
    int pid = ::getpid();
    h1_ = fmt::format("flc{}a", pid);
    h2_ = fmt::format("flc{}b", pid);
    sw_ = fmt::format("flc{}s", pid);
    dir_ = fmt::format("/tmp/flowlab-ctl-ovs-{}", pid);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    env_ = fmt::format("OVS_RUNDIR={0} OVS_LOGDIR={0} OVS_DBDIR={0} ", dir_);
    ok_ = setup(protocols);
  }
  ~Topology() {
    if (ctl_pid_ > 0) reap(ctl_pid_, 3s);
    for (const char* d : {"ovs-vswitchd", "ovsdb-server"}) {
      std::ifstream f(fmt::format("{}/{}.pid", dir_, d));
      pid_t p = 0;
      if (f >> p && p > 0) {
        ::kill(p, SIGTERM);
        for (int i = 0; i < 100 && ::kill(p, 0) == 0; ++i) std::this_thread::sleep_for(20ms);
        if (::kill(p, 0) == 0) ::kill(p, SIGKILL);
      }
    }
    for (const auto& ns : {h1_, h2_, sw_})
      sh(fmt::format("ip netns pids {} | xargs -r kill -9; ip netns del {}", ns, ns));
    std::filesystem::remove_all(dir_);
  }
  bool ok() const { return ok_; }
  const std::string& error() const { return err_; }

  // Starts flowlab controller in the switch namespace and waits for OVS to
  // connect. tls: OVS connects with ssl: (ovs-vsctl set-ssl, certificates of
  // tls_certs.h) to the controller's pssl: listener.
  bool start_controller(const std::string& args, bool tls = false) {
    ctl_log_ = dir_ + "/controller.log";
    std::string listen = "ptcp:6653:127.0.0.1";
    if (tls) {
      std::string e;
      if (!flowlab::interop::make_test_certs(dir_, &e)) {
        err_ = e;
        return false;
      }
      const std::string d = dir_ + "/";
      listen = fmt::format("pssl:6653:127.0.0.1 --cert {0}ctl.pem --key {0}ctl.key --ca {0}ca.pem", d);
      auto r = vsctl(fmt::format("set-ssl {0}sw.key {0}sw.pem {0}ca.pem", d));
      auto c = vsctl("set-controller br0 ssl:127.0.0.1:6653");
      if (r.rc != 0 || c.rc != 0) {
        err_ = "ovs-vsctl set-ssl/set-controller failed: " + r.out + c.out;
        return false;
      }
    }
    ctl_pid_ =
        spawn(fmt::format("ip netns exec {} {} controller --listen {} {}", sw_, FLOWLAB_BINARY, listen, args),
              ctl_log_);
    for (int i = 0; i < 150; ++i) {
      auto r = vsctl("--columns=is_connected list controller");
      if (r.out.find("true") != std::string::npos) {
        std::this_thread::sleep_for(300ms);  // let the apps install their flows
        return true;
      }
      std::this_thread::sleep_for(100ms);
    }
    err_ = "OVS did not connect to the controller; log:\n" + log();
    return false;
  }
  int stop_controller() {
    int rc = reap(ctl_pid_, 5s);
    ctl_pid_ = -1;
    return rc;
  }
  std::string log() const {
    std::ifstream f(ctl_log_);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }

  CmdResult in(const std::string& ns, const std::string& cmd) {
    return sh(fmt::format("ip netns exec {} {}", ns, cmd));
  }
  CmdResult vsctl(const std::string& args) { return sh(env_ + "ovs-vsctl --timeout=5 " + args); }
  CmdResult ofctl(const std::string& args) { return sh(env_ + "ovs-ofctl " + args); }
  bool ping() {
    for (int i = 0; i < 3; ++i)
      if (in(h1_, "ping -c 3 -i 0.2 -W 1 10.0.0.2").rc == 0) return true;
    return false;
  }
  // A bounded iperf3 TCP run h1 -> h2:port; returns whether it completed.
  bool iperf(int port, int seconds = 2) {
    pid_t srv = spawn(fmt::format("ip netns exec {} iperf3 -s -1 -p {}", h2_, port), dir_ + "/iperf-s.log");
    std::this_thread::sleep_for(300ms);
    auto r = in(h1_, fmt::format("timeout {} iperf3 -c 10.0.0.2 -p {} -t {} --connect-timeout 2000",
                                 seconds + 8, port, seconds));
    reap(srv, 1s, SIGKILL);
    last_iperf_ = r.out;
    return r.rc == 0;
  }
  std::string last_iperf_;
  const std::string& h1() const { return h1_; }
  const std::string& dir() const { return dir_; }

 private:
  bool fail(std::string e) {
    err_ = std::move(e);
    return false;
  }
  bool setup(const std::string& protocols) {
    for (const auto& ns : {h1_, h2_, sw_})
      if (sh("ip netns add " + ns).rc != 0) return fail("cannot create namespace " + ns);
    sh(fmt::format("ip -n {} link set lo up", sw_));
    for (int i : {1, 2}) {
      const std::string& h = i == 1 ? h1_ : h2_;
      std::string host_if = fmt::format("flc{}h{}", ::getpid(), i),
                  sw_if = fmt::format("flc{}p{}", ::getpid(), i);
      auto r = sh(fmt::format(
          "ip link add {} type veth peer name {} && ip link set {} netns {} && ip link set {} netns {}",
          host_if, sw_if, host_if, h, sw_if, sw_));
      if (r.rc != 0) return fail("veth: " + r.out);
      sh(fmt::format(
          "ip -n {} addr add 10.0.0.{}/24 dev {} && ip -n {} link set {} up && ip -n {} link set lo up", h, i,
          host_if, h, host_if, h));
      sh(fmt::format("ip -n {} link set {} up", sw_, sw_if));
      sh(fmt::format("ip netns exec {} ethtool -K {} tx off >/dev/null", h, host_if));
      sh(fmt::format("ip netns exec {} ethtool -K {} tx off >/dev/null", sw_, sw_if));
    }
    auto r =
        sh(env_ + fmt::format("ovsdb-tool create {}/conf.db /usr/share/openvswitch/vswitch.ovsschema", dir_));
    if (r.rc != 0) return fail("ovsdb-tool: " + r.out);
    r = sh(env_ + fmt::format("ip netns exec {0} ovsdb-server {1}/conf.db --remote=punix:{1}/db.sock "
                              "--pidfile={1}/ovsdb-server.pid --detach --log-file={1}/ovsdb-server.log",
                              sw_, dir_));
    if (r.rc != 0) return fail("ovsdb-server: " + r.out);
    vsctl("--no-wait init");
    r = sh(
        env_ +
        fmt::format("ip netns exec {0} ovs-vswitchd unix:{1}/db.sock --pidfile={1}/ovs-vswitchd.pid --detach "
                    "--log-file={1}/ovs-vswitchd.log",
                    sw_, dir_));
    if (r.rc != 0) return fail("ovs-vswitchd: " + r.out);
    r = vsctl(fmt::format("add-br br0 -- set bridge br0 datapath_type=netdev protocols={}", protocols));
    if (r.rc != 0) return fail("add-br: " + r.out);
    for (int i : {1, 2}) {
      r = vsctl(fmt::format("add-port br0 flc{0}p{1} -- set interface flc{0}p{1} ofport_request={1}",
                            ::getpid(), i));
      if (r.rc != 0) return fail("add-port: " + r.out);
    }
    vsctl("set-fail-mode br0 secure");
    vsctl("set-controller br0 tcp:127.0.0.1:6653");
    return true;
  }

  std::string h1_, h2_, sw_, dir_, env_, err_, ctl_log_;
  pid_t ctl_pid_ = -1;
  bool ok_ = false;
};

class ControllerOvs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root (namespaces, OVS)";
    for (const char* p : {"ovs-vswitchd", "ovsdb-server", "ovs-vsctl", "ovs-ofctl", "iperf3", "ethtool"})
      if (!have(p)) GTEST_SKIP() << p << " not installed";
    if (!std::filesystem::exists(FLOWLAB_BINARY)) GTEST_SKIP() << "flowlab binary not built";
  }
};

// Lines of dump-flows that are flows (not the reply header).
std::vector<std::string> flow_lines(const std::string& dump) {
  std::vector<std::string> v;
  std::istringstream in(dump);
  for (std::string l; std::getline(in, l);)
    if (l.find("actions=") != std::string::npos) v.push_back(l);
  return v;
}
uint64_t n_packets(const std::string& line) {
  std::smatch m;
  if (std::regex_search(line, m, std::regex("n_packets=(\\d+)"))) return std::stoull(m[1]);
  return 0;
}

// tls: OVS connects with ssl: to the controller's pssl: listener.
void learning_switch_case(const char* protocols, const char* ofctl_version, bool tls = false) {
  Topology t(protocols);
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_TRUE(t.start_controller("--app learning-switch", tls)) << t.error();
  EXPECT_TRUE(t.ping()) << t.log();
  EXPECT_TRUE(t.iperf(5201)) << t.last_iperf_ << t.log();
  auto dump = t.ofctl(fmt::format("-O {} dump-flows br0", ofctl_version));
  ASSERT_EQ(dump.rc, 0) << dump.out;
  int learned_used = 0;
  for (const auto& l : flow_lines(dump.out))
    if (l.find("priority=1,") != std::string::npos && n_packets(l) > 0) ++learned_used;
  EXPECT_GE(learned_used, 2) << dump.out;  // both directions carry traffic
  EXPECT_NE(t.log().find("switch up"), std::string::npos) << t.log();
  const std::string v = fmt::format("OpenFlow 1.{}", protocols[9]);  // "OpenFlow14" -> "OpenFlow 1.4"
  EXPECT_NE(t.log().find(v), std::string::npos) << "controller did not speak " << v << ":\n" << t.log();
  if (tls) {
    auto ctl = t.vsctl("--columns=target list controller");
    EXPECT_NE(ctl.out.find("ssl:127.0.0.1:6653"), std::string::npos) << ctl.out;
  }
  EXPECT_EQ(t.stop_controller(), 0) << t.log();
}

TEST_F(ControllerOvs, LearningSwitchOf13PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow13", "OpenFlow13");
}
TEST_F(ControllerOvs, LearningSwitchOf10PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow10", "OpenFlow10");
}
// OVS offers only 1.4; the controller (offering 1.4, 1.3, 1.0) speaks it.
TEST_F(ControllerOvs, LearningSwitchOf14PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow14", "OpenFlow14");
}
// OVS offers only 1.5: packet-in/out, flow-mods and flow stats at version 6.
TEST_F(ControllerOvs, LearningSwitchOf15PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow15", "OpenFlow15");
}

// OVS connects over TLS (ssl:) to flowlab controller's pssl: listener; the
// learning switch works through it.
TEST_F(ControllerOvs, LearningSwitchOverTlsFromOvs) {
  learning_switch_case("OpenFlow13", "OpenFlow13", true);
}

TEST_F(ControllerOvs, HubOf13PingAndOnlyTableMissFlow) {
  Topology t("OpenFlow13");
  ASSERT_TRUE(t.ok()) << t.error();
  ASSERT_TRUE(t.start_controller("--app hub")) << t.error();
  EXPECT_TRUE(t.ping()) << t.log();
  EXPECT_TRUE(t.iperf(5201, 1)) << t.last_iperf_;
  auto dump = t.ofctl("-O OpenFlow13 dump-flows br0");
  auto lines = flow_lines(dump.out);
  ASSERT_EQ(lines.size(), 1u) << dump.out;
  EXPECT_NE(lines[0].find("priority=0"), std::string::npos) << dump.out;
  EXPECT_NE(lines[0].find("CONTROLLER"), std::string::npos) << dump.out;
  EXPECT_GT(n_packets(lines[0]), 0u);
  EXPECT_EQ(t.stop_controller(), 0) << t.log();
}

TEST_F(ControllerOvs, FirewallOf13AllowsTcp5201DeniesTcp5202) {
  Topology t("OpenFlow13");
  ASSERT_TRUE(t.ok()) << t.error();
  std::string rules = t.dir() + "/rules.yaml";
  {
    std::ofstream f(rules);
    f << flowlab::interop::kAllowTcp5201Rules;
  }
  ASSERT_TRUE(t.start_controller(fmt::format("--app firewall --config {} --app learning-switch", rules)))
      << t.error();
  EXPECT_TRUE(t.ping()) << t.log();
  EXPECT_TRUE(t.iperf(5201)) << t.last_iperf_ << t.log();
  EXPECT_FALSE(t.iperf(5202, 1)) << "denied port connected: " << t.last_iperf_;
  auto dump = t.ofctl("-O OpenFlow13 dump-flows br0");
  EXPECT_NE(dump.out.find("tp_dst=5202"), std::string::npos) << dump.out;  // the drop flow
  EXPECT_EQ(t.stop_controller(), 0) << t.log();
}

}  // namespace

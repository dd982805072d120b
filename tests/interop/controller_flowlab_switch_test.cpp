// flowlab controller driving flowlab switch (the same three checks as
// controller_ovs_test.cpp, issue 4): two namespace hosts joined by veths to
// `flowlab switch` in the root namespace, veth offloads left at their defaults
// (the switch handles GSO/checksum metadata itself), controller and switch on
// loopback ports picked free for this run. learning-switch (OF1.3 and OF1.0):
// ping + iperf3 and the learned priority-1 flows carry the traffic; hub: ping +
// iperf3 with only the table-miss flow; firewall: tcp 5201 allowed, 5202 denied.
// Flows are read with `ovs-ofctl dump-flows tcp:127.0.0.1:LISTEN`. Also: the
// learning switch over TLS (pssl:/ssl: with certificates made by openssl for
// the run), and a switch whose certificate another CA signed is refused.
// Needs root, iperf3, ovs-ofctl and openssl; skips otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>

#include "firewall_rules.h"
#include "switch_topology.h"
#include "tls_certs.h"

namespace flowlab::switch_interop {
namespace {

// One run: hosts, a controller on a free port, the switch connected to it.
class ControllerAndSwitch {
 public:
  explicit ControllerAndSwitch(const std::string& tag) : hosts_(tag) {
    pid_ = std::to_string(::getpid());
    dir_ = "/tmp/flowlab-ctl-flsw-" + pid_;
    std::filesystem::create_directories(dir_);
  }
  ~ControllerAndSwitch() {
    sw_.reset();
    ctl_.reset();
    std::filesystem::remove_all(dir_);
  }
  bool hosts_ok() const { return hosts_.ok(); }
  const TwoHosts& hosts() const { return hosts_; }
  const std::string& dir() const { return dir_; }

  // TLS: a CA, a controller and a switch certificate it signed, and a switch
  // certificate from a second CA the controller must refuse. Files in dir().
  bool make_certs() {
    std::string e;
    return interop::make_test_certs(dir_, &e) || fail(e);
  }

  // Starts the controller with `app_args`, then the switch with `protocols`;
  // waits until the controller logs the switch as up. tls: pssl:/ssl: with the
  // certificates of make_certs(), the switch presenting `sw_cert` (sw or bad).
  bool start(const std::string& app_args, const std::string& protocols, bool tls = false,
             const std::string& sw_cert = "sw") {
    ctl_port_ = free_tcp_port();
    sw_port_ = free_tcp_port();
    if (ctl_port_ == 0 || sw_port_ == 0 || ctl_port_ == sw_port_) return fail("no free TCP ports");
    const std::string d = dir_ + "/";
    std::vector<std::string> argv = {FLOWLAB_BINARY, "controller", "--listen",
                                     (tls ? "pssl:" : "ptcp:") + std::to_string(ctl_port_) + ":127.0.0.1"};
    if (tls) argv.insert(argv.end(), {"--cert", d + "ctl.pem", "--key", d + "ctl.key", "--ca", d + "ca.pem"});
    std::istringstream in(app_args);
    for (std::string w; in >> w;) argv.push_back(w);
    ctl_ = std::make_unique<Process>(argv, dir_ + "/controller.log");
    if (!eventually([&] { return tcp_listening(ctl_port_); }, 10s)) return fail("controller did not listen");
    std::vector<std::string> sw = {
        FLOWLAB_BINARY, "switch",
        "--name",       "s1",
        "--dpid",       "0x1",
        "--port",       hosts_.port1(),
        "--port",       hosts_.port2(),
        "--controller", (tls ? "ssl:127.0.0.1:" : "tcp:127.0.0.1:") + std::to_string(ctl_port_),
        "--listen",     "ptcp:" + std::to_string(sw_port_) + ":127.0.0.1",
        "--protocols",  protocols,
        "--stats-file", stats_file()};
    if (tls)
      sw.insert(sw.end(),
                {"--cert", d + sw_cert + ".pem", "--key", d + sw_cert + ".key", "--ca", d + "ca.pem"});
    sw_ = std::make_unique<Process>(sw, dir_ + "/switch.log");
    auto up = [&] { return ctl_->log().find("switch up") != std::string::npos; };
    // A switch presenting another CA's certificate is refused at its first
    // attempt: once both ends have said so, a second second (the switch retries)
    // rather than the whole wait.
    auto refused = [&] {
      return ctl_->log().find("TLS handshake failed") != std::string::npos &&
             sw_->log().find("unreachable") != std::string::npos;
    };
    if (!eventually([&] { return up() || (sw_cert != "sw" && refused()); }, 15s))
      return fail("the switch did not come up at the controller");
    if (!up()) {
      std::this_thread::sleep_for(1s);
      if (!up()) return fail("the switch was refused");
    }
    if (!eventually([&] { return tcp_listening(sw_port_); }, 5s)) return fail("switch did not listen");
    std::this_thread::sleep_for(300ms);  // let the apps install their flows
    return true;
  }
  int stop_controller() { return ctl_ ? ctl_->stop() : -1; }
  int stop_switch() { return sw_ ? sw_->stop() : -1; }
  std::string logs() const {
    return "--- controller log:\n" + (ctl_ ? ctl_->log() : "") + "--- switch log:\n" +
           (sw_ ? sw_->log() : "") + (err_.empty() ? "" : "--- error: " + err_ + "\n");
  }
  std::string ctl_log() const { return ctl_ ? ctl_->log() : ""; }
  std::string sw_log() const { return sw_ ? sw_->log() : ""; }
  std::string stats_file() const { return dir_ + "/switch-stats.json"; }

  std::string dump_flows(const std::string& version, int* st) const {
    return run_output("ovs-ofctl -O " + version + " dump-flows tcp:127.0.0.1:" + std::to_string(sw_port_),
                      st);
  }
  bool ping() const {
    for (int i = 0; i < 3; ++i)
      if (hosts_.ping(3)) return true;
    return false;
  }
  // A bounded iperf3 TCP run h1 -> h2:port; whether it completed.
  bool iperf(int port, int seconds, std::string* out) const {
    Process server({"ip", "netns", "exec", hosts_.ns2(), "iperf3", "-s", "-1", "-p", std::to_string(port)},
                   dir_ + "/iperf-s.log");
    std::this_thread::sleep_for(300ms);
    int st = -1;
    *out = run_output(
        hosts_.in1("timeout " + std::to_string(seconds + 8) + " iperf3 -c 10.0.0.2 -p " +
                   std::to_string(port) + " -t " + std::to_string(seconds) + " --connect-timeout 2000"),
        &st);
    return st == 0;
  }

 private:
  bool fail(std::string e) {
    err_ = std::move(e);
    return false;
  }
  TwoHosts hosts_;
  std::string pid_, dir_, err_;
  uint16_t ctl_port_ = 0, sw_port_ = 0;
  std::unique_ptr<Process> ctl_, sw_;
};

class ControllerFlowlabSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!is_root()) GTEST_SKIP() << "needs root (namespaces, AF_PACKET)";
    for (const char* p : {"/usr/bin/ovs-ofctl", "/usr/bin/iperf3"})
      if (!have(p)) GTEST_SKIP() << p << " not installed";
    if (!have(FLOWLAB_BINARY)) GTEST_SKIP() << "flowlab binary not built";
  }
};

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

// tls: the controller listens on pssl:, the switch connects with ssl:.
void learning_switch_case(const std::string& protocols, bool tls = false) {
  ControllerAndSwitch t("cs");
  ASSERT_TRUE(t.hosts_ok());
  if (tls) {
    ASSERT_TRUE(t.make_certs()) << t.logs();
  }
  ASSERT_TRUE(t.start("--app learning-switch", protocols, tls)) << t.logs();
  EXPECT_TRUE(t.ping()) << t.logs();
  std::string out;
  EXPECT_TRUE(t.iperf(5201, 2, &out)) << out << t.logs();
  int st = -1;
  std::string dump = t.dump_flows(protocols, &st);
  ASSERT_EQ(st, 0) << dump << t.logs();
  int learned_used = 0;
  for (const auto& l : flow_lines(dump))
    if (l.find("priority=1,") != std::string::npos && n_packets(l) > 0) ++learned_used;
  EXPECT_GE(learned_used, 2) << dump;  // both directions carry traffic
  EXPECT_EQ(t.stop_switch(), 0) << t.logs();
  EXPECT_EQ(t.stop_controller(), 0) << t.logs();
}

TEST_F(ControllerFlowlabSwitch, LearningSwitchOf13PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow13");
}
TEST_F(ControllerFlowlabSwitch, LearningSwitchOf10PingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow10");
}

TEST_F(ControllerFlowlabSwitch, LearningSwitchOverTlsPingIperfAndLearnedFlows) {
  learning_switch_case("OpenFlow13", true);
}

TEST_F(ControllerFlowlabSwitch, TlsSwitchWithCertificateOfAnotherCaIsRefused) {
  ControllerAndSwitch t("cs");
  ASSERT_TRUE(t.hosts_ok());
  ASSERT_TRUE(t.make_certs()) << t.logs();
  EXPECT_FALSE(t.start("--app learning-switch", "OpenFlow13", true, "bad"));
  EXPECT_NE(t.ctl_log().find("TLS handshake failed"), std::string::npos) << t.logs();
  EXPECT_EQ(t.ctl_log().find("switch up"), std::string::npos) << t.logs();
  EXPECT_NE(t.sw_log().find("unreachable"), std::string::npos) << t.logs();
  EXPECT_EQ(t.stop_switch(), 0) << t.logs();  // still running, retrying; stops cleanly
  EXPECT_EQ(t.stop_controller(), 0) << t.logs();
}

TEST_F(ControllerFlowlabSwitch, HubOf13PingIperfAndOnlyTableMissFlow) {
  ControllerAndSwitch t("cs");
  ASSERT_TRUE(t.hosts_ok());
  ASSERT_TRUE(t.start("--app hub", "OpenFlow13")) << t.logs();
  EXPECT_TRUE(t.ping()) << t.logs();
  std::string out;
  EXPECT_TRUE(t.iperf(5201, 1, &out)) << out << t.logs();
  int st = -1;
  std::string dump = t.dump_flows("OpenFlow13", &st);
  ASSERT_EQ(st, 0) << dump << t.logs();
  auto lines = flow_lines(dump);
  ASSERT_EQ(lines.size(), 1u) << dump;
  EXPECT_NE(lines[0].find("priority=0"), std::string::npos) << dump;
  EXPECT_NE(lines[0].find("CONTROLLER"), std::string::npos) << dump;
  EXPECT_GT(n_packets(lines[0]), 0u) << dump;
  EXPECT_EQ(t.stop_switch(), 0) << t.logs();
  // The hub answers with buffer ids (the switch buffers): every packet-in was
  // answered by a packet-out that found its buffer (--stats-file at exit).
  std::ifstream in(t.stats_file());
  auto stats = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(stats.is_object()) << t.stats_file();
  EXPECT_GT(stats["packet_ins"]["sent"].get<uint64_t>(), 100u) << stats.dump();
  EXPECT_EQ(stats["buffers"]["evicted"].get<uint64_t>(), 0u) << stats.dump();
  EXPECT_EQ(stats["errors_sent"].get<uint64_t>(), 0u) << stats.dump();
  EXPECT_GE(stats["packet_outs"].get<uint64_t>() + 8, stats["packet_ins"]["sent"].get<uint64_t>())
      << stats.dump();
  EXPECT_EQ(t.stop_controller(), 0) << t.logs();
}

TEST_F(ControllerFlowlabSwitch, FirewallOf13AllowsTcp5201DeniesTcp5202) {
  ControllerAndSwitch t("cs");
  ASSERT_TRUE(t.hosts_ok());
  std::string rules = t.dir() + "/rules.yaml";
  {
    std::ofstream f(rules);
    f << interop::kAllowTcp5201Rules;
  }
  ASSERT_TRUE(t.start("--app firewall --config " + rules + " --app learning-switch", "OpenFlow13"))
      << t.logs();
  EXPECT_TRUE(t.ping()) << t.logs();
  std::string out;
  EXPECT_TRUE(t.iperf(5201, 2, &out)) << out << t.logs();
  EXPECT_FALSE(t.iperf(5202, 1, &out)) << "denied port connected: " << out;
  int st = -1;
  std::string dump = t.dump_flows("OpenFlow13", &st);
  ASSERT_EQ(st, 0) << dump << t.logs();
  EXPECT_NE(dump.find("tp_dst=5202"), std::string::npos) << dump;  // the drop flow
  EXPECT_EQ(t.stop_switch(), 0) << t.logs();
  // The denied SYNs died in the switch's pipeline, on the drop flow (--stats-file at exit).
  std::ifstream in(t.stats_file());
  auto stats = nlohmann::json::parse(in, nullptr, false);
  ASSERT_TRUE(stats.is_object()) << t.stats_file();
  EXPECT_GT(stats["datapath"]["action_drops"].get<uint64_t>(), 0u) << stats.dump();
  EXPECT_GT(stats["datapath"]["packets"].get<uint64_t>(), 1000u) << stats.dump();
  EXPECT_EQ(t.stop_controller(), 0) << t.logs();
}

}  // namespace
}  // namespace flowlab::switch_interop

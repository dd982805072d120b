// `flowlab lab` end to end, as root, with real namespaces and the real peers:
// a quick scenario on the backends that exist (Linux bridge, OVS + os-ken), the JSON
// it writes, skipped cases for missing peers, nothing left afterwards, SIGINT and
// kill -9 + `lab clean`, file:line errors. Each test uses its own state dir
// (FLOWLAB_STATE_DIR) so it sees only its own runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabRun : public LabDirTest {
 protected:
  LabRun() : LabDirTest("lab-test", {"ip", "iperf3", "ping"}) {}

  std::string write(const std::string& name, const std::string& yaml) const {
    auto p = dir_ / name;
    std::ofstream(p) << yaml;
    return p.string();
  }

  json results(const std::string& out) const {
    std::ifstream in(out + "/results.json");
    if (!in) return json();
    return json::parse(in);
  }

  // Namespaces of a run (all start with fl<runid>-).
  static std::vector<std::string> namespaces_of(const std::string& run_id) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/run/netns", ec))
      if (e.path().filename().string().rfind("fl" + run_id + "-", 0) == 0) out.push_back(e.path().filename());
    return out;
  }

  // The single run id in this test's state dir, waiting up to `seconds` for it.
  std::string wait_run_id(double seconds) const {
    uint64_t end = monotonic_ns() + uint64_t(seconds * 1e9);
    while (monotonic_ns() < end) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(dir_ / "state", ec)) return e.path().filename();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return {};
  }

  // Waits until the run's state records a process (the traffic is running).
  json wait_state_with_process(const std::string& id, double seconds) const {
    uint64_t end = monotonic_ns() + uint64_t(seconds * 1e9);
    while (monotonic_ns() < end) {
      std::ifstream in(dir_ / "state" / id / "state.json");
      if (in) {
        try {
          json j = json::parse(in);
          for (const auto& p : j["processes"])
            if (p["label"].get<std::string>().find("iperf3") != std::string::npos) return j;
        } catch (const json::exception&) {
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return json();
  }
};

constexpr const char* kTopology = R"(
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: linux-bridge, controller: c1}
controllers:
  c1: {kind: os-ken, app: learning_switch_13.py}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
)";

TEST_F(LabRun, QuickScenarioOnBridgeAndOvsOsKen) {
  if (!have_program("ovs-vswitchd") || !have_program("/usr/bin/osken-manager"))
    GTEST_SKIP() << "needs Open vSwitch and os-ken";
  std::string peers = std::string(FLOWLAB_SHARED_DIR) + "/peers";
  std::string file = write("s.yaml", std::string("name: labtest\n") + kTopology + R"(
cases:
  - name: bridge
  - name: ovs-osken
    switches: {s1: {kind: ovs}}
    offloads: off
  - name: bridge-sg
    switches:
      s1:
        security_group:
          rules: [{proto: icmp}, {proto: tcp, port: 5201}, {proto: udp, port: 5201}, {proto: tcp, port: 7001}]
tests:
  - {type: ping, from: h1, to: h2, count: 3, interval: 0.05}
  - {type: iperf3-tcp, from: h1, to: h2, duration: 1}
  - {type: iperf3-udp, from: h1, to: h2, duration: 1, rate: 50M, size: 1200}
  - {type: tcp-rr, from: h1, to: h2, count: 200}
)");
  std::string out = (dir_ / "out").string();
  auto o = opts(240);
  o.env.push_back({"FLOWLAB_PEERS_DIR", peers});
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out}, o);
  ASSERT_TRUE(r.ok()) << r.describe() << "\n" << r.out << r.err;
  json j = results(out);
  ASSERT_TRUE(j.is_object());
  ASSERT_EQ(j["cases"].size(), 3u);
  for (const auto& c : j["cases"]) EXPECT_EQ(c["status"], "ok") << c.dump();
  ASSERT_EQ(j["results"].size(), 12u);
  for (const auto& t : j["results"]) {
    SCOPED_TRACE(t["case"].get<std::string>() + "/" + t["test"].get<std::string>());
    ASSERT_EQ(t["status"], "ok") << t.value("reason", "");
    EXPECT_FALSE(t["raw"].get<std::string>().empty());
    const auto& m = t["metrics"];
    if (t["type"] == "ping") {
      EXPECT_GT(m["rtt_avg_ms"].get<double>(), 0);
    } else if (t["type"] == "iperf3-tcp") {
      EXPECT_GT(m["gbps"].get<double>(), 0.01);
    } else if (t["type"] == "iperf3-udp") {
      EXPECT_GT(m["gbps"].get<double>(), 0.001);
    } else {
      EXPECT_GT(m["transactions_per_s"].get<double>(), 0);
    }
  }
  // OVS counters and the os-ken flows were collected for the explanation.
  const auto& ovs = j["cases"][1]["switch_counters"]["s1"];
  EXPECT_NE(ovs["dump_ports"].get<std::string>().find("rx pkts="), std::string::npos);
  EXPECT_NE(ovs["dump_flows"].get<std::string>().find("priority=1"), std::string::npos) << "learned flows";
  EXPECT_EQ(j["cases"][1]["offload_state"]["h1:eth0"]["tx-checksumming"], "off");
  EXPECT_EQ(j["cases"][0]["offload_state"]["h1:eth0"]["tx-checksumming"], "on");
  EXPECT_NE(j["cases"][2]["switch_counters"]["s1"]["iptables"].get<std::string>().find("flsg-s1-p1"),
            std::string::npos);
  EXPECT_TRUE(fs::exists(out + "/report.html"));
  EXPECT_TRUE(fs::exists(out + "/ovs-osken/c1-controller.log"));
  EXPECT_NE(r.out.find("ratios against the first case"), std::string::npos);
  // Nothing left: no namespace of the run, no state.
  EXPECT_TRUE(namespaces_of(j["run_id"]).empty());
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  // The report re-renders from results.json alone.
  fs::remove(out + "/report.html");
  auto rep = run_command({FLOWLAB_BINARY, "lab", "report", out}, opts(30));
  EXPECT_TRUE(rep.ok()) << rep.describe();
  EXPECT_TRUE(fs::exists(out + "/report.html"));
}

TEST_F(LabRun, MissingPeerMakesItsCaseSkipped) {
  std::string file = write("s.yaml", std::string("name: labskip\n") + kTopology + R"(
cases:
  - name: no-such-osken-app
    switches: {s1: {kind: ovs}}
    controllers: {c1: {kind: os-ken, app: /nonexistent/app.py}}
tests:
  - {type: ping, from: h1, to: h2, count: 1}
)");
  std::string out = (dir_ / "out").string();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out}, opts(60));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;  // skipped is not a failure
  json j = results(out);
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["status"], "skipped");
  EXPECT_NE(j["cases"][0]["reason"].get<std::string>().find("/nonexistent/app.py"), std::string::npos);
  EXPECT_EQ(j["results"][0]["status"], "skipped");
}

TEST_F(LabRun, SigintMidRunCleansUp) {
  std::string file = write("s.yaml", std::string("name: labint\n") + kTopology + R"(
cases:
  - name: bridge
tests:
  - {type: iperf3-tcp, from: h1, to: h2, duration: 60}
)");
  std::string out = (dir_ / "out").string();
  auto o = opts(60);
  auto lab = Process::spawn("lab", {FLOWLAB_BINARY, "lab", "run", file, "--out", out}, o,
                            (dir_ / "lab.log").string(), nullptr);
  ASSERT_TRUE(lab.ok());
  std::string id = wait_run_id(10);
  ASSERT_FALSE(id.empty());
  json st = wait_state_with_process(id, 30);
  ASSERT_TRUE(st.is_object()) << "traffic never started: " << lab->log_tail();
  EXPECT_FALSE(namespaces_of(id).empty());
  uint64_t t0 = monotonic_ns();
  kill(lab->pid(), SIGINT);
  ASSERT_TRUE(lab->wait_exit(30)) << "lab did not stop after SIGINT";
  EXPECT_LT(double(monotonic_ns() - t0) / 1e9, 20.0);
  EXPECT_EQ(lab->exit_code(), 128 + SIGINT) << lab->log_tail();
  EXPECT_TRUE(namespaces_of(id).empty());
  EXPECT_FALSE(fs::exists(dir_ / "state" / id));
  for (const auto& p : st["processes"])
    EXPECT_NE(process_start_time(p["pid"].get<pid_t>()), p["start"].get<uint64_t>()) << p.dump();
  json j = results(out);
  ASSERT_TRUE(j.is_object()) << "partial results are written";
  EXPECT_TRUE(j["interrupted"].get<bool>());
}

TEST_F(LabRun, CleanAfterKill9RemovesLeftovers) {
  std::string file = write("s.yaml", std::string("name: labkill\n") + kTopology + R"(
cases:
  - name: bridge
tests:
  - {type: iperf3-tcp, from: h1, to: h2, duration: 60}
)");
  auto lab = Process::spawn("lab", {FLOWLAB_BINARY, "lab", "run", file, "--out", (dir_ / "out").string()},
                            opts(60), (dir_ / "lab.log").string(), nullptr);
  ASSERT_TRUE(lab.ok());
  std::string id = wait_run_id(10);
  ASSERT_FALSE(id.empty());
  json st = wait_state_with_process(id, 30);
  ASSERT_TRUE(st.is_object()) << lab->log_tail();
  kill(lab->pid(), SIGKILL);
  ASSERT_TRUE(lab->wait_exit(10));
  auto left = namespaces_of(id);
  EXPECT_EQ(left.size(), 3u) << "core + two hosts are left behind after kill -9";
  auto r = run_command({FLOWLAB_BINARY, "lab", "clean"}, opts(60));
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_NE(r.out.find("deleted netns fl" + id), std::string::npos) << r.out;
  EXPECT_TRUE(namespaces_of(id).empty());
  EXPECT_FALSE(fs::exists(dir_ / "state" / id));
  for (const auto& p : st["processes"])
    EXPECT_NE(process_start_time(p["pid"].get<pid_t>()), p["start"].get<uint64_t>()) << p.dump();
  // A second clean finds nothing.
  r = run_command({FLOWLAB_BINARY, "lab", "clean"}, opts(60));
  EXPECT_NE(r.out.find("nothing to clean"), std::string::npos) << r.out;
}

TEST_F(LabRun, BadYamlNamesFileLineAndKey) {
  std::string file =
      write("bad.yaml", "name: x\nhosts:\n  h1: {addr: 10.0.0.1/24}\nswitches:\n  s1: {kindd: ovs}\n");
  auto r = run_command({FLOWLAB_BINARY, "lab", "validate", file}, opts(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file + ":5: key 'kindd'"), std::string::npos) << r.err;
  r = run_command({FLOWLAB_BINARY, "lab", "run", file}, opts(30));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(file + ":5: key 'kindd'"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "a bad file starts nothing";
  auto ok = run_command(
      {FLOWLAB_BINARY, "lab", "validate", std::string(FLOWLAB_SOURCE_DIR) + "/scenarios/quick.yaml"},
      opts(30));
  EXPECT_TRUE(ok.ok()) << ok.err;
  EXPECT_NE(ok.out.find("ok: scenario 'quick'"), std::string::npos);
}

// flowlab's own switch + controller (issues 3 and 4): passes once both land.
TEST_F(LabRun, QuickYamlFlowlabCase) {
  std::string out = (dir_ / "out").string();
  auto r =
      run_command({FLOWLAB_BINARY, "lab", "run", std::string(FLOWLAB_SOURCE_DIR) + "/scenarios/quick.yaml",
                   "--quick", "--only", "flowlab", "--out", out},
                  opts(120));
  json j = results(out);
  ASSERT_TRUE(j.is_object()) << r.out << r.err;
  ASSERT_EQ(j["cases"].size(), 1u);
  EXPECT_EQ(j["cases"][0]["status"], "ok") << j["cases"][0].value("reason", "");
  for (const auto& t : j["results"])
    EXPECT_EQ(t["status"], "ok") << t["test"] << ": " << t.value("reason", "");
  EXPECT_TRUE(namespaces_of(j["run_id"]).empty());
}

}  // namespace
}  // namespace flowlab::lab

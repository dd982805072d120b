// A lab across machines, as root, on emulated machines (`--machines N`: a
// namespace each on an underlay bridge, an agent process each, the lab's own
// etcd): Mininet's linear,3 placed on 3 machines pings every pair through the
// VXLAN tunnels and the control segment; the two-machine scenario carries ping
// and TCP across; a host MTU larger than the tunnels carry is refused before
// anything is built; an agent killed mid-run loses its machine's tests and no
// others; and nothing is left behind (namespaces, processes, state).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabMachines : public LabDirTest {
 protected:
  LabMachines() : LabDirTest("machines", {"ip", "ping", "iperf3", "/usr/bin/etcd"}, 60) {}

  static std::set<std::string> namespaces() {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator("/run/netns")) out.insert(e.path().filename().string());
    return out;
  }
  json results() const {
    std::ifstream in(out() + "/results.json");
    return in ? json::parse(in, nullptr, false) : json();
  }
  static std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(LabMachines, LinearThreeOnThreeMachinesPingsEveryPair) {
  auto before = namespaces();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,3", "--switch", "flowlab", "--controller",
                        "flowlab:learning-switch", "--test", "pingall", "--machines", "3", "--out", out()},
                       opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  // Every machine got a switch and its host: the linear chain is cut twice.
  const json& placement = j["cases"][0]["placement"];
  ASSERT_EQ(placement.size(), 6u) << placement.dump();
  std::set<std::string> used;
  for (const auto& [node, m] : placement.items()) used.insert(m.get<std::string>());
  EXPECT_EQ(used, (std::set<std::string>{"m0", "m1", "m2"}));
  for (int i = 1; i <= 3; ++i)
    EXPECT_EQ(placement["h" + std::to_string(i)], placement["s" + std::to_string(i)]) << placement.dump();
  EXPECT_NE(r.err.find("2 link(s) cut, carried as VXLAN (UDP 4789, inner MTU 1450 of the underlay's 1500)"),
            std::string::npos)
      << r.err;
  ASSERT_EQ(j["results"].size(), 1u);
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "ok") << p.value("reason", "");
  EXPECT_EQ(p["machine"], "all");
  EXPECT_EQ(p["metrics"]["pairs"], 6);
  EXPECT_EQ(p["metrics"]["pairs_reached"], 6);
  // Each agent built its part with the tunnels' MTU, and said so.
  std::string m1 = slurp(out() + "/machines/agent-m1.log");
  EXPECT_NE(m1.find("building 2 node(s), 1 tunnel(s), inner MTU 1450"), std::string::npos) << m1;
  std::string m0 = slurp(out() + "/machines/agent-m0.log");  // the middle switch: two tunnels
  EXPECT_NE(m0.find("building 2 node(s), 2 tunnel(s), inner MTU 1450, the controllers"), std::string::npos) << m0;
  EXPECT_EQ(namespaces(), before);
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMachines, TwoMachinesCarryPingAndTcpAcross) {
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml",
                        "--machines", "2", "--quick", "--out", out()},
                       opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["cases"][0]["placement"]["h1"], "m0");
  EXPECT_EQ(j["cases"][0]["placement"]["s2"], "m1");
  ASSERT_EQ(j["results"].size(), 2u);
  for (const auto& t : j["results"]) {
    EXPECT_EQ(t["status"], "ok") << t.dump();
    EXPECT_EQ(t["machine"], "m0->m1");
  }
  EXPECT_EQ(j["results"][0]["metrics"]["loss_pct"], 0) << j["results"][0].dump();
  EXPECT_GT(j["results"][1]["metrics"].value("gbps", 0.0), 0.01) << j["results"][1].dump();
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMachines, HostMtuPastTheTunnelsIsRefusedBeforeAnythingIsBuilt) {
  std::string yaml = slurp(FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml");
  auto at = yaml.find("{addr: 10.0.0.1/24, machine: m0}");
  ASSERT_NE(at, std::string::npos);
  yaml.insert(at + 1, "mtu: 9000, ");
  std::string file = (dir_ / "jumbo.yaml").string();
  std::ofstream(file) << yaml;
  auto before = namespaces();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--machines", "2", "--out", out()}, opts(120));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["cases"][0]["status"], "failed");
  EXPECT_NE(j["cases"][0]["reason"].get<std::string>().find(
                "host h1 eth0 has MTU 9000, more than the tunnels between machines carry (1450"),
            std::string::npos)
      << j["cases"][0].dump();
  EXPECT_EQ(namespaces(), before);
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

// An agent killed with -9 mid-run: its lease expires, the tests that need its
// machine are marked lost with the reason, the others finish, and what it left
// is removed (by the emulation, as its next life would).
TEST_F(LabMachines, KilledAgentsMachineIsLostTheOthersFinish) {
  std::string yaml = R"(name: lose-one
hosts:
  h1: {addr: 10.0.0.1/24, machine: m0}
  h2: {addr: 10.0.0.2/24, machine: m1}
  h3: {addr: 10.0.0.3/24, machine: m2}
switches:
  s1: {kind: flowlab, controller: c1, machine: m0}
  s2: {kind: flowlab, controller: c1, machine: m1}
  s3: {kind: flowlab, controller: c1, machine: m2}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s2:p1]
  - endpoints: [h3:eth0, s3:p1]
  - endpoints: [s1:p2, s2:p2]
  - endpoints: [s2:p3, s3:p2]
tests:
  - {type: ping, name: long-m0-m1, from: h1, to: h2, count: 60, interval: 0.1}
  - {type: ping, name: to-m2, from: h1, to: h3, count: 5, interval: 0.1}
  - {type: ping, name: back-m1-m0, from: h2, to: h1, count: 5, interval: 0.1}
)";
  std::string file = (dir_ / "lose-one.yaml").string();
  std::ofstream(file) << yaml;
  auto before = namespaces();
  auto run = Process::spawn("lab run", {FLOWLAB_BINARY, "lab", "run", file, "--machines", "3", "--out", out()},
                            opts(300), (dir_ / "run.log").string(), nullptr);
  ASSERT_TRUE(run.ok()) << run.error().message;
  // Once the first test runs (every machine ready), kill m2's agent.
  bool killed = false;
  for (int i = 0; i < 1200 && !killed; ++i) {
    killed = slurp((dir_ / "run.log").string()).find("long-m0-m1 h1 -> h2 ...") != std::string::npos;
    if (!killed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(killed) << run->log_tail();
  auto k = run_command({"pkill", "-9", "-f", "lab agent --etcd .* --name m2 "}, with_timeout(5));
  EXPECT_EQ(k.exit_code, 0) << k.err;
  ASSERT_TRUE(run->wait_exit(240)) << run->log_tail();
  EXPECT_EQ(run->exit_code(), 1) << run->log_tail();
  json j = results();
  ASSERT_TRUE(j.is_object()) << run->log_tail();
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_EQ(j["results"][0]["status"], "ok") << j["results"][0].dump();
  EXPECT_EQ(j["results"][1]["status"], "lost") << j["results"][1].dump();
  EXPECT_NE(j["results"][1]["reason"].get<std::string>().find("machine m2 (host h3) was lost: its agent's lease expired"),
            std::string::npos)
      << j["results"][1].dump();
  EXPECT_EQ(j["results"][2]["status"], "ok") << j["results"][2].dump();
  EXPECT_TRUE(j["cases"][0]["lost_machines"].contains("m2")) << j["cases"][0].dump();
  EXPECT_EQ(namespaces(), before);
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

}  // namespace
}  // namespace flowlab::lab

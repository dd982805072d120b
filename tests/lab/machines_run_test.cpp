// A lab across machines, as root, on emulated machines (`--machines N`: a
// namespace each on an underlay bridge, an agent process each, the lab's own
// etcd): Mininet's linear,3 placed on 3 machines pings every pair through the
// VXLAN tunnels and the control segment; the two-machine scenario carries ping
// and TCP across; a host MTU larger than the tunnels carry is refused before
// anything is built; and nothing is left behind (namespaces, processes, state).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

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

}  // namespace
}  // namespace flowlab::lab

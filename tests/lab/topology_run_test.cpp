// Multi-switch networks end to end, as root: Mininet's tree from the command line on
// flowlab switches + the flowlab learning switch and on Open vSwitch, rings with the
// Linux bridge's STP and with os-ken's STP app, every pair pinging (pingall); bad
// topology input refused with exit 2 before anything exists. Each test has its own
// state dir (FLOWLAB_STATE_DIR) and checks that nothing of its run is left.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabTopology : public LabDirTest {
 protected:
  LabTopology() : LabDirTest("topo-test", {"ip", "ping", "bridge"}, 60) {
    extra_env_ = {{"FLOWLAB_PEERS_DIR", std::string(FLOWLAB_SHARED_DIR) + "/peers"}};
  }
  std::string write(const std::string& name, const std::string& yaml) const {
    auto p = dir_ / name;
    std::ofstream(p) << yaml;
    return p.string();
  }
  json results() const {
    std::ifstream in(out() + "/results.json");
    return in ? json::parse(in, nullptr, false) : json();
  }
  static size_t namespaces_of(const std::string& run_id) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/run/netns", ec))
      n += e.path().filename().string().rfind("fl" + run_id + "-", 0) == 0;
    return n;
  }
  // The pingall record of the only case: complete, every pair answered.
  void expect_pingall_complete(const json& j, size_t hosts) {
    ASSERT_TRUE(j.is_object());
    ASSERT_EQ(j["cases"].size(), 1u);
    EXPECT_EQ(j["cases"][0]["status"], "ok") << j["cases"][0].value("reason", "");
    ASSERT_EQ(j["results"].size(), 1u);
    const json& r = j["results"][0];
    EXPECT_EQ(r["type"], "pingall");
    EXPECT_EQ(r["status"], "ok") << r.value("reason", "");
    EXPECT_EQ(r["metrics"]["pairs"], hosts * (hosts - 1));
    EXPECT_EQ(r["metrics"]["pairs_reached"], hosts * (hosts - 1));
    EXPECT_EQ(r["metrics"]["dropped_pct"], 0.0);
    ASSERT_EQ(r["matrix"]["hosts"].size(), hosts);
    for (size_t i = 0; i < hosts; ++i)
      for (size_t k = 0; k < hosts; ++k)
        if (i != k) {
          EXPECT_GT(r["matrix"]["rtt_ms"][i][k].get<double>(), 0) << i << "->" << k;
        }
    EXPECT_EQ(namespaces_of(j["run_id"]), 0u) << "nothing left";
    EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  }
};

TEST_F(LabTopology, TreeOfFlowlabSwitchesFromTheCommandLine) {
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "tree,2,2", "--switch", "flowlab",
                        "--controller", "flowlab:learning-switch", "--test", "pingall", "--out", out()},
                       opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  expect_pingall_complete(j, 4);
  EXPECT_EQ(j["scenario"]["file"], "--topo tree,2,2");
  EXPECT_EQ(j["topology"]["generator"], "tree depth=2 fanout=2");
  EXPECT_EQ(j["topology"]["switches"].size(), 3u);
  // Mininet's MACs are on the wire: s2 (h1, h2 on ports 1, 2; s1 on 3) learned
  // h1's and installed a flow to it on port 1.
  const std::string flows = j["cases"][0]["switch_counters"]["s2"]["dump_flows"];
  EXPECT_NE(flows.find("dl_dst=00:00:00:00:00:01 actions=output:1"), std::string::npos) << flows;
  // h3 sits under s3, so s1 reaches it through its port 2.
  const std::string root = j["cases"][0]["switch_counters"]["s1"]["dump_flows"];
  EXPECT_NE(root.find("dl_dst=00:00:00:00:00:03 actions=output:2"), std::string::npos) << root;
  EXPECT_GT(j["cases"][0]["link_bytes"]["s1-eth1"].get<long long>(), 0);
  EXPECT_NE(r.out.find("pingall 12/12 pairs reached, 0.0% dropped"), std::string::npos) << r.out;
  std::ifstream html(out() + "/report.html");
  std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("class=\"topo\""), std::string::npos);
  EXPECT_NE(page.find("class=\"pingall\""), std::string::npos);
}

TEST_F(LabTopology, TreeOfOvsSwitches) {
  if (!have_program("ovs-vswitchd")) GTEST_SKIP() << "needs Open vSwitch";
  auto r = run_command(
      {FLOWLAB_BINARY, "lab", "run", "--topo", "tree,2,2", "--switch", "ovs", "--out", out()}, opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  expect_pingall_complete(j, 4);
  // Three bridges on one vswitchd, each with flows from the (default) flowlab learning switch.
  for (const char* s : {"s1", "s2", "s3"}) {
    const std::string flows = j["cases"][0]["switch_counters"][s]["dump_flows"];
    EXPECT_NE(flows.find("priority=1,in_port="), std::string::npos) << s << ": " << flows;
  }
}

constexpr const char* kRing = R"(name: ring
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
  h3: {addr: 10.0.0.3/24}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s2:p1]
  - endpoints: [h3:eth0, s3:p1]
  - endpoints: [s1:p2, s2:p3]
  - endpoints: [s2:p2, s3:p3]
  - endpoints: [s3:p2, s1:p3]
tests:
  - {type: pingall, count: 2, interval: 0.05}
)";

TEST_F(LabTopology, RingOfLinuxBridgesWithStp) {
  std::string file = write("ring.yaml", std::string(kRing) + R"(switches:
  s1: {kind: linux-bridge, stp: true}
  s2: {kind: linux-bridge, stp: true}
  s3: {kind: linux-bridge, stp: true}
)");
  auto v = run_command({FLOWLAB_BINARY, "lab", "validate", file}, opts(30));
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_EQ(v.out.find("warning"), std::string::npos) << "stp breaks the loop: " << v.out;
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out()}, opts(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  expect_pingall_complete(j, 3);
  // The spanning tree blocked one of the ring's ports.
  std::string states;
  for (const char* s : {"s1", "s2", "s3"})
    states += j["cases"][0]["switch_counters"][s].value("stp_ports", "");
  EXPECT_NE(states.find("state blocking"), std::string::npos) << states;
  EXPECT_NE(states.find("state forwarding"), std::string::npos) << states;
}

// A pair with no path fails pingall even after the retry that pairs with no echo
// get (a first echo shed while a controller learns is not a missing path): h2 is
// on another subnet, so the four pairs with h2 have no route either time.
TEST_F(LabTopology, PingallRetriesSilentPairsAndFailsThoseWithoutAPath) {
  std::string file = write("subnets.yaml", R"(name: subnets
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.1.2/24}
  h3: {addr: 10.0.0.3/24}
switches:
  s1: {kind: linux-bridge}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
  - endpoints: [h3:eth0, s1:p3]
tests:
  - {type: pingall}
)");
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out()}, opts(120));
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  ASSERT_EQ(j["results"].size(), 1u);
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "failed");
  EXPECT_EQ(p["metrics"]["pairs"], 6);
  EXPECT_EQ(p["metrics"]["pairs_reached"], 2);  // h1 <-> h3
  EXPECT_EQ(p["metrics"]["retried_pairs"], 4);
  EXPECT_EQ(p["metrics"]["reached_on_retry"], 0);
  EXPECT_NE(p.value("reason", "").find("4 of 6 pairs got no echo, also on a retry (h1->h2"),
            std::string::npos)
      << p.value("reason", "");
  EXPECT_NE(p.value("command", "").find("ping -c 3"), std::string::npos) << p.value("command", "");
  EXPECT_EQ(namespaces_of(j["run_id"]), 0u) << "nothing left";
}

TEST_F(LabTopology, RingWithoutStpIsWarnedAbout) {
  std::string file = write("ring.yaml", std::string(kRing) + R"(switches:
  s1: {kind: linux-bridge}
  s2: {kind: linux-bridge}
  s3: {kind: linux-bridge}
)");
  auto v = run_command({FLOWLAB_BINARY, "lab", "validate", file}, opts(30));
  EXPECT_EQ(v.exit_code, 0) << v.err;
  EXPECT_NE(
      v.out.find(file + ":16: warning: case 'default': switch s1 is on a loop and linux-bridge without"),
      std::string::npos)
      << v.out;
}

// os-ken's 802.1D (default timers) needs ~30 s before ports forward; `settle` waits for it.
TEST_F(LabTopology, RingOfOvsWithOsKenStp) {
  if (!have_program("ovs-vswitchd") || !have_program("/usr/bin/osken-manager"))
    GTEST_SKIP() << "needs Open vSwitch and os-ken";
  std::string file = write("ring.yaml", std::string(kRing) + R"(switches:
  s1: {kind: ovs, controller: c1}
  s2: {kind: ovs, controller: c1}
  s3: {kind: ovs, controller: c1}
controllers:
  c1: {kind: os-ken, app: stp_switch_13.py}
settle: 90
)");
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out()}, opts(240));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  expect_pingall_complete(j, 3);
  EXPECT_GT(j["cases"][0]["settle_s"].get<double>(), 0) << "the tree took time to converge";
}

TEST_F(LabTopology, PersistentLabUpExecStatusDown) {
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "tree,2,2", "--out", out()}, opts(180));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  auto st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(30));
  std::string id = st.out.substr(0, st.out.find(' '));
  ASSERT_EQ(id.size(), 5u) << st.out;
  EXPECT_NE(st.out.find("tree-2-2 case default  4 hosts  up"), std::string::npos) << st.out;
  EXPECT_EQ(namespaces_of(id), 5u) << "core + 4 hosts stay up";
  // Mininet's `h1 ping h4`, across the tree, through flowlab switches and the learning switch.
  auto ping =
      run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c1", "-W3", "10.0.0.4"}, opts(30));
  EXPECT_EQ(ping.exit_code, 0) << ping.out << ping.err;
  EXPECT_NE(ping.out.find("1 received"), std::string::npos) << ping.out;
  // Host names in the command become addresses, as in Mininet's CLI: `h1 ping h4`.
  auto by_name = run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c1", "-W3", "h4"}, opts(30));
  EXPECT_EQ(by_name.exit_code, 0) << by_name.out << by_name.err;
  EXPECT_NE(by_name.out.find("PING 10.0.0.4"), std::string::npos) << by_name.out;
  EXPECT_NE(by_name.out.find("1 received"), std::string::npos) << by_name.out;
  auto fail = run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "false"}, opts(30));
  EXPECT_EQ(fail.exit_code, 1) << "the command's exit code passes through";
  auto nohost = run_command({FLOWLAB_BINARY, "lab", "exec", id, "h9", "true"}, opts(30));
  EXPECT_EQ(nohost.exit_code, 2);
  EXPECT_NE(nohost.err.find("has no host 'h9'"), std::string::npos) << nohost.err;
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(90));
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  EXPECT_EQ(namespaces_of(id), 0u);
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  st = run_command({FLOWLAB_BINARY, "lab", "status"}, opts(30));
  EXPECT_NE(st.out.find("no lab is up"), std::string::npos) << st.out;
  EXPECT_NE(run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(30)).exit_code, 0);
}

TEST_F(LabTopology, BadTopologyInputExits2AndCreatesNothing) {
  struct Bad {
    std::vector<std::string> args;
    std::string expect;
  };
  std::string missing = write("missing.yaml", R"(name: x
hosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}
switches: {s1: {kind: flowlab, ports: [p1, p2]}}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p3]
)");
  std::string twice = write("twice.yaml", R"(name: x
hosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}
switches: {s1: {kind: flowlab}}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p1]
)");
  std::string gen = write("gen.yaml", "name: x\ntopology: {type: hypercube, k: 3}\n");
  for (const auto& b : std::vector<Bad>{
           {{"run", "--topo", "tree,2,x"},
            "flowlab lab: error: --topo tree,2,x: topology tree: 'x' is not a count"},
           {{"run", "--topo", "mesh,3"}, "--topo mesh,3: unknown topology type 'mesh'"},
           {{"run", "--topo", "tree", "--switch", "cisco"}, "--switch cisco: unknown switch kind"},
           {{"run", "--topo", "tree", "--test", "pingpong"}, "--test pingpong:"},
           {{"run", missing}, missing + ":6: key 'endpoints': switch 's1' has no port 'p3'"},
           {{"run", twice}, twice + ":6: key 'endpoints': 's1:p1' is used by two links"},
           {{"run", gen}, gen + ":2: key 'type': unknown topology type 'hypercube'"},
           {{"validate", gen}, gen + ":2: key 'type'"},
           {{"run", gen, "--topo", "tree"}, "give a scenario FILE or --topo, not both"},
       }) {
    std::vector<std::string> argv = {FLOWLAB_BINARY, "lab"};
    argv.insert(argv.end(), b.args.begin(), b.args.end());
    auto r = run_command(argv, opts(30));
    EXPECT_EQ(r.exit_code, 2) << b.expect << "\n" << r.err;
    EXPECT_NE(r.err.find(b.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
    EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "nothing created";
  }
}

}  // namespace
}  // namespace flowlab::lab

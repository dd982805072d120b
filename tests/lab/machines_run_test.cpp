// A lab across machines, as root, on emulated machines (`--machines N`: a
// namespace each on an underlay bridge, an agent process each, the lab's own
// etcd): Mininet's linear,3 placed on 3 machines pings every pair through the
// VXLAN tunnels and the control segment; the two-machine scenario carries ping
// and TCP across; a host MTU larger than the tunnels carry is refused before
// anything is built; an agent killed mid-run loses its machine's tests and no
// others; a coordinator killed mid-run leaves a run `lab down ID --etcd`
// takes down from another process; and nothing is left behind (namespaces, processes, state).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <tuple>

#include "coord_support/etcd_cluster.h"
#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST_F(LabMachines, LinearThreeOnThreeMachinesPingsEveryPair) {
  auto before = namespaces();
  auto r =
      run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,3", "--switch", "flowlab", "--controller",
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
  EXPECT_NE(r.err.find("2 link(s) cut, 2 carried as VXLAN (UDP 4789); inner MTU 1450 of the underlay's 1500"),
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
  EXPECT_NE(m0.find("building 2 node(s), 2 tunnel(s), inner MTU 1450, the controllers"), std::string::npos)
      << m0;
  EXPECT_EQ(left_since(before), std::set<std::string>{});
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
  // CPU per machine during the TCP test: each machine's switch and iperf3 end.
  const json& cpu = j["results"][1]["cpu_by_machine"];
  EXPECT_GT(cpu.value("m0", 0.0), 1.0) << j["results"][1].dump();
  EXPECT_GT(cpu.value("m1", 0.0), 1.0) << j["results"][1].dump();
  EXPECT_NE(r.out.find("tcp-across cpu/machine"), std::string::npos) << r.out;
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
  EXPECT_EQ(left_since(before), std::set<std::string>{});
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
  auto run =
      Process::spawn("lab run", {FLOWLAB_BINARY, "lab", "run", file, "--machines", "3", "--out", out()},
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
  EXPECT_NE(j["results"][1]["reason"].get<std::string>().find(
                "machine m2 (host h3) was lost: its agent's lease expired"),
            std::string::npos)
      << j["results"][1].dump();
  EXPECT_EQ(j["results"][2]["status"], "ok") << j["results"][2].dump();
  EXPECT_TRUE(j["cases"][0]["lost_machines"].contains("m2")) << j["cases"][0].dump();
  EXPECT_EQ(left_since(before), std::set<std::string>{});
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

// The real path by hand: an etcd of the test's own, two agents started as a
// user starts them (`lab agent --etcd --name --underlay`), `lab run --etcd`;
// the coordinator killed with -9 mid-run; `lab down ID --etcd` from another
// process takes the run down on both machines.
TEST_F(LabMachines, DeadCoordinatorsRunIsTakenDownFromAnotherProcess) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto before = namespaces();
  // Two "machines": a namespace each on one veth, as two hosts on one wire.
  auto [ma, mb] = two_machines("fldown");
  std::vector<Process> agents;
  for (auto [name, ns, addr] : {std::tuple{"m0", ma, "192.0.2.11"}, std::tuple{"m1", mb, "192.0.2.12"}}) {
    auto a = Process::spawn(std::string("agent ") + name,
                            {FLOWLAB_BINARY, "lab", "agent", "--etcd", etcd.endpoints(), "--name", name,
                             "--underlay", addr, "--underlay-netns", ns},
                            opts(0), (dir_ / (std::string(name) + ".log")).string(), nullptr);
    ASSERT_TRUE(a.ok()) << a.error().message;
    agents.push_back(std::move(*a));
  }
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  // A second agent of a live name is refused, with the holder named.
  auto dup = run_command({FLOWLAB_BINARY, "lab", "agent", "--etcd", etcd.endpoints(), "--name", "m0",
                          "--underlay", "192.0.2.11", "--underlay-netns", ma, "--ttl", "1"},
                         opts(30));
  EXPECT_EQ(dup.exit_code, 1);
  EXPECT_NE(dup.err.find("an agent named m0 is already running"), std::string::npos) << dup.err;
  // An underlay address this "machine" does not have is refused before it registers.
  auto stray = run_command({FLOWLAB_BINARY, "lab", "agent", "--etcd", etcd.endpoints(), "--name", "m9",
                            "--underlay", "192.0.2.99", "--underlay-netns", ma},
                           opts(30));
  EXPECT_EQ(stray.exit_code, 1);
  EXPECT_NE(stray.err.find("--underlay 192.0.2.99 is not an address of this machine (in netns " + ma + ")"),
            std::string::npos)
      << stray.err;
  auto run = Process::spawn("lab run",
                            {FLOWLAB_BINARY, "lab", "run", FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml",
                             "--etcd", etcd.endpoints(), "--out", out()},
                            opts(300), (dir_ / "run.log").string(), nullptr);
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::string log, id;
  for (int i = 0; i < 1200; ++i) {
    log = slurp((dir_ / "run.log").string());
    if (log.find("tcp-across h1 -> h2 ...") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(log.find("tcp-across h1 -> h2 ..."), std::string::npos) << log;
  auto at = log.find(", run ");
  ASSERT_NE(at, std::string::npos);
  id = log.substr(at + 6, log.find(',', at + 6) - at - 6);
  kill(run->pid(), SIGKILL);
  run->wait_exit(10);
  std::set<std::string> left;
  for (const auto& ns : namespaces())
    if (ns.find("fl" + id + "-") == 0) left.insert(ns);
  EXPECT_EQ(left.size(), 4u);  // each machine's core and host namespaces stand
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id, "--etcd", etcd.endpoints()}, opts(90));
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.err.find("run " + id + " taken down on every machine"), std::string::npos) << down.err;
  for (const auto& ns : namespaces()) EXPECT_NE(ns.find("fl" + id + "-"), 0u) << ns;
  auto again = run_command({FLOWLAB_BINARY, "lab", "down", id, "--etcd", etcd.endpoints()}, opts(30));
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("run " + id + " is not in etcd"), std::string::npos) << again.err;
  for (auto& a : agents) {  // SIGTERM: a clean stop
    a.stop(20);
    EXPECT_EQ(a.exit_code(), 0) << a.log_tail();
  }
  run_command({"ip", "netns", "del", ma});
  run_command({"ip", "netns", "del", mb});
  EXPECT_EQ(left_since(before), std::set<std::string>{});
}

// As on machines of their own: each agent in a mount namespace of its own, where
// /run/netns holds only its underlay, so the namespaces it builds are not the
// coordinator's to enter. The tests' commands go through the agents (etcd's
// exec and reply keys): ping and TCP across are measured, and each agent says
// how many commands it served.
TEST_F(LabMachines, AgentsOutOfTheCoordinatorsSightRunItsTestsCommands) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto before = namespaces();
  auto [ma, mb] = two_machines("flsep");
  std::vector<Process> agents = sealed_agents(etcd.endpoints(), ma, mb);
  ASSERT_EQ(agents.size(), 2u);
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml",
                        "--etcd", etcd.endpoints(), "--out", out()},
                       opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("2 host(s) on other machines: their commands go through their agents"),
            std::string::npos)
      << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  ASSERT_EQ(j["results"].size(), 2u);
  EXPECT_EQ(j["results"][0]["status"], "ok") << j["results"][0].value("reason", "");
  EXPECT_EQ(j["results"][0]["metrics"]["loss_pct"], 0);
  EXPECT_EQ(j["results"][1]["status"], "ok") << j["results"][1].value("reason", "");
  EXPECT_GT(j["results"][1]["metrics"].value("gbps", 0.0), 0.01) << j["results"][1].dump();
  for (auto& a : agents) {
    a.stop(20);
    EXPECT_EQ(a.exit_code(), 0) << a.log_tail();
  }
  for (const char* name : {"m0", "m1"}) {
    std::string log = slurp((dir_ / (std::string(name) + ".log")).string());
    EXPECT_NE(log.find("command(s) of the tests served"), std::string::npos) << log;
  }
  run_command({"ip", "netns", "del", ma});
  run_command({"ip", "netns", "del", mb});
  EXPECT_EQ(left_since(before), std::set<std::string>{});
}

// Events across machines: the link between the machines (a VXLAN tunnel) cut
// and restored, then the switch on the other machine killed and started again,
// each fired by the agent that holds it, during a probe from m0 to m1.
TEST_F(LabMachines, EventsOnACutLinkAndARemoteSwitchFireOnTheirMachines) {
  std::string file =
      two_host_scenario("cut-across", "",
                        "  - {type: probe, name: across, from: h1, to: h2, duration: 6, interval: 10ms}\n"
                        "events:\n"
                        "  - {at: 1s, link: [s1, s2], do: down}\n"
                        "  - {at: 2s, link: [s1, s2], do: up}\n"
                        "  - {at: 3s, node: s2, do: kill}\n"
                        "  - {at: 3.5s, node: s2, do: start}\n");
  auto before = namespaces();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--machines", "2", "--out", out()}, opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "ok") << p.value("reason", "");
  EXPECT_EQ(p["machine"], "m0->m1");
  const json& tl = p["probe"]["timeline"];
  ASSERT_EQ(tl.size(), 4u) << tl.dump();
  for (const auto& e : tl) EXPECT_EQ(e["status"], "ok") << e.dump();
  // The cut was real and so was the way back: packets lost, and delivered after.
  EXPECT_GT(p["metrics"].value("lost", 0), 0) << p["metrics"].dump();
  EXPECT_GT(p["metrics"].value("delivered", 0), p["metrics"].value("sent", 0) / 2) << p["metrics"].dump();
  std::string explained = p["explain"].dump();
  EXPECT_NE(explained.find("link s1-s2 carried traffic again"), std::string::npos) << explained;
  EXPECT_NE(explained.find("s2 was back"), std::string::npos) << explained;
  EXPECT_EQ(left_since(before), std::set<std::string>{});
}

}  // namespace
}  // namespace flowlab::lab

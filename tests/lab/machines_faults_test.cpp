// Underlay faults of a lab across machines, as root, with agents started by hand:
// - an underlay address that exists on its machine but does not answer from
//   the other one is refused before anything is built, the run naming which
//   machine cannot reach which address;
// - a machine whose underlay is cut mid-run (its only way to etcd and to the
//   other machine, as on a real machine with one NIC): its lease expires, its
//   tests are marked lost with the reason, the other machine's finish; when its
//   cable comes back, its agent hears that the run's plan and its lease are gone
//   and tears its part down: nothing is left anywhere.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "coord_support/etcd_cluster.h"
#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// m1's --underlay is an address of its machine that is not on the wire (on its
// loopback, another network): m0's pings to it find no route, and m1's
// from it get no answer back. Both agents refuse their parts; nothing is built.
TEST_F(LabMachines, UnderlayAddressThatDoesNotAnswerIsRefusedBeforeAnythingIsBuilt) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto [ma, mb] = two_machines("flreach");
  ASSERT_EQ(run_command({"ip", "-n", mb, "addr", "add", "198.18.0.99/32", "dev", "lo"}).exit_code, 0);
  std::vector<Process> agents = sealed_agents(etcd.endpoints(), ma, mb, false, "198.18.0.99");
  ASSERT_EQ(agents.size(), 2u);
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml",
                        "--etcd", etcd.endpoints(), "--out", out()},
                       opts(120));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  EXPECT_EQ(j["cases"][0]["status"], "failed");
  std::string reason = j["cases"][0].value("reason", "");
  EXPECT_NE(
      reason.find("machine m0: machine m1's underlay address 198.18.0.99 does not answer from 192.0.2.11"),
      std::string::npos)
      << reason;
  EXPECT_NE(
      reason.find("machine m1: machine m0's underlay address 192.0.2.11 does not answer from 198.18.0.99"),
      std::string::npos)
      << reason;
  EXPECT_NE(reason.find("nothing was built"), std::string::npos) << reason;
  EXPECT_TRUE(of_run(j.value("run_id", "")).empty());
  for (const char* name : {"m0", "m1"}) {  // refused before the build: no node, no tunnel
    std::string log = slurp((dir_ / (std::string(name) + ".log")).string());
    EXPECT_EQ(log.find(": building "), std::string::npos) << log;
  }
  for (auto& a : agents) {
    a.stop(20);
    EXPECT_EQ(a.exit_code(), 0) << a.log_tail();
  }
}

// The fixture of the cut: an "etcd machine" E holding the underlay bridge, etcd
// on 192.0.2.10 and the coordinator; machines m0 and m1 (192.0.2.11, .12) each a
// namespace on that bridge, their agents running inside them (nsenter), so the
// machine's underlay is also its way to etcd.
class LabMachinesCut : public LabMachines {
 protected:
  std::vector<std::string> in(const std::string& ns, std::vector<std::string> argv) {
    argv.insert(argv.begin(), {"nsenter", "--net=/run/netns/" + ns, "--"});
    return argv;
  }
  bool ip(const std::string& ns, std::vector<std::string> args) {
    args.insert(args.begin(), {"ip", "-n", ns});
    auto r = run_command(args);
    EXPECT_EQ(r.exit_code, 0) << fmt::format("{}", fmt::join(args, " ")) << ": " << r.err;
    return r.exit_code == 0;
  }
  // E, m0, m1 and the bridge; false if a step failed.
  bool bridged(const std::string& tag) {
    e_ = tag + "e";
    m_ = {tag + "a", tag + "b"};
    for (const auto& ns : {e_, m_[0], m_[1]}) {
      made_.push_back(ns);
      if (run_command({"ip", "netns", "add", ns}).exit_code != 0 || !ip(ns, {"link", "set", "lo", "up"}))
        return false;
    }
    bool ok = ip(e_, {"link", "add", "br0", "type", "bridge"}) &&
              ip(e_, {"addr", "add", "192.0.2.10/24", "dev", "br0"}) && ip(e_, {"link", "set", "br0", "up"});
    for (int k = 0; ok && k < 2; ++k) {
      std::string port = fmt::format("m{}", k);
      ok = ip(m_[k], {"link", "add", "ul0", "type", "veth", "peer", "name", port, "netns", e_}) &&
           ip(m_[k], {"addr", "add", fmt::format("192.0.2.{}/24", 11 + k), "dev", "ul0"}) &&
           ip(m_[k], {"link", "set", "ul0", "up"}) && ip(e_, {"link", "set", port, "master", "br0", "up"});
    }
    return ok;
  }
  // etcd in E on 192.0.2.10:2379 (E's own port space), until it answers.
  bool start_etcd() {
    auto p = Process::spawn(
        "etcd",
        in(e_, {"/usr/bin/etcd", "--name", "e", "--data-dir", (dir_ / "etcd").string(),
                "--listen-client-urls", kEtcd, "--advertise-client-urls", kEtcd, "--listen-peer-urls",
                "http://127.0.0.1:2380", "--initial-advertise-peer-urls", "http://127.0.0.1:2380",
                "--initial-cluster", "e=http://127.0.0.1:2380", "--logger", "zap"}),
        opts(0), (dir_ / "etcd.log").string(), nullptr);
    if (!p.ok()) return false;
    etcd_ = std::move(*p);
    for (int i = 0; i < 200; ++i) {
      if (run_command(in(e_, {"curl", "-sf", std::string(kEtcd) + "/health"}), with_timeout(5)).exit_code ==
          0)
        return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  void TearDown() override {
    etcd_.stop(5);
    LabMachines::TearDown();
  }
  static constexpr const char* kEtcd = "http://192.0.2.10:2379";
  std::string e_;
  std::vector<std::string> m_;
  Process etcd_;
};

TEST_F(LabMachinesCut, CutUnderlayLosesThatMachinesTestsAndLeavesNothing) {
  ASSERT_TRUE(bridged(fmt::format("flcut{}", getpid() % 100000)));
  ASSERT_TRUE(start_etcd()) << slurp((dir_ / "etcd.log").string());
  std::vector<Process> agents;
  for (int k = 0; k < 2; ++k) {
    std::string name = fmt::format("m{}", k);
    auto a = Process::spawn("agent " + name,
                            in(m_[k], {FLOWLAB_BINARY, "lab", "agent", "--etcd", kEtcd, "--name", name,
                                       "--underlay", fmt::format("192.0.2.{}", 11 + k), "--ttl", "2"}),
                            opts(0), (dir_ / (name + ".log")).string(), nullptr);
    ASSERT_TRUE(a.ok()) << a.error().message;
    agents.push_back(std::move(*a));
  }
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  std::string file = (dir_ / "cut.yaml").string();
  std::ofstream(file) << R"(name: cut
hosts:
  h1: {addr: 10.0.0.1/24, machine: m0}
  h2: {addr: 10.0.0.2/24, machine: m1}
  h3: {addr: 10.0.0.3/24, machine: m0}
switches:
  s1: {kind: flowlab, controller: c1, machine: m0}
  s2: {kind: flowlab, controller: c1, machine: m1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h3:eth0, s1:p2]
  - endpoints: [s1:p3, s2:p1]
  - endpoints: [h2:eth0, s2:p2]
tests:
  - {type: ping, name: long-m0-m1, from: h1, to: h2, count: 80, interval: 0.1}
  - {type: ping, name: within-m0, from: h1, to: h3, count: 5, interval: 0.1}
  - {type: ping, name: back-m1-m0, from: h2, to: h1, count: 5, interval: 0.1}
)";
  auto run =
      Process::spawn("lab run", in(e_, {FLOWLAB_BINARY, "lab", "run", file, "--etcd", kEtcd, "--out", out()}),
                     opts(300), (dir_ / "run.log").string(), nullptr);
  ASSERT_TRUE(run.ok()) << run.error().message;
  bool started = false;
  for (int i = 0; i < 1200 && !started; ++i) {
    started = slurp((dir_ / "run.log").string()).find("long-m0-m1 h1 -> h2 ...") != std::string::npos;
    if (!started) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(started) << run->log_tail();
  ASSERT_TRUE(ip(m_[1], {"link", "set", "ul0", "down"}));  // m1's cable out
  ASSERT_TRUE(run->wait_exit(240)) << run->log_tail();
  EXPECT_EQ(run->exit_code(), 1) << run->log_tail();
  json j = results();
  ASSERT_TRUE(j.is_object()) << run->log_tail();
  ASSERT_EQ(j["results"].size(), 3u);
  for (int i : {0, 2}) {
    EXPECT_EQ(j["results"][i]["status"], "lost") << j["results"][i].dump();
    EXPECT_NE(
        j["results"][i].value("reason", "").find("machine m1 (host h2) was lost: its agent's lease expired"),
        std::string::npos)
        << j["results"][i].dump();
  }
  EXPECT_EQ(j["results"][1]["status"], "ok") << j["results"][1].dump();
  EXPECT_EQ(j["results"][1]["metrics"]["loss_pct"], 0) << j["results"][1].dump();
  EXPECT_TRUE(j["cases"][0]["lost_machines"].contains("m1")) << j["cases"][0].dump();
  // m0 took its part down with the case; m1's stands while it cannot hear etcd.
  std::string id = j.value("run_id", "");
  ASSERT_FALSE(id.empty());
  for (const auto& ns : of_run(id)) EXPECT_NE(ns.find("m1"), std::string::npos) << ns;
  // The cable back: m1's agent hears that the run's plan and its lease are gone,
  // tears its part down and registers again.
  ASSERT_TRUE(ip(m_[1], {"link", "set", "ul0", "up"}));
  std::string m1log;
  for (int i = 0; i < 600; ++i) {
    m1log = slurp((dir_ / "m1.log").string());
    if (m1log.find("lease lost; tearing down") != std::string::npos && of_run(id).empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(m1log.find("run " + id + " case default: tearing down"), std::string::npos) << m1log;
  EXPECT_NE(m1log.find("lease lost; tearing down"), std::string::npos) << m1log;
  EXPECT_TRUE(of_run(id).empty());
  for (auto& a : agents) {
    a.stop(20);
    EXPECT_EQ(a.exit_code(), 0) << a.log_tail();
  }
  EXPECT_TRUE(of_run(id).empty());
}

}  // namespace
}  // namespace flowlab::lab

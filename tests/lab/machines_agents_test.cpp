// A lab across machines with agents started by hand, as a user starts them
// (`lab agent --etcd --name --underlay`) on two namespaces joined by one veth:
// `lab up` left standing with `lab exec`/`status`/`down` through the agents, a
// provider network carried tagged on the wire without a tunnel, and etcd lost
// mid-run with the lab kept for `lab down`. Nothing is left behind.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "coord_support/etcd_cluster.h"
#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

// `lab up --etcd` leaves the two-machine case standing on agents out of this
// process's sight: `lab status` (here and from etcd) shows it, `lab exec` reaches
// each host through its machine's agent (ping across, the command's exit code,
// a stopped agent said as gone), a link on the other machines is captured live
// through their agents, and `lab down` removes it from every machine and from etcd,
// bringing the capture of s1-s2 back from the machine still up (m0) over etcd.
TEST_F(LabMachines, UpAcrossMachinesExecStatusAndDownThroughTheAgents) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto before = namespaces();
  auto [ma, mb] = two_machines("flup");
  std::vector<Process> agents = sealed_agents(etcd.endpoints(), ma, mb);
  ASSERT_EQ(agents.size(), 2u);
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", FLOWLAB_SOURCE_DIR "/scenarios/two-machines.yaml",
                         "--etcd", etcd.endpoints(), "--capture", "s1-s2", "--out", out()},
                        opts(300));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  ASSERT_EQ(up.out.rfind("lab ", 0), 0u) << up.out;
  std::string id = up.out.substr(4, up.out.find(' ', 4) - 4);
  auto lab = [&](std::vector<std::string> args, double timeout = 60) {
    args.insert(args.begin(), {FLOWLAB_BINARY, "lab"});
    return run_command(args, opts(timeout));
  };
  auto status = lab({"status"});
  EXPECT_NE(status.out.find(id + "  two-machines case flowlab  2 hosts  up  across m0, m1"),
            std::string::npos)
      << status.out;
  auto in_etcd = lab({"status", "--etcd", etcd.endpoints()});
  EXPECT_EQ(in_etcd.exit_code, 0) << in_etcd.err;
  EXPECT_NE(in_etcd.out.find("2 agent(s) in etcd"), std::string::npos) << in_etcd.out;
  EXPECT_NE(in_etcd.out.find("run " + id + "  two-machines"), std::string::npos) << in_etcd.out;
  EXPECT_NE(in_etcd.out.find("  m0  ready flowlab\n  m1  ready flowlab\n"), std::string::npos) << in_etcd.out;
  // h1 is on m0, h2 on m1: neither namespace is here, so both go through agents.
  auto ping = lab({"exec", id, "h1", "ping", "-c", "2", "-W", "2", "h2"});
  EXPECT_EQ(ping.exit_code, 0) << ping.out << ping.err;
  EXPECT_NE(ping.out.find("PING 10.0.0.2"), std::string::npos) << ping.out;
  EXPECT_NE(ping.out.find("2 received"), std::string::npos) << ping.out;
  auto code = lab({"exec", id, "h2", "sh", "-c", "echo on-h2; exit 3"});
  EXPECT_EQ(code.exit_code, 3) << code.err;
  EXPECT_EQ(code.out, "on-h2\n");
  auto nohost = lab({"exec", id, "h9", "true"});
  EXPECT_EQ(nohost.exit_code, 2);
  EXPECT_NE(nohost.err.find("lab '" + id + "' has no host 'h9'"), std::string::npos) << nohost.err;
  // A live capture of s1-s2 (s1 on m0, s2 on m1, neither namespace here) comes from
  // both agents through etcd; a reader that takes the pcap header and leaves ends it.
  auto cap = run_command(
      {"sh", "-c", fmt::format("'{}' lab capture {} s1-s2 | head -c 24 | od -An -tx1", FLOWLAB_BINARY, id)},
      opts(60));
  EXPECT_EQ(cap.exit_code, 0) << cap.describe();
  EXPECT_FALSE(cap.timed_out) << "the stream ends when its reader goes";
  EXPECT_TRUE(cap.out.find(" d4 c3 b2 a1") == 0 || cap.out.find(" 4d 3c b2 a1") == 0) << cap.out;
  EXPECT_EQ(lab({"capture", id, "s1-s9"}).exit_code, 2) << "an unknown link, before any agent is asked";
  // m1's agent stops (SIGTERM: it takes its part down): a command for h2 is told so.
  agents[1].stop(20);
  EXPECT_EQ(agents[1].exit_code(), 0) << agents[1].log_tail();
  auto gone = lab({"exec", id, "h2", "true"}, 30);
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("machine m1's agent is gone"), std::string::npos) << gone.err;
  auto down = lab({"down", id}, 90);
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_NE(down.out.find("lab " + id + " is down"), std::string::npos) << down.out;
  EXPECT_NE(lab({"status", "--etcd", etcd.endpoints()}).out.find("no run in etcd"), std::string::npos);
  EXPECT_EQ(lab({"status"}).out, "no lab is up\n");
  // The capture of s1-s2 came back from m0 over etcd at down (the ping's two
  // replies arrived there; m1's agent had gone, its half with it).
  std::string m0_half = out() + "/flowlab/capture/s1-s2@m0.pcap";
  EXPECT_TRUE(std::filesystem::exists(m0_half));
  EXPECT_GT(std::filesystem::exists(m0_half) ? std::filesystem::file_size(m0_half) : 0u,
            24u + 2 * 16 + 2 * 98);
  EXPECT_FALSE(std::filesystem::exists(out() + "/flowlab/capture/s1-s2@m1.pcap"));
  agents[0].stop(20);
  EXPECT_EQ(agents[0].exit_code(), 0) << agents[0].log_tail();
  run_command({"ip", "netns", "del", ma});
  run_command({"ip", "netns", "del", mb});
  EXPECT_EQ(left_since(before), std::set<std::string>{});
}

// A provider network between the machines (`type: underlay`, `vlan: 100`): no
// tunnel, the frames on the machines' wire carry 802.1Q tag 100 (tshark on the
// underlay sees the pings tagged), the test records that it crossed on a VLAN,
// and a provider link without a VLAN is refused before anything is built.
TEST_F(LabMachines, ProviderLinkCrossesTaggedOnTheUnderlayWithoutATunnel) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto before = namespaces();
  auto [ma, mb] = two_machines("flpv");
  std::vector<Process> agents = sealed_agents(etcd.endpoints(), ma, mb, false);
  ASSERT_EQ(agents.size(), 2u);
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  auto scenario = [&](const std::string& name, const std::string& provider) {
    return two_host_scenario(name, provider,
                             "  - {type: ping, name: across, from: h1, to: h2, count: 10, interval: 0.05}\n");
  };
  auto wire = Process::spawn("tshark",
                             {"ip", "netns", "exec", ma, "tshark", "-n", "-l", "-i", "ul0", "-Y", "icmp",
                              "-T", "fields", "-e", "vlan.id", "-e", "ip.src", "-e", "ip.dst"},
                             opts(0), (dir_ / "wire.log").string(), nullptr);
  ASSERT_TRUE(wire.ok()) << wire.error().message;
  for (int i = 0; i < 100 && slurp((dir_ / "wire.log").string()).find("Capturing on") == std::string::npos;
       ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", scenario("provider", "type: underlay, vlan: 100"),
                        "--etcd", etcd.endpoints(), "--out", out()},
                       opts(300));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(
      r.err.find("1 link(s) cut, 0 carried as VXLAN (UDP 4789), 1 as VLANs on the underlay (provider links)"),
      std::string::npos)
      << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "ok") << p.value("reason", "");
  EXPECT_EQ(p["metrics"]["loss_pct"], 0);
  EXPECT_EQ(p["crossing"], "vlan");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // tshark's last lines
  wire->stop(5);
  std::string seen = slurp((dir_ / "wire.log").string());
  EXPECT_NE(seen.find("100\t10.0.0.1\t10.0.0.2"), std::string::npos) << seen;
  EXPECT_NE(seen.find("100\t10.0.0.2\t10.0.0.1"), std::string::npos) << seen;
  auto untagged = run_command({FLOWLAB_BINARY, "lab", "run", scenario("untagged", "type: underlay"), "--etcd",
                               etcd.endpoints(), "--out", out() + "-untagged"},
                              opts(120));
  EXPECT_EQ(untagged.exit_code, 1);
  EXPECT_NE(untagged.err.find("is `type: underlay` between machines without a `vlan:`"), std::string::npos)
      << untagged.err;
  stop_agents(agents, ma, mb, before);
}

// etcd lost mid-run: the tests that need no etcd finish, the case's record and
// the log say etcd was lost and how to take the run down, the agents keep what
// they built, and once etcd is back `lab down ID --etcd` removes it everywhere.
TEST_F(LabMachines, EtcdLostMidRunIsReportedAndTheLabKeptForLabDown) {
  testing::EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto before = namespaces();
  auto [ma, mb] = two_machines("flel");
  std::vector<Process> agents = sealed_agents(etcd.endpoints(), ma, mb, false);
  ASSERT_EQ(agents.size(), 2u);
  ASSERT_TRUE(registered({"m0", "m1"})) << agents[0].log_tail() << agents[1].log_tail();
  std::string file =
      two_host_scenario("etcd-lost", "",
                        "  - {type: ping, name: first, from: h1, to: h2, count: 30, interval: 0.1}\n"
                        "  - {type: ping, name: second, from: h1, to: h2, count: 5, interval: 0.05}\n");
  auto run = Process::spawn("lab run",
                            {FLOWLAB_BINARY, "lab", "run", file, "--etcd", etcd.endpoints(), "--out", out()},
                            opts(300), (dir_ / "run.log").string(), nullptr);
  ASSERT_TRUE(run.ok()) << run.error().message;
  std::string log;
  for (int i = 0; i < 1200; ++i) {
    log = slurp((dir_ / "run.log").string());
    if (log.find("first h1 -> h2 ...") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(log.find("first h1 -> h2 ..."), std::string::npos) << log;
  auto at = log.find(", run ");
  ASSERT_NE(at, std::string::npos);
  std::string id = log.substr(at + 6, log.find(',', at + 6) - at - 6);
  etcd.kill(0);
  run->wait_exit(120);
  log = slurp((dir_ / "run.log").string());
  json j = results();
  ASSERT_TRUE(j.is_object()) << log;
  EXPECT_EQ(j["results"][0]["status"], "ok") << log;
  EXPECT_EQ(j["results"][1]["status"], "ok") << log;
  std::string lost = j["cases"][0].value("etcd_lost", "");
  EXPECT_NE(lost.find("etcd " + etcd.endpoints() + " could not be reached"), std::string::npos) << lost;
  EXPECT_NE(lost.find("`flowlab lab down " + id + " --etcd " + etcd.endpoints() + "`"), std::string::npos)
      << lost;
  EXPECT_NE(log.find("[flowlab] etcd " + etcd.endpoints() + " could not be reached"), std::string::npos)
      << log;
  size_t kept = 0;
  for (const auto& ns : namespaces()) kept += ns.find("fl" + id + "-") == 0;
  EXPECT_EQ(kept, 4u);  // each machine's core and host namespaces stand
  etcd.restart(0);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id, "--etcd", etcd.endpoints()}, opts(90));
  EXPECT_EQ(down.exit_code, 0) << down.err;
  for (const auto& ns : namespaces()) EXPECT_NE(ns.find("fl" + id + "-"), 0u) << ns;
  stop_agents(agents, ma, mb, before);
}

}  // namespace
}  // namespace flowlab::lab

// Mininet-scale labs, as root: a 1024-host tree of Linux bridges comes up (phase
// times in the log), answers `h1 ping h1024` by name through `lab exec`, and goes
// down leaving nothing; a lab SIGKILLed in the middle of bringing up 1024 hosts
// leaves nothing after `flowlab lab clean` (namespaces, veths, bridges, processes);
// pingall of 144 hosts (past kAnnounceHosts: the hosts announce themselves first)
// reaches every one of the 20,592 ordered pairs.
// Each test has its own state dir (FLOWLAB_STATE_DIR); bounded by timeouts.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabScale : public LabDirTest {
 protected:
  LabScale() : LabDirTest("scale-test", {"ip", "ping"}, 120) {}
  static size_t namespaces_of(const std::string& run_id) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/run/netns", ec))
      n += e.path().filename().string().rfind("fl" + run_id + "-", 0) == 0;
    return n;
  }
  // The one run recorded under our state dir: its state.json.
  json run_record() const {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_ / "state", ec)) {
      std::ifstream in(e.path() / "state.json");
      if (!in) continue;
      json j = json::parse(in, nullptr, false);
      if (j.is_object()) return j;
    }
    return json();
  }
  // Processes whose command line names one of the run's namespaces.
  static size_t processes_of(const std::string& run_id) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
      std::ifstream in(e.path() / "cmdline");
      std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      n += cmd.find("fl" + run_id + "-") != std::string::npos;
    }
    return n;
  }
  // Interfaces of the lab's own namespace that look like a switch port (s1-eth1).
  static std::set<std::string> root_switch_ports() {
    std::set<std::string> out;
    auto r = run_command({"ip", "-o", "link", "show"}, with_timeout(10));
    std::istringstream in(r.out);
    std::string line;
    while (std::getline(in, line)) {
      auto a = line.find(": "), b = line.find(':', a + 2);
      if (a == std::string::npos || b == std::string::npos) continue;
      std::string name = line.substr(a + 2, b - a - 2);
      if (name.size() > 1 && name[0] == 's' && name.find("-eth") != std::string::npos) out.insert(name);
    }
    return out;
  }
};

TEST_F(LabScale, ThousandHostTreeUpExecByNameDown) {
  auto before = root_switch_ports();
  uint64_t t0 = monotonic_ns();
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", "--topo", "tree,2,32", "--switch", "linux-bridge",
                         "--controller", "none", "--out", out()},
                        opts(240));
  double up_s = double(monotonic_ns() - t0) / 1e9;
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = up.out.substr(4, up.out.find(' ', 4) - 4);
  ASSERT_EQ(id.size(), 5u) << up.out;
  EXPECT_EQ(namespaces_of(id), 1025u) << "core + 1024 hosts";
  // The phases, in the supervisor's log.
  std::ifstream log(out() + "/up.log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("] namespaces: 1025 in "), std::string::npos) << text;
  EXPECT_NE(text.find("] links: 1056 in "), std::string::npos) << text;
  EXPECT_NE(text.find("] links_up_addresses: 1056 in "), std::string::npos) << text;
  EXPECT_NE(text.find("] switches: 33 in "), std::string::npos) << text;
  // The 32 links between switches (both ends in the switch namespace) are in the
  // lab's interface group, for one batched delete at teardown; the hosts' are not.
  auto grouped =
      run_command({"ip", "-n", "fl" + id + "-0-sw", "-o", "link", "show", "group", "26220"}, opts(10));
  EXPECT_EQ(std::count(grouped.out.begin(), grouped.out.end(), '\n'), 64) << grouped.out << grouped.err;
  EXPECT_NE(grouped.out.find(": s1-eth32@"), std::string::npos) << grouped.out;  // s1's go to switches only

  auto ping = run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c1", "-W5", "h1024"}, opts(30));
  EXPECT_EQ(ping.exit_code, 0) << ping.out << ping.err;
  EXPECT_NE(ping.out.find("PING 10.0.4.0"), std::string::npos) << ping.out;
  EXPECT_NE(ping.out.find("1 received"), std::string::npos) << ping.out;
  t0 = monotonic_ns();
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(120));
  double down_s = double(monotonic_ns() - t0) / 1e9;
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  EXPECT_EQ(namespaces_of(id), 0u);
  EXPECT_EQ(processes_of(id), 0u);
  EXPECT_EQ(root_switch_ports(), before) << "nothing ever appears in the lab's own namespace";
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  std::ifstream log2(out() + "/up.log");
  text.assign((std::istreambuf_iterator<char>(log2)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("[teardown] switch_links: 32 in "), std::string::npos) << text;
  // Not a timed assertion: the figures, for the log.
  std::printf("tree,2,32 linux-bridge: up %.2f s, down %.2f s (debug build)\n", up_s, down_s);
}

TEST_F(LabScale, SigkilledDuringThousandHostBringUpLeavesNothingAfterClean) {
  auto before = root_switch_ports();
  // `lab up` forks the supervisor that builds the lab; it is the one killed.
  Process up;
  {
    auto p = Process::spawn("lab up",
                            {FLOWLAB_BINARY, "lab", "up", "--topo", "tree,2,32", "--switch", "linux-bridge",
                             "--controller", "none", "--out", out()},
                            opts(240), (dir_ / "up-parent.log").string(), nullptr);
    ASSERT_TRUE(p.ok()) << p.error().message;
    up = std::move(*p);
  }
  // Wait (bounded) until the namespaces exist and the links are being made.
  json rec;
  std::string text;
  for (int i = 0; i < 1200 && text.find("] namespaces: ") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream log(out() + "/up.log");
    text.assign((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  }
  ASSERT_NE(text.find("] namespaces: 1025 in "), std::string::npos) << text;
  rec = run_record();
  ASSERT_TRUE(rec.is_object());
  std::string id = rec.value("run_id", "");
  pid_t supervisor = rec.value("owner_pid", 0);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(kill(supervisor, SIGKILL), 0);
  for (int i = 0; i < 100 && process_start_time(supervisor) != 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(process_start_time(supervisor), 0u) << "the supervisor is dead";
  up.stop();
  // Killed mid bring-up: the lab is half there, nothing has removed it.
  EXPECT_EQ(text.find("] switches: "), std::string::npos) << "killed before the switches were up";
  EXPECT_EQ(rec["netns"].size(), 1025u);
  EXPECT_GT(namespaces_of(id), 1000u);
  auto clean = run_command({FLOWLAB_BINARY, "lab", "clean"}, opts(120));
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_NE((clean.out + clean.err).find("deleted netns fl" + id + "-0-sw"), std::string::npos)
      << clean.out << clean.err;
  EXPECT_EQ(namespaces_of(id), 0u) << "namespaces (and the veths and bridges inside them)";
  EXPECT_EQ(processes_of(id), 0u);
  EXPECT_EQ(root_switch_ports(), before) << "no veth end in the lab's own namespace";
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  std::printf("killed run %s after its namespaces phase; clean removed %zu namespaces\n", id.c_str(),
              rec["netns"].size());
}

// Past kAnnounceHosts (pingall.h) every host announces itself with a gratuitous ARP
// first, then 32 fping sources at once: every ordered pair still gets its echo
// (the matrix full, no pair silent), and the command says all hosts announced.
TEST_F(LabScale, PingallPastTheAnnouncementSizeReachesEveryPair) {
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "tree,2,12", "--switch", "linux-bridge",
                        "--controller", "none", "--test", "pingall", "--out", out()},
                       opts(600));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  ASSERT_EQ(j["results"].size(), 1u);
  const json& p = j["results"][0];
  EXPECT_EQ(p["status"], "ok") << p.value("reason", "");
  EXPECT_EQ(p["metrics"]["pairs"], 144 * 143);
  EXPECT_EQ(p["metrics"]["pairs_reached"], 144 * 143);
  std::string cmd = p.value("command", "");
  EXPECT_NE(cmd.find("144 of 144 hosts announced their addresses first"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("32 at a time"), std::string::npos) << cmd;
  size_t filled = 0;
  for (const auto& row : p["matrix"]["rtt_ms"])
    for (const auto& cell : row) filled += cell.is_number();
  EXPECT_GE(filled + p["metrics"].value("reached_on_retry", 0), size_t(144 * 143)) << "an RTT for every pair";
  EXPECT_EQ(namespaces_of(j["run_id"]), 0u) << "nothing left";
}

}  // namespace
}  // namespace flowlab::lab

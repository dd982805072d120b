// `--controller remote,ip=A,port=P` end to end, as root: controllers the test starts
// on the loopback of its own namespace (outside the lab), reached by the lab's
// switches through the relay. An os-ken learning switch carries pingall; two remote
// controllers both get the switch; one that does not listen stops the run with a
// message naming it and leaves nothing behind.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "coord/loopback_port.h"
#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LabRemoteController : public LabDirTest {
 protected:
  LabRemoteController() : LabDirTest("remote-ctl", {"ip", "ping"}, 60) {}

  // Waits until something listens on 127.0.0.1:port (a TCP connect succeeds).
  static bool listening(int port, double timeout_s) {
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < end) {
      auto r =
          run_command({"bash", "-c", fmt::format("exec 3<>/dev/tcp/127.0.0.1/{}", port)}, with_timeout(3));
      if (r.exit_code == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  // flowlab's controller with the learning switch on 127.0.0.1:port, outside the lab.
  Result<Process> flowlab_controller(int port, const std::string& log) {
    return Process::spawn("controller",
                          {FLOWLAB_BINARY, "controller", "--listen", fmt::format("ptcp:{}:127.0.0.1", port),
                           "--app", "learning-switch"},
                          with_timeout(10), log, nullptr);
  }
};

TEST_F(LabRemoteController, OsKenStartedOutsideTheLabCarriesPingall) {
  if (!have_program("/usr/bin/osken-manager")) GTEST_SKIP() << "needs python3-os-ken";
  int port = coord::free_loopback_port();
  ASSERT_GT(port, 0);
  std::string log = (dir_ / "osken.log").string();
  CommandOptions o = with_timeout(10);
  o.env = {{"PATH", "/usr/bin:/bin:/usr/sbin:/sbin"}};  // Debian's python has os_ken
  auto osken = Process::spawn(
      "os-ken",
      {"/usr/bin/osken-manager", "--verbose", "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port",
       std::to_string(port), std::string(FLOWLAB_SHARED_DIR) + "/peers/learning_switch_13.py"},
      o, log, nullptr);
  ASSERT_TRUE(osken.ok()) << osken.error().message;
  ASSERT_TRUE(listening(port, 30)) << slurp(log);
  auto r =
      run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "linear,2", "--switch", "flowlab", "--controller",
                   fmt::format("remote,ip=127.0.0.1,port={}", port), "--test", "pingall", "--out", out()},
                  opts(240));
  osken->stop();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object()) << r.err;
  ASSERT_EQ(j["results"].size(), 1u);
  EXPECT_EQ(j["results"][0]["status"], "ok") << j["results"][0].value("reason", "");
  EXPECT_EQ(j["results"][0]["metrics"]["pairs_reached"], 2);
  // The flowlab switches are fail-secure: every frame crossed because os-ken's
  // learning switch, reached through the relay, installed the flows.
  // Two OpenFlow sessions (s1, s2) went through the handshake to main mode; the
  // lab's own first connection (does it answer?) is the only other one.
  std::string os = slurp(log);
  size_t sessions = 0;
  for (size_t p = 0; (p = os.find("move onto main mode", p)) != std::string::npos; ++p) ++sessions;
  EXPECT_EQ(sessions, 2u) << os;
  std::string relay = slurp(out() + "/default/c0-relay.log");
  EXPECT_NE(relay.find(fmt::format("-> 127.0.0.1:{}", port)), std::string::npos) << relay;
  EXPECT_NE(relay.find("connection 2: switch"), std::string::npos) << relay;
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabRemoteController, TwoRemoteControllersBothGetTheSwitch) {
  int p1 = coord::free_loopback_port(), p2 = coord::free_loopback_port();
  ASSERT_TRUE(p1 > 0 && p2 > 0 && p1 != p2);
  std::string log1 = (dir_ / "c1.log").string(), log2 = (dir_ / "c2.log").string();
  auto c1 = flowlab_controller(p1, log1);
  auto c2 = flowlab_controller(p2, log2);
  ASSERT_TRUE(c1.ok() && c2.ok());
  ASSERT_TRUE(listening(p1, 30) && listening(p2, 30));
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "single,2", "--switch", "flowlab",
                        "--controller", fmt::format("remote,port={}", p1), "--controller",
                        fmt::format("remote,ip=127.0.0.1:{}", p2), "--test", "pingall", "--out", out()},
                       opts(240));
  c1->stop();
  c2->stop();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const auto& l : {log1, log2}) {
    std::string text = slurp(l);
    EXPECT_NE(text.find("switch up: dpid 0000000000000001"), std::string::npos) << l << ":\n" << text;
  }
  json j = results();
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["results"][0]["status"], "ok") << j["results"][0].value("reason", "");
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabRemoteController, NotListeningStopsTheRunWithItsAddressAndLeavesNothing) {
  int port = coord::free_loopback_port();  // free: nothing listens there
  ASSERT_GT(port, 0);
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", "--topo", "single,2", "--controller",
                        fmt::format("remote,port={}", port), "--out", out()},
                       opts(120));
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find(
                fmt::format("remote controller c0 does not answer (127.0.0.1:{}: Connection refused)", port)),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("start it first"), std::string::npos) << r.err;
  json j = results();
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["cases"][0]["status"], "failed");
  EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "the run's namespaces and processes are gone";
  // No namespace of the run is left (other runs' come and go meanwhile: only the
  // names this run's out dir recorded are checked).
  auto after = run_command({"ip", "netns", "list"}, with_timeout(10));
  std::string id = j["run_id"].is_string() ? j["run_id"].get<std::string>() : j["run_id"].dump();
  EXPECT_EQ(after.out.find("fl" + id + "-"), std::string::npos) << after.out;
}

}  // namespace
}  // namespace flowlab::lab

// flowlab cbench against real controllers: flowlab's own (learning-switch) and
// os-ken's learning switch, for OpenFlow 1.3 and 1.0, plus the error paths
// (absent controller, a controller that never completes the handshake).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "child_process.h"
#include "switch_topology.h"

using flowlab::interop::Child;
using flowlab::interop::run_shell;
using flowlab::switch_interop::free_tcp_port;

namespace {

std::string cbench_cmd(uint16_t port, const std::string& extra) {
  return std::string("timeout 60 ") + FLOWLAB_BINARY +
         " cbench --controller tcp:127.0.0.1:" + std::to_string(port) + " " + extra;
}

nlohmann::json parse_json(const std::string& out) {
  auto start = out.find('{');
  if (start == std::string::npos) return {};
  return nlohmann::json::parse(out.substr(start), nullptr, false);
}

void expect_answers(const nlohmann::json& j, int switches, bool every_switch = true) {
  ASSERT_TRUE(j.is_object());
  const auto& s = j["summary"];
  EXPECT_GT(s["avg"].get<double>(), 0.0);
  uint64_t answers = s["flow_mods"].get<uint64_t>() + s["packet_outs"].get<uint64_t>();
  // Answers counted in a measured loop may belong to packet-ins sent during
  // the warm-up loop (throughput mode keeps a backlog queued), so the bound
  // uses every packet-in sent in the run, warm-up included.
  uint64_t pins = 0;
  for (const auto& loop : j["loops"]) pins += loop["packet_ins"].get<uint64_t>();
  EXPECT_GE(pins, s["packet_ins"].get<uint64_t>());
  EXPECT_GT(answers, 0u);
  // A learning switch answers each packet-in once it knows the destination
  // (buffered packet-in -> one flow-mod); never more than a few per packet-in.
  EXPECT_LE(answers, pins * 2 + uint64_t(switches) * 4);
  if (every_switch) {
    EXPECT_TRUE(j["silent_switches"].empty()) << j.dump();
  }
}

TEST(Cbench, AbsentControllerIsAClearError) {
  uint16_t port = free_tcp_port();
  auto r = run_shell(cbench_cmd(port, "--loops 1 --ms 100"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("cannot connect to tcp:127.0.0.1:" + std::to_string(port)), std::string::npos)
      << r.out;
}

TEST(Cbench, SilentControllerStopsAtTheTimeBound) {
  // A listener that accepts and never speaks OpenFlow.
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  uint16_t port = ntohs(a.sin_port);
  auto t0 = std::chrono::steady_clock::now();
  auto r = run_shell(cbench_cmd(port, "--switches 3 --loops 1 --ms 100 --handshake-timeout 1000"));
  auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(fd);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("never completed the handshake"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches 1,2,3"), std::string::npos) << r.out;
  EXPECT_LT(secs, 30.0);
}

TEST(Cbench, BadOptionsExitWithUsageError) {
  EXPECT_EQ(run_shell(std::string(FLOWLAB_BINARY) + " cbench --controller 127.0.0.1:6653").exit_code, 2);
  EXPECT_EQ(run_shell(std::string(FLOWLAB_BINARY) + " cbench --switches 0").exit_code, 2);
  EXPECT_EQ(run_shell(std::string(FLOWLAB_BINARY) + " cbench --protocol OpenFlow15").exit_code, 2);
}

class CbenchAgainst : public ::testing::TestWithParam<std::string> {};

void run_against_flowlab(const std::string& protocol, bool throughput) {
  uint16_t port = free_tcp_port();
  std::string log = "/tmp/flowlab-cbench-ctl-" + std::to_string(getpid()) + ".log";
  Child ctl(
      {FLOWLAB_BINARY, "controller", "--listen", "ptcp:" + std::to_string(port), "--app", "learning-switch"},
      log);
  ASSERT_TRUE(ctl.wait_listening(port, 10)) << "flowlab controller did not start, see " << log;
  auto r =
      run_shell(cbench_cmd(port, "--switches 4 --macs 1000 --loops 2 --ms 500 --warmup 1 --json --protocol " +
                                     protocol + (throughput ? " --throughput" : "")));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // Latency mode: every switch gets answers. Throughput mode floods the
  // controller, and a slow (sanitizer) build may still be working through one
  // switch's backlog when a short loop ends, so only the total is checked.
  expect_answers(parse_json(r.out), 4, !throughput);
  std::remove(log.c_str());
}

TEST(Cbench, FlowlabLearningSwitchOpenFlow13Latency) { run_against_flowlab("OpenFlow13", false); }
TEST(Cbench, FlowlabLearningSwitchOpenFlow10Latency) { run_against_flowlab("OpenFlow10", false); }
TEST(Cbench, FlowlabLearningSwitchOpenFlow13Throughput) { run_against_flowlab("OpenFlow13", true); }

TEST(Cbench, OsKenLearningSwitch13) {
  const std::string manager = "/usr/bin/osken-manager";
  if (access(manager.c_str(), X_OK) != 0) GTEST_SKIP() << "os-ken (python3-os-ken) is not installed";
  uint16_t port = free_tcp_port();
  std::string log = "/tmp/flowlab-cbench-osken-" + std::to_string(getpid()) + ".log";
  Child ctl({"/usr/bin/python3", manager, "--ofp-listen-host", "127.0.0.1", "--ofp-tcp-listen-port",
             std::to_string(port), std::string(FLOWLAB_SHARED_DIR) + "/peers/learning_switch_13.py"},
            log);
  ASSERT_TRUE(ctl.wait_listening(port, 30)) << "os-ken did not start, see " << log;
  auto r = run_shell(cbench_cmd(port, "--switches 2 --macs 100 --loops 1 --ms 500 --warmup 1 --json"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  expect_answers(parse_json(r.out), 2);
  std::remove(log.c_str());
}

}  // namespace

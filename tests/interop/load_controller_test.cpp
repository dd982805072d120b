// Controller load (issue #14): 1,000 emulated switches (flowlab cbench)
// connected to `flowlab controller --app learning-switch`. In latency mode
// every one of them is answered; in throughput mode they flood packet-ins
// while the controller runs a keepalive of 0.5 s and declares a switch dead
// after 2 s of silence, and no switch is declared dead (no "peer dead" in the
// controller's log, no switch down before cbench closes them). Bounded: two
// cbench runs of a few seconds each.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "child_process.h"
#include "switch_topology.h"

using flowlab::interop::Child;
using flowlab::interop::run_shell;
using flowlab::switch_interop::free_tcp_port;

namespace {

nlohmann::json parse_json(const std::string& out) {
  auto start = out.find('{');
  if (start == std::string::npos) return {};
  return nlohmann::json::parse(out.substr(start), nullptr, false);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

constexpr int kSwitches = 1000;

TEST(ControllerLoad, ThousandSwitchesAllAnsweredAndNoDeadPeerUnderFlood) {
  uint16_t port = free_tcp_port();
  std::string log = "/tmp/flowlab-load-ctl-" + std::to_string(getpid()) + ".log";
  {
    Child ctl({FLOWLAB_BINARY, "controller", "--listen", "ptcp:" + std::to_string(port), "--app",
               "learning-switch", "--echo-interval", "0.5", "--dead-peer", "2", "--log-level", "info"},
              log);
    ASSERT_TRUE(ctl.wait_listening(port, 10)) << "flowlab controller did not start, see " << log;
    std::string base = "timeout 120 " + std::string(FLOWLAB_BINARY) +
                       " cbench --controller tcp:127.0.0.1:" + std::to_string(port) + " --switches " +
                       std::to_string(kSwitches) +
                       " --macs 100 --connect-timeout 10000 --handshake-timeout 20000 --json";
    // Latency mode: one packet-in in flight per switch; every switch answered.
    auto lat = run_shell(base + " --loops 2 --ms 1500 --warmup 1");
    ASSERT_EQ(lat.exit_code, 0) << lat.out.substr(0, 2000);
    auto lj = parse_json(lat.out);
    ASSERT_TRUE(lj.is_object()) << lat.out.substr(0, 2000);
    EXPECT_TRUE(lj["silent_switches"].empty()) << lj["silent_switches"].dump();
    EXPECT_GT(lj["summary"]["flow_mods"].get<uint64_t>() + lj["summary"]["packet_outs"].get<uint64_t>(),
              uint64_t(kSwitches));
    // Throughput mode: every switch keeps its send buffer full for 5 s, ten
    // keepalive intervals, more than twice the dead-peer timeout (5 loops: the
    // debug controller, buried under the first seconds of the flood, may
    // answer nothing in a loop, and cbench fails when no loop got an answer).
    // Not asserted
    // here: that every switch is answered in each 1 s loop. This debug + ASan
    // controller needs ~46 us a packet-in, so one turn over 1,000 switches
    // with 64 KB of packet-ins each takes ~28 s; the release build answers all
    // of them in every loop (docs/performance/controller.md, "1,000 switches").
    auto thr = run_shell(base + " --throughput --loops 5 --ms 1000 --warmup 0");
    ASSERT_EQ(thr.exit_code, 0) << thr.out.substr(0, 2000);
    auto tj = parse_json(thr.out);
    ASSERT_TRUE(tj.is_object()) << thr.out.substr(0, 2000);
    EXPECT_GT(tj["summary"]["avg"].get<double>(), 0.0);
    std::printf(
        "1000 switches: latency mode %.0f responses/s (median %.0f us, p99 %.0f us), throughput mode %.0f "
        "responses/s\n",
        lj["summary"]["avg"].get<double>(), lj["latency_us"].value("median", 0.0),
        lj["latency_us"].value("p99", 0.0), tj["summary"]["avg"].get<double>());
  }
  std::string text = slurp(log);
  EXPECT_EQ(count_of(text, "peer dead"), 0u) << "a switch was declared dead under load, see " << log;
  // Each emulated switch came up once per run (no reconnect in between).
  EXPECT_EQ(count_of(text, "switch up:"), size_t(2 * kSwitches)) << "see " << log;
  if (!HasFailure()) std::remove(log.c_str());
}

}  // namespace

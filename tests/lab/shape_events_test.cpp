// Shaped links, events and the probe, end to end as root in namespaces: a shaped
// link measured (RTT, rate, loss), a link-down event on a single switch with the
// probe measuring the outage and the recovery, and a controller killed and started
// again under a fail-secure switch. Each test has its own state dir; nothing of a
// run (namespaces, processes) may remain after it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ShapeRun : public LabDirTest {
 protected:
  ShapeRun() : LabDirTest("shape-test", {"ip", "tc", "iperf3", "ping"}) {}
  // Runs the scenario; returns results.json (null when none was written).
  json run(const std::string& yaml, CommandResult* res = nullptr) {
    auto file = dir_ / "s.yaml";
    std::ofstream(file) << yaml;
    out_ = (dir_ / "out").string();
    auto r = run_command({FLOWLAB_BINARY, "lab", "run", file.string(), "--out", out_}, opts(240));
    if (res) *res = r;
    EXPECT_TRUE(r.ok()) << r.describe() << "\n"
                        << r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0);
    std::ifstream in(out_ + "/results.json");
    if (!in) return json();
    json j = json::parse(in);
    // Nothing of the run remains: namespaces and processes are gone.
    std::string id = j.value("run_id", "");
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/run/netns", ec))
      EXPECT_NE(e.path().filename().string().rfind("fl" + id + "-", 0), 0u) << "left behind: " << e.path();
    auto ps = run_command({"pgrep", "-f", "delay-line|probe-recv|probe-send"}, with_timeout(5));
    std::istringstream pids(ps.out);
    for (std::string pid; std::getline(pids, pid);) {
      auto cmd = run_command({"ps", "-o", "args=", "-p", pid}, with_timeout(5));
      EXPECT_EQ(cmd.out.find(out_), std::string::npos) << "process left behind: " << cmd.out;
    }
    return j;
  }
  static const json& result(const json& doc, const std::string& test) {
    for (const auto& r : doc["results"])
      if (r["test"] == test) return r;
    static json none;
    ADD_FAILURE() << "no result for " << test;
    return none;
  }

  std::string out_;
};

constexpr const char* kHosts = R"(
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
)";

TEST_F(ShapeRun, ShapedLinkHoldsDelayRateAndLoss) {
  json doc = run(std::string("name: shape\n") + kHosts + R"(
switches:
  s1: {kind: linux-bridge}
links:
  - endpoints: [h1:eth0, s1:p1]
    bw: 50M
    delay: 10ms
    b_to_a: {loss: 10%}
  - endpoints: [h2:eth0, s1:p2]
tests:
  - {type: ping, from: h1, to: h2, count: 20, interval: 0.05}
  - {type: iperf3-udp, from: h1, to: h2, duration: 2, rate: 200M, size: 1200}
  - {type: probe, from: h2, to: h1, duration: 2, interval: 1ms}
)");
  ASSERT_TRUE(doc.is_object());
  const json& ping = result(doc, "ping");
  ASSERT_EQ(ping["status"], "ok") << ping.dump();
  // The delay line never delivers early: every RTT is at least 2 x 10 ms.
  EXPECT_GE(ping["metrics"]["rtt_min_ms"].get<double>(), 20.0);
  EXPECT_LT(ping["metrics"]["rtt_avg_ms"].get<double>(), 60.0);
  const json& udp = result(doc, "iperf3-udp");
  ASSERT_EQ(udp["status"], "ok") << udp.dump();
  double gbps = udp["metrics"]["gbps"].get<double>();
  EXPECT_LE(gbps, 0.050 * 1.05);  // HTB holds 200 Mbit/s offered to 50
  EXPECT_GE(gbps, 0.050 * 0.5);
  // Loss only h1 <- s1 (b_to_a): the probe h2 -> h1 sees about 10% of 2000.
  const json& probe = result(doc, "probe");
  ASSERT_EQ(probe["status"], "ok") << probe.dump();
  EXPECT_EQ(probe["metrics"]["sent"], 2000);
  double loss = probe["metrics"]["loss_pct"].get<double>();
  EXPECT_GT(loss, 6.0);  // +-6 sd of a binomial(2000, 0.1)
  EXPECT_LT(loss, 14.0);
  const json& link = doc["cases"][0]["links"][0];
  EXPECT_EQ(link["link"], "h1:eth0-s1:p1");
  EXPECT_EQ(link["a_to_b"]["mechanisms"], json({"htb", "flowlab-delay-line"}));
  EXPECT_EQ(link["b_to_a"]["mechanisms"], json({"htb", "flowlab-delay-line", "flowlab-bpf-loss"}));
  EXPECT_EQ(link["forwarder"], "flowlab-delay-line");
  EXPECT_GT(link["delay_line"][0]["a_to_b"]["frames"].get<int>(), 1000);
}

TEST_F(ShapeRun, LinkDownEventOutageAndRecoveryMeasured) {
  json doc = run(std::string("name: linkdown\n") + kHosts + R"(
switches:
  s1: {kind: linux-bridge}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
events:
  - {at: 1s, link: [h2, s1], do: down}
  - {at: 2s, link: [h2, s1], do: up}
tests:
  - {type: probe, from: h1, to: h2, duration: 3, interval: 1ms}
  - {type: ping, from: h1, to: h2, count: 3, interval: 0.05}
)");
  ASSERT_TRUE(doc.is_object());
  const json& r = result(doc, "probe");
  ASSERT_EQ(r["status"], "ok") << r.dump();
  const json& ev = r["probe"]["events"];
  ASSERT_EQ(ev.size(), 2u) << r["probe"].dump();
  const json& down = ev[0];
  EXPECT_EQ(down["do"], "down");
  EXPECT_GE(down["first_lost_seq"].get<int>(), 995);  // the link goes down at ~1 s
  EXPECT_LE(down["first_lost_seq"].get<int>(), 1300);
  EXPECT_GE(down["lost"].get<int>(), 700);  // about a second of packets
  EXPECT_LE(down["lost"].get<int>(), 1500);
  EXPECT_TRUE(down["recovered"].get<bool>());
  EXPECT_GT(down["recovery_s"].get<double>(), 1.0);
  EXPECT_GT(down["first_delivered_seq"].get<int>(), 2000);
  const json& up = ev[1];
  EXPECT_EQ(up["do"], "up");
  EXPECT_TRUE(up["recovered"].get<bool>());
  EXPECT_LT(up["recovery_s"].get<double>(), 0.9);
  EXPECT_GT(r["metrics"]["lost"].get<int>(), 700);
  // The timeline chart is drawn, in the report and beside it.
  EXPECT_TRUE(fs::exists(out_ + "/default/probe-timeline.svg"));
  std::ifstream html(out_ + "/report.html");
  std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(page.find("<polyline"), std::string::npos);
  EXPECT_NE(page.find("h2-s1 down"), std::string::npos);
  // After the events the link is back: the next test passes.
  EXPECT_EQ(result(doc, "ping")["status"], "ok");
}

TEST_F(ShapeRun, ControllerKillAndStartUnderFailSecure) {
  json doc = run(std::string("name: failsecure\n") + kHosts + R"(
switches:
  s1: {kind: flowlab, controller: c1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
events:
  - {at: 1s, node: c1, do: kill}
  - {at: 2s, node: c1, do: start}
tests:
  - {type: probe, from: h1, to: h2, duration: 3, interval: 1ms}
)");
  ASSERT_TRUE(doc.is_object());
  const json& r = result(doc, "probe");
  ASSERT_EQ(r["status"], "ok") << r.dump();
  const json& tl = r["probe"]["timeline"];
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0]["status"], "ok") << tl.dump();
  EXPECT_EQ(tl[1]["status"], "ok") << tl.dump();
  const json& kill = r["probe"]["events"][0];
  EXPECT_EQ(kill["lost_in_window"], 0) << kill.dump();
  bool named = false;
  for (const auto& e : r["explain"])
    named |= e.get<std::string>().find(
                 "s1 (flowlab, fail-secure) kept forwarding on its flows while c1 was down "
                 "(fail-secure)") != std::string::npos;
  EXPECT_TRUE(named) << r["explain"].dump();
  EXPECT_LT(r["metrics"]["loss_pct"].get<double>(), 1.0);
  // The restarted controller lived to the end of the case, and the switch came back to it.
  std::ifstream log(out_ + "/default/c1-controller.log");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  size_t ups = 0;
  for (size_t p = text.find("switch up"); p != std::string::npos; p = text.find("switch up", p + 1)) ++ups;
  EXPECT_GE(ups, 2u) << text;
  EXPECT_NE(text.rfind("SIGTERM: shutting down"), std::string::npos) << text;
  EXPECT_TRUE(doc["cases"][0]["controller_stats"]["c1"].is_object());
}

TEST_F(ShapeRun, SwitchKillStopsTrafficUntilItIsStartedAgain) {
  json doc = run(std::string("name: swkill\n") + kHosts + R"(
switches:
  s1: {kind: flowlab, controller: c1}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
events:
  - {at: 1s, node: s1, do: kill}
  - {at: 2s, node: s1, do: start}
tests:
  - {type: probe, from: h1, to: h2, duration: 5, interval: 1ms}
  - {type: ping, from: h1, to: h2, count: 3, interval: 0.05}
)");
  ASSERT_TRUE(doc.is_object());
  const json& r = result(doc, "probe");
  ASSERT_EQ(r["status"], "ok") << r.dump();
  const json& kill = r["probe"]["events"][0];
  EXPECT_EQ(kill["do"], "kill");
  EXPECT_GE(kill["first_lost_seq"].get<int>(), 995);
  EXPECT_LE(kill["first_lost_seq"].get<int>(), 1300);
  EXPECT_TRUE(kill["recovered"].get<bool>()) << kill.dump();
  EXPECT_GT(kill["recovery_s"].get<double>(), 1.0);  // nothing forwards until the start
  const json& start = r["probe"]["events"][1];
  EXPECT_EQ(start["do"], "start");
  EXPECT_TRUE(start["recovered"].get<bool>());
  EXPECT_EQ(result(doc, "ping")["status"], "ok");
}

}  // namespace
}  // namespace flowlab::lab

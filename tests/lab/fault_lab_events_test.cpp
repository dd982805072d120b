// Lab events outside the probe and on Open vSwitch (issue #14, faults), as root
// through `flowlab lab run`: the controller killed and started again during an
// iperf3 TCP test that carries `events: true` (the test passes, the record
// holds the timeline and the marks at their fire times), and an OVS switch
// killed and started during a probe (its ovs-vswitchd: the outage is measured,
// traffic resumes, the network is whole for the next test). Bad input keeps its
// rules: an event past such a test's duration is one error line, exit 2.
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

class FaultLabEvents : public LabDirTest {
 protected:
  FaultLabEvents() : LabDirTest("fault-lab", {"ip", "iperf3", "ping"}) {}
  CommandResult lab(const std::string& verb, const std::string& yaml) {
    auto file = dir_ / "s.yaml";
    std::ofstream(file) << yaml;
    out_ = (dir_ / "out").string();
    std::vector<std::string> argv = {FLOWLAB_BINARY, "lab", verb, file.string()};
    if (verb == "run") argv.insert(argv.end(), {"--out", out_});
    return run_command(argv, opts(240));
  }
  json results() const {
    std::ifstream in(out_ + "/results.json");
    return in ? json::parse(in) : json();
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

constexpr const char* kNet = R"(
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
controllers:
  c1: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
)";

TEST_F(FaultLabEvents, ControllerKillDuringAnIperfWithEventsTrue) {
  auto r = lab("run", std::string("name: iperfkill\n") + kNet + R"(
switches:
  s1: {kind: flowlab, controller: c1}
events:
  - {at: 1s, node: c1, do: kill}
  - {at: 2s, node: c1, do: start}
tests:
  - {type: iperf3-tcp, from: h1, to: h2, duration: 3, events: true}
  - {type: ping, from: h1, to: h2, count: 3, interval: 0.1}
)");
  ASSERT_TRUE(r.ok()) << r.describe() << r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0);
  json doc = results();
  const json& tcp = result(doc, "iperf3-tcp");
  ASSERT_EQ(tcp["status"], "ok") << tcp.dump().substr(0, 3000);
  // Fail-secure: the stream kept its flows through the kill.
  EXPECT_GT(tcp["metrics"]["gbps"].get<double>(), 0.0);
  const json& tl = tcp["timeline"];
  ASSERT_EQ(tl.size(), 2u) << tcp.dump().substr(0, 3000);
  EXPECT_EQ(tl[0]["do"], "kill");
  EXPECT_EQ(tl[0]["status"], "ok") << tl.dump();
  EXPECT_EQ(tl[1]["status"], "ok") << tl.dump();
  EXPECT_NEAR(tl[0]["fired_at_s"].get<double>(), 1.0, 0.3);
  ASSERT_EQ(tcp["events"].size(), 2u);
  EXPECT_EQ(tcp["events"][1]["label"], "2s start c1");
  // The ping after it runs no events (only probes do by default) and passes.
  const json& ping = result(doc, "ping");
  EXPECT_EQ(ping["status"], "ok");
  EXPECT_FALSE(ping.contains("timeline"));
}

TEST_F(FaultLabEvents, OvsSwitchKillAndStartDuringAProbe) {
  if (!have_program("ovs-vswitchd")) GTEST_SKIP() << "needs openvswitch-switch";
  auto r = lab("run", std::string("name: ovskill\n") + kNet + R"(
switches:
  s1: {kind: ovs, controller: c1}
events:
  - {at: 1s, node: s1, do: kill}
  - {at: 2s, node: s1, do: start}
cases:
  - {name: ovs, offloads: off}
tests:
  - {type: probe, from: h1, to: h2, duration: 5, interval: 1ms}
  - {type: ping, from: h1, to: h2, count: 3, interval: 0.1}
)");
  ASSERT_TRUE(r.ok()) << r.describe() << r.err.substr(r.err.size() > 3000 ? r.err.size() - 3000 : 0);
  json doc = results();
  const json& p = result(doc, "probe");
  ASSERT_EQ(p["status"], "ok") << p.dump().substr(0, 3000);
  const json& kill = p["probe"]["events"][0];
  EXPECT_EQ(kill["do"], "kill");
  EXPECT_GE(kill["first_lost_seq"].get<int>(), 990) << kill.dump();
  EXPECT_GT(kill["lost"].get<int>(), 700) << kill.dump();  // nothing forwards without vswitchd
  EXPECT_TRUE(kill["recovered"].get<bool>()) << kill.dump();
  EXPECT_TRUE(p["probe"]["events"][1]["recovered"].get<bool>());
  EXPECT_EQ(result(doc, "ping")["status"], "ok");
  // Two vswitchd lifetimes in its log, the second started on the same database.
  std::ifstream log(out_ + "/ovs/ovs-vswitchd.log");
  std::string text((std::istreambuf_iterator<char>(log)), {});
  size_t starts = 0;
  for (size_t q = text.find("ovs-vswitchd (Open vSwitch)"); q != std::string::npos;
       q = text.find("ovs-vswitchd (Open vSwitch)", q + 1))
    ++starts;
  EXPECT_GE(starts, 2u) << text.substr(0, 2000);
}

TEST_F(FaultLabEvents, EventPastTheIperfIsOneErrorLine) {
  auto r = lab("validate", std::string("name: bad\n") + kNet + R"(
switches:
  s1: {kind: flowlab, controller: c1}
events:
  - {at: 5s, node: c1, do: kill}
tests:
  - {type: iperf3-tcp, from: h1, to: h2, duration: 3, events: true}
)");
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_NE(r.err.find("s.yaml:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("key 'at': event at 5 s is past the iperf3-tcp test's duration (3 s)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace flowlab::lab

// Shaping between machines, as root, on two emulated machines (`--machines 2`):
// a shaped link whose ends land on two machines is shaped in halves, each
// machine the direction that leaves it at its own end of the tunnel, so rate and
// delay hold in both directions, each with its own rate; and a `set` event on
// that link is fired by both machines' agents during a probe and undone after
// it; a case's controller_link holds for the switches of every machine. Nothing
// of a run is left (namespaces, state).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/host/process.h"
#include "machines_fixture.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json result(const json& doc, const std::string& test) {
  for (const auto& r : doc["results"])
    if (r["test"] == test) return r;
  ADD_FAILURE() << "no result for " << test;
  return json::object();
}

class LabMachinesShape : public LabMachines {
 protected:
  // `lab run FILE --machines 2`: its results.json (null when none), once the run
  // is checked to have passed and left no namespace and no state behind.
  // (Only the run's own namespaces are looked at: other tests may run beside it.)
  json run_on_two(const std::string& file) {
    auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--machines", "2", "--out", out()}, opts(300));
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(fs::is_empty(dir_ / "state"));
    json j = results();
    EXPECT_TRUE(j.is_object()) << r.err;
    std::string id = j.is_object() ? j.value("run_id", "") : "";
    EXPECT_FALSE(id.empty());
    for (const auto& ns : namespaces()) EXPECT_NE(ns.rfind("fl" + id + "-", 0), 0u) << "left behind: " << ns;
    return j;
  }
};

// s1 (m0) - s2 (m1): 10 ms each way, 50 Mbit/s from m0, 20 Mbit/s from m1.
// Bounds as the single-machine shaping test's: HTB never lets more through
// than its rate (+5 %), and a loaded box still gets half of it; the delay line
// never delivers early.
TEST_F(LabMachinesShape, ShapedLinkBetweenMachinesHoldsRateAndDelayEachWay) {
  std::string file = two_host_scenario(
      "shaped-across", "delay: 10ms, a_to_b: {bw: 50M}, b_to_a: {bw: 20M}",
      "  - {type: ping, name: rtt, from: h1, to: h2, count: 20, interval: 0.05}\n"
      "  - {type: iperf3-udp, name: out-of-m0, from: h1, to: h2, duration: 2, rate: 200M, size: 1200}\n"
      "  - {type: iperf3-udp, name: out-of-m1, from: h2, to: h1, duration: 2, rate: 200M, size: 1200}\n");
  json j = run_on_two(file);
  ASSERT_TRUE(j.is_object());
  json ping = result(j, "rtt");
  ASSERT_EQ(ping["status"], "ok") << ping.dump();
  EXPECT_EQ(ping["machine"], "m0->m1");
  EXPECT_GE(ping["metrics"]["rtt_min_ms"].get<double>(), 20.0) << ping.dump();  // 10 ms on each machine
  EXPECT_LT(ping["metrics"]["rtt_avg_ms"].get<double>(), 60.0) << ping.dump();
  for (auto [name, rate] : {std::pair{"out-of-m0", 0.050}, std::pair{"out-of-m1", 0.020}}) {
    json udp = result(j, name);
    ASSERT_EQ(udp["status"], "ok") << udp.dump();
    double gbps = udp["metrics"]["gbps"].get<double>();
    EXPECT_LE(gbps, rate * 1.05) << name << ": " << udp.dump();
    EXPECT_GE(gbps, rate * 0.5) << name << ": " << udp.dump();
  }
  // Each machine's half in the record, in the link's own directions.
  const json& links = j["cases"][0]["links"];
  ASSERT_EQ(links.size(), 2u) << links.dump();
  for (json l : links) {
    EXPECT_EQ(l["link"], "s1:p2-s2:p1") << l.dump();
    bool m0 = l["machine"] == "m0";
    std::string dir = m0 ? "a_to_b" : "b_to_a";
    EXPECT_EQ(l["shaped_here"], dir) << l.dump();
    EXPECT_EQ(l[dir]["shape"]["bw_bps"], m0 ? 50'000'000 : 20'000'000) << l.dump();
    EXPECT_EQ(l[dir]["mechanisms"], json({"htb", "flowlab-delay-line"})) << l.dump();
    // Its delay line's counters, final at the end of the tests, in the link's
    // directions: the UDP test leaving this machine (~5,000 frames at 20 Mbit/s).
    ASSERT_TRUE(l.contains("delay_line")) << l.dump();
    EXPECT_GT(l["delay_line"][0][dir]["frames"].get<int>(), 1000) << l.dump();
  }
  // Each agent built a wire of its own for the link's half.
  for (const char* m : {"m0", "m1"}) {
    std::string log = slurp(out() + "/machines/agent-" + std::string(m) + ".log");
    EXPECT_NE(log.find("1 tunnel(s), 1 shaped half(s), inner MTU 1450"), std::string::npos) << log;
  }
}

// `set: {delay: 30ms}` on the link between the machines (1 ms each way as
// declared, so each machine's delay line runs from the start and the set only
// changes its delay) 5 s into a probe (a loaded box may start its sender
// seconds late): both agents re-shape their halves (each
// its way out); the probe's one-way delay goes from under 5 ms to 30 ms and
// more; the ping after the probe, with the events undone, is back under the
// 60 ms the set delay would give it.
TEST_F(LabMachinesShape, SetEventBetweenMachinesReshapesBothHalvesAndIsUndone) {
  std::string file =
      two_host_scenario("set-across", "delay: 1ms",
                        "  - {type: ping, name: before, from: h1, to: h2, count: 5, interval: 0.1}\n"
                        "  - {type: probe, name: across, from: h1, to: h2, duration: 8, interval: 10ms}\n"
                        "  - {type: ping, name: after, from: h1, to: h2, count: 10, interval: 0.05}\n"
                        "events:\n"
                        "  - {at: 5s, link: [s1, s2], set: {delay: 30ms}}\n");
  json j = run_on_two(file);
  ASSERT_TRUE(j.is_object());
  json p = result(j, "across");
  ASSERT_EQ(p["status"], "ok") << p.dump();
  json tl = p["probe"]["timeline"];
  ASSERT_EQ(tl.size(), 1u) << tl.dump();
  EXPECT_EQ(tl[0]["status"], "ok") << tl.dump();
  EXPECT_GE(p["metrics"]["owd_min_ms"].get<double>(), 1.0) << p["metrics"].dump();
  EXPECT_LT(p["metrics"]["owd_min_ms"].get<double>(), 5.0) << p["metrics"].dump();
  EXPECT_GE(p["metrics"]["owd_max_ms"].get<double>(), 30.0) << p["metrics"].dump();
  EXPECT_GT(p["metrics"].value("delivered", 0), p["metrics"].value("sent", 0) / 2) << p["metrics"].dump();
  json after = result(j, "after");
  ASSERT_EQ(after["status"], "ok") << after.dump();
  EXPECT_LT(after["metrics"]["rtt_max_ms"].get<double>(), 40.0) << after.dump();
}

// A controller far away across machines: the hub controller on m0 behind its
// 5 ms controller_link, s1 on m0 and s2 on m1 both reaching it through that
// link (s2 over the control segment, routed by m0's core namespace). Every
// packet crosses the controller at each switch, so each of the ping's two ways
// pays 2 switches x 2 crossings x 5 ms: an RTT of at least 40 ms, which s1
// alone (20 ms) could not make.
TEST_F(LabMachinesShape, ControllerLinkAcrossMachinesDelaysEverySwitchsChannel) {
  std::string file = two_host_scenario(
      "far-across", "", "  - {type: ping, name: rtt, from: h1, to: h2, count: 5, interval: 0.1}\n");
  std::string yaml = slurp(file);
  auto at = yaml.find("learning-switch");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, std::string("learning-switch").size(), "hub");
  at = yaml.find("  - name: flowlab\n");
  ASSERT_NE(at, std::string::npos);
  yaml.insert(at + std::string("  - name: flowlab\n").size(), "    controller_link: {delay: 5ms}\n");
  std::ofstream(file) << yaml;
  json j = run_on_two(file);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["cases"][0]["placement"]["s2"], "m1");
  json ping = result(j, "rtt");
  ASSERT_EQ(ping["status"], "ok") << ping.dump();
  EXPECT_GE(ping["metrics"]["rtt_min_ms"].get<double>(), 40.0) << ping.dump();
  EXPECT_LT(ping["metrics"]["rtt_avg_ms"].get<double>(), 120.0) << ping.dump();
}

}  // namespace
}  // namespace flowlab::lab

// Prometheus in a lab (`metrics: true`, `--metrics`), as root in the lab's own
// namespaces with Debian's prometheus: a two-switch lab that is up, scraped by a
// real Prometheus whose HTTP API answers a port counter equal to the switch's own
// (`flowlab ofctl dump-ports`), every target up, the TSDB in the run's folder and
// no prometheus left after `lab down`; a run whose results.json and report carry
// each switch's packets/s and the packet-in rates; bad input (prometheus missing,
// Prometheus' port taken by the case's controller): a clear error, nothing left.
#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "lab/host/process.h"
#include "lab_dir_test.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kTwoSwitches = R"(name: metrics-two
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: flowlab, controller: c0}
  s2: {kind: flowlab, controller: c0}
controllers:
  c0: {kind: flowlab, apps: [learning-switch]}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [s1:p2, s2:p1]
  - endpoints: [h2:eth0, s2:p2]
tests:
  - {type: ping, from: h1, to: h2, count: 20, interval: 0.2}
)";

// Processes whose command line mentions `needle` (a run's own TSDB path).
int processes_mentioning(const std::string& needle) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline");
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    n += cmd.find(needle) != std::string::npos;
  }
  return n;
}

class LabMetrics : public LabDirTest {
 protected:
  LabMetrics() : LabDirTest("metrics-test", {"ip", "ping", "curl", "prometheus"}, 60) {}

  std::string write(const std::string& name, const std::string& yaml) const {
    auto p = dir_ / name;
    std::ofstream(p) << yaml;
    return p.string();
  }
  // GET /api/v1/query?query=EXPR from inside the namespace; the parsed answer.
  static json query(const std::string& ns, const std::string& address, const std::string& expr) {
    auto r = run_command({"ip", "netns", "exec", ns, "curl", "-s", "-m", "5", "-G", "--data-urlencode",
                          "query=" + expr, "http://" + address + "/api/v1/query"},
                         with_timeout(10));
    return json::parse(r.out, nullptr, false);
  }
};

TEST_F(LabMetrics, PrometheusScrapesATwoSwitchLabAndAgreesWithTheSwitch) {
  auto file = write("two.yaml", kTwoSwitches);
  auto up = run_command({FLOWLAB_BINARY, "lab", "up", file, "--out", out(), "--metrics"}, opts(120));
  ASSERT_EQ(up.exit_code, 0) << up.out << up.err;
  std::string id = up.out.substr(4, up.out.find(' ', 4) - 4);
  std::ifstream rec_in(dir_ / "state" / id / "lab.json");
  json rec = json::parse(rec_in, nullptr, false);
  ASSERT_TRUE(rec.contains("prometheus")) << rec.dump(2);
  const json& prom = rec["prometheus"];
  std::string ns = prom["namespace"], address = prom["address"], tsdb = prom["tsdb"];
  EXPECT_EQ(address, "127.0.0.1:9090");
  EXPECT_EQ(tsdb, out() + "/default/prometheus/tsdb") << "the TSDB is in the run's folder";
  ASSERT_EQ(prom["targets"].size(), 3u) << prom.dump(2);
  EXPECT_EQ(processes_mentioning(tsdb), 1) << "one prometheus, on this lab's TSDB";

  // Every target up: both switches and the controller.
  json upq = query(ns, address, "up");
  ASSERT_EQ(upq.value("status", ""), "success") << upq.dump();
  std::map<std::string, std::string> up_by_node;
  for (const auto& s : upq["data"]["result"]) up_by_node[s["metric"]["node"]] = s["value"][1];
  EXPECT_EQ(up_by_node, (std::map<std::string, std::string>{{"c0", "1"}, {"s1", "1"}, {"s2", "1"}}));

  auto ping =
      run_command({FLOWLAB_BINARY, "lab", "exec", id, "h1", "ping", "-c5", "-i0.2", "-W5", "h2"}, opts(30));
  EXPECT_NE(ping.out.find("5 received"), std::string::npos) << ping.out << ping.err;
  // Port 1 of each switch: what Prometheus stored and what the switch itself says
  // (OpenFlow port stats), equal once a scrape after the last packet has landed.
  for (auto [sw, listen] : {std::pair{"s1", 6634}, std::pair{"s2", 6635}}) {
    std::string expr = fmt::format("of_port_rx_packets{{node=\"{}\",port_no=\"1\"}}", sw);
    double in_prometheus = -1, in_switch = -2;
    std::string dump;
    json last;
    for (int i = 0; i < 60 && in_prometheus != in_switch; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      last = query(ns, address, expr);
      if (last.value("status", "") != "success" || last["data"]["result"].size() != 1) continue;
      in_prometheus = std::stod(last["data"]["result"][0]["value"][1].get<std::string>());
      dump = run_command({"ip", "netns", "exec", ns, FLOWLAB_BINARY, "ofctl", "dump-ports",
                          fmt::format("tcp:127.0.0.1:{}", listen)},
                         with_timeout(10))
                 .out;
      std::smatch m;
      std::regex re("port +1: rx pkts=([0-9]+)");
      if (std::regex_search(dump, m, re)) in_switch = std::stod(m[1]);
    }
    EXPECT_GE(in_prometheus, 5) << sw << ": the pings crossed port 1 " << last.dump();
    EXPECT_EQ(in_prometheus, in_switch) << sw << "\n" << last.dump() << "\n" << dump;
  }
  auto down = run_command({FLOWLAB_BINARY, "lab", "down", id}, opts(60));
  EXPECT_EQ(down.exit_code, 0) << down.out << down.err;
  EXPECT_EQ(processes_mentioning(tsdb), 0) << "prometheus stopped with the lab";
  EXPECT_TRUE(fs::exists(tsdb + "/wal")) << "its write-ahead log stays in the run's folder";
  EXPECT_TRUE(fs::exists(out() + "/default/prometheus/prometheus.yml"));
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

TEST_F(LabMetrics, RunWritesEachSwitchsPacketRateAndPacketInsIntoResultsAndReport) {
  auto file = write("two.yaml", std::string(kTwoSwitches) + "metrics: {interval: 500ms}\n");
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out()}, opts(180));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::ifstream in(out() + "/results.json");
  json doc = json::parse(in);
  const json& m = doc["cases"][0]["metrics"];
  ASSERT_TRUE(m.is_object()) << doc["cases"][0].dump(2);
  EXPECT_FALSE(m.contains("errors")) << m["errors"].dump();
  EXPECT_EQ(m["scrape_interval_s"], 0.5);
  // 20 echoes at 5/s: each switch forwards about 10 packets/s both ways for 4 s.
  for (const char* sw : {"s1", "s2"}) {
    const json& s = m["series"]["switch_rx_pps"][sw];
    ASSERT_TRUE(s.is_object()) << sw << " " << m["series"].dump();
    ASSERT_GE(s["t_s"].size(), 4u) << s.dump();
    double peak = 0;
    for (const auto& v : s["v"]) peak = std::max(peak, v.get<double>());
    EXPECT_GT(peak, 5) << sw << " " << s.dump();
    EXPECT_LT(peak, 100) << sw << " " << s.dump();
    EXPECT_TRUE(m["series"]["switch_packet_ins_per_s"].contains(sw));
  }
  EXPECT_TRUE(m["series"]["controller_packet_ins_per_s"].contains("c0")) << m["series"].dump();
  EXPECT_TRUE(fs::exists(out() + "/default/prometheus/tsdb/wal"));
  EXPECT_EQ(processes_mentioning(out() + "/default/prometheus/tsdb"), 0);
  std::ifstream html_in(out() + "/report.html");
  std::stringstream html;
  html << html_in.rdbuf();
  EXPECT_NE(html.str().find("packets/s through each switch (Prometheus)"), std::string::npos);
  EXPECT_NE(html.str().find("received s1"), std::string::npos);
  EXPECT_TRUE(fs::is_empty(dir_ / "state")) << "the run cleaned up after itself";
}

TEST_F(LabMetrics, PrometheusMissingOrItsPortTakenIsAClearErrorAndLeavesNothing) {
  auto file = write("two.yaml", kTwoSwitches);
  extra_env_ = {{"FLOWLAB_PROMETHEUS", (dir_ / "no-such-prometheus").string()}};
  auto r = run_command({FLOWLAB_BINARY, "lab", "run", file, "--out", out(), "--metrics"}, opts(30));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no-such-prometheus is not an executable"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out()));
  auto u = run_command({FLOWLAB_BINARY, "lab", "up", file, "--out", out(), "--metrics"}, opts(30));
  EXPECT_EQ(u.exit_code, 2) << u.out << u.err;
  EXPECT_NE(u.err.find("not an executable"), std::string::npos) << u.err;
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
  extra_env_.clear();

  // Prometheus asked to listen on the controller's port (6653): the case fails at
  // set-up naming the port, and everything it made is gone.
  auto clash = write("clash.yaml", std::string(kTwoSwitches) + "metrics: {port: 6653}\n");
  r = run_command({FLOWLAB_BINARY, "lab", "run", clash, "--out", out()}, opts(120));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("Prometheus' port 6653 is in use"), std::string::npos) << r.err;
  std::ifstream in(out() + "/results.json");
  json doc = json::parse(in, nullptr, false);
  EXPECT_NE(doc["cases"][0].value("reason", "").find("port 6653 is in use"), std::string::npos)
      << doc.dump(2);
  EXPECT_TRUE(fs::is_empty(dir_ / "state"));
}

}  // namespace
}  // namespace flowlab::lab

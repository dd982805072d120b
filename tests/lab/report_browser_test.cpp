// report.html in a real browser: headless Chromium (Debian's `chromium`) loads the
// report of a recorded run, and the DOM it builds holds the summary, the line and
// bar charts; the browser logs no console message (the report has no scripts, so
// any would be an error). A page with a script error shows the check can fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "lab/explain/explain.h"
#include "lab/host/process.h"
#include "lab/report/report.h"

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A recorded-shaped hub case: ping with its per-echo series, a fixed-window TCP
// stream with ss samples and CPU per process, UDP with iperf3 intervals, a probe
// with its delivered-rate series and an event.
json recorded_doc() {
  json c = {
      {"name", "flowlab-hub"},
      {"status", "ok"},
      {"offloads", false},
      {"switches", {{"s1", {{"kind", "flowlab"}, {"controller", "c1"}}}}},
      {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"hub"}}}}}},
      {"controller_stats",
       {{"c1",
         {{"packet_in", {{"received", 44257}, {"dropped", 0}}},
          {"sent", {{"packet_out", 44257}, {"flow_mod", 1}}},
          {"handling_time", {{"packet_in", {{"count", 44257}, {"p50_ns", 11600}, {"p99_ns", 371000}}}}}}}}}};
  json ts = json::array(), cpu = json::array(), cwnd = json::array(), rtt = json::array(),
       infl = json::array();
  for (int i = 1; i <= 50; ++i) {
    ts.push_back(i * 0.1);
    cpu.push_back(8 + i % 5);
    cwnd.push_back(12 + i % 7);
    rtt.push_back(5 + i % 9);
    infl.push_back(16384);
  }
  json samples = {
      {"t_s", ts},
      {"procs",
       {{"flowlab controller",
         {{"ns", "core"}, {"user_pct", cpu}, {"system_pct", cpu}, {"mean_pct", 20}, {"max_pct", 26}}}}},
      {"tcp",
       {{"t_s", ts},
        {"cwnd", cwnd},
        {"rtt_ms", rtt},
        {"delivery_mbps", cpu},
        {"inflight_bytes", infl},
        {"summary", {{"inflight_mean_bytes", 16384}, {"min_rtt_ms", 1.2}, {"window_rate_mean_mbps", 17.2}}}}},
      {"intervals", {{"t_s", {1, 2, 3, 4, 5}}, {"mbps", {15, 16, 14, 15, 16}}}}};
  json ping_series = {{"t_s", json::array()}, {"seq", json::array()}, {"rtt_ms", json::array()}};
  for (int i = 1; i <= 20; ++i) {
    if (i == 7) continue;  // a lost echo: a gap in the series
    ping_series["t_s"].push_back((i - 1) * 0.05);
    ping_series["seq"].push_back(i);
    ping_series["rtt_ms"].push_back(4.5 + (i % 4) * 0.2);
  }
  json ping = {{"case", "flowlab-hub"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 4.89}, {"loss_pct", 0}}},
               {"samples", {{"t_s", {0.5, 1.0}}, {"ping", ping_series}}}};
  json probe_series = {{"t_s", json::array()}, {"delivered_pps", json::array()}, {"bin_s", 0.1}};
  for (int i = 1; i <= 30; ++i) {
    probe_series["t_s"].push_back(i * 0.1);
    probe_series["delivered_pps"].push_back(i >= 10 && i < 14 ? 0 : 1000);  // the outage
  }
  json probe = {{"case", "flowlab-hub"},
                {"test", "probe"},
                {"type", "probe"},
                {"status", "ok"},
                {"metrics", {{"sent", 3000}, {"delivered", 2600}, {"lost", 400}, {"loss_pct", 13.3}}},
                {"events", {{{"t_s", 1.0}, {"label", "s1-s2 down"}}}},
                {"samples", {{"t_s", {1.0, 2.0, 3.0}}, {"probe", probe_series}}}};
  json tcp = {{"case", "flowlab-hub"},
              {"test", "tcp-16k"},
              {"type", "iperf2-window"},
              {"status", "ok"},
              {"metrics", {{"gbps_16K", 0.0154}}},
              {"samples", samples}};
  json udp_samples = samples;  // the controller busier for UDP's packet-ins
  udp_samples["procs"]["flowlab controller"]["mean_pct"] = 60;
  udp_samples["procs"]["flowlab controller"]["user_pct"] = json::array();
  udp_samples["procs"]["flowlab controller"]["system_pct"] = json::array();
  for (int i = 1; i <= 50; ++i) {
    udp_samples["procs"]["flowlab controller"]["user_pct"].push_back(40);
    udp_samples["procs"]["flowlab controller"]["system_pct"].push_back(20);
  }
  udp_samples.erase("tcp");
  json udp = {{"case", "flowlab-hub"},
              {"test", "udp-100m"},
              {"type", "iperf3-udp"},
              {"status", "ok"},
              {"metrics", {{"gbps", 0.095}, {"offered_gbps", 0.1}, {"loss_pct", 0.2}, {"lost_packets", 10}}},
              {"samples", udp_samples}};
  return {
      {"scenario", {{"name", "hub-100m"}, {"file", "scenarios/hub-100m.yaml"}, {"description", "recorded"}}},
      {"run_id", "abcde"},
      {"cases", {c}},
      {"results", {ping, tcp, udp, probe}}};
}

class ReportBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_program("chromium")) GTEST_SKIP() << "needs Debian's chromium (scripts/install-deps.sh)";
    dir_ = fs::temp_directory_path() / fmt::format("flowlab-report-browser-{}", getpid());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  // Loads a page; returns the DOM, and the console messages in `console`.
  std::string load(const fs::path& page, std::string& console) {
    auto r = run_command(
        {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
         "--user-data-dir=" + (dir_ / "profile").string(), "--dump-dom", "file://" + page.string()},
        with_timeout(90));
    EXPECT_TRUE(r.ok()) << r.describe() << r.err.substr(0, 2000);
    console.clear();
    std::istringstream in(r.err);
    for (std::string line; std::getline(in, line);)
      if (line.find(":CONSOLE") != std::string::npos) console += line + "\n";
    return r.out;
  }
  fs::path dir_;
};

TEST_F(ReportBrowser, SummaryChartsAndNoConsoleErrors) {
  json doc = recorded_doc();
  annotate_explanations(doc);
  ASSERT_TRUE(write_html_report(dir_.string(), doc).ok());
  std::string console;
  std::string dom = load(dir_ / "report.html", console);
  EXPECT_TRUE(console.empty()) << console;
  // The summary comes first, with the verdict of each test in one sentence.
  auto summary = dom.find("<table class=\"summary\">");
  ASSERT_NE(summary, std::string::npos) << dom.substr(0, 2000);
  EXPECT_LT(summary, dom.find("<h2>Cases</h2>"));
  EXPECT_NE(dom.find("<b>controller round trip</b>"), std::string::npos);
  EXPECT_NE(dom.find("<b>offered load</b>"), std::string::npos);
  EXPECT_NE(dom.find("the controller idles during TCP"), std::string::npos);
  // Line charts (throughput, cwnd/RTT, CPU per process) and the bar charts.
  EXPECT_NE(dom.find("throughput — flowlab-hub / tcp-16k"), std::string::npos);
  EXPECT_NE(dom.find("cwnd and RTT — flowlab-hub / tcp-16k"), std::string::npos);
  EXPECT_NE(dom.find("CPU per process — flowlab-hub / udp-100m"), std::string::npos);
  EXPECT_NE(dom.find("<polyline"), std::string::npos);
  // The ping and probe streams as line charts, the probe's event marked.
  EXPECT_NE(dom.find("ping RTT per echo — flowlab-hub / ping"), std::string::npos);
  EXPECT_NE(dom.find("probe delivered rate — flowlab-hub / probe"), std::string::npos);
  EXPECT_NE(dom.find("s1-s2 down"), std::string::npos);
  EXPECT_NE(dom.find("aria-label=\"ping rtt_avg_ms\""), std::string::npos);
  EXPECT_NE(dom.find("controller c1 handled 44257 packet-ins, median 11.6 us"), std::string::npos);
}

TEST_F(ReportBrowser, ConsoleCheckCatchesAScriptError) {
  std::ofstream(dir_ / "bad.html") << "<html><body><script>no_such_function();</script></body></html>";
  std::string console;
  load(dir_ / "bad.html", console);
  EXPECT_NE(console.find("no_such_function"), std::string::npos) << console;
}

}  // namespace
}  // namespace flowlab::lab

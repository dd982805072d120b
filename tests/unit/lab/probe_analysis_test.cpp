// Probe analysis: outages found from arrivals, recovery times, loss per event
// window, the rate series, the explanations and the timeline SVG.
#include "lab/traffic/probe_analysis.h"

#include <gtest/gtest.h>

#include "lab/traffic/probe_test.h"

namespace flowlab::lab {
namespace {

constexpr uint64_t kStart = 1'000'000'000'000ULL;
constexpr uint64_t kMs = 1'000'000;

// 1000 packets at 1 ms, one-way delay 2 ms, packets in [lost_from, lost_to) missing.
ProbeRun run_with_gap(uint32_t lost_from, uint32_t lost_to) {
  ProbeRun r;
  r.start_ns = kStart;
  r.interval_ns = kMs;
  r.sent = 1000;
  for (uint32_t s = 0; s < 1000; ++s)
    if (s < lost_from || s >= lost_to)
      r.arrivals.push_back({s, kStart + s * kMs, kStart + s * kMs + 2 * kMs});
  return r;
}

nlohmann::json event(const std::string& what, double at_s, const std::string& node = {}) {
  nlohmann::json e = {{"do", what},
                      {"label", what},
                      {"at_s", at_s},
                      {"status", "ok"},
                      {"fired_ns", kStart + uint64_t(at_s * 1e9)},
                      {"fired_at_s", at_s}};
  if (node.empty())
    e["link"] = {"h1", "s1"};
  else
    e["node"] = node;
  return e;
}

TEST(ProbeAnalysis, LinkDownAndUp) {
  auto run = run_with_gap(300, 520);
  auto a = analyze_probe(run, {event("down", 0.3), event("up", 0.5)});
  EXPECT_EQ(a["metrics"]["sent"], 1000);
  EXPECT_EQ(a["metrics"]["lost"], 220);
  EXPECT_DOUBLE_EQ(a["metrics"]["loss_pct"].get<double>(), 22.0);
  EXPECT_NEAR(a["metrics"]["owd_avg_ms"].get<double>(), 2.0, 1e-9);
  const auto& down = a["events"][0];
  EXPECT_EQ(down["first_lost_seq"], 300);
  EXPECT_EQ(down["first_delivered_seq"], 520);
  EXPECT_EQ(down["lost"], 220);
  EXPECT_NEAR(down["recovery_s"].get<double>(), 0.222, 1e-9);  // packet 520 arrives at 522 ms
  EXPECT_TRUE(down["recovered"].get<bool>());
  const auto& up = a["events"][1];
  EXPECT_EQ(up["first_delivered_seq"], 520);
  EXPECT_EQ(up["lost"], 20);  // sent after the up, before the first delivered
  EXPECT_NEAR(up["recovery_s"].get<double>(), 0.022, 1e-9);
  EXPECT_FALSE(up.contains("fired_ns"));
  // Rate series: about 1000 pkt/s outside the gap, 0 inside.
  const auto& pps = a["series"]["delivered_pps"];
  double bin = a["series"]["bin_s"].get<double>();
  EXPECT_NEAR(pps[size_t(0.1 / bin)].get<double>(), 1000, 1);
  EXPECT_EQ(pps[size_t(0.4 / bin)].get<double>(), 0);
}

TEST(ProbeAnalysis, NotRecoveredAndNoLoss) {
  auto run = run_with_gap(900, 1000);
  auto a = analyze_probe(run, nlohmann::json::array({event("down", 0.9)}));
  EXPECT_FALSE(a["events"][0]["recovered"].get<bool>());
  EXPECT_EQ(a["events"][0]["lost"], 100);
  auto b = analyze_probe(run_with_gap(0, 0), {event("kill", 0.2, "c1"), event("start", 0.6, "c1")});
  EXPECT_EQ(b["events"][0]["lost"], 0);
  EXPECT_EQ(b["events"][0]["lost_in_window"], 0);
  auto ex = explain_probe(b, {{"c1", {"s1 (flowlab, fail-secure)"}}});
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_NE(
      ex[0].find("s1 (flowlab, fail-secure) kept forwarding on its flows while c1 was down (fail-secure)"),
      std::string::npos)
      << ex[0];
}

TEST(ProbeAnalysis, LossWhileTheControllerIsDownIsNamed) {
  auto a = analyze_probe(run_with_gap(250, 700), {event("kill", 0.25, "c1"), event("start", 0.6, "c1")});
  auto ex = explain_probe(a, {{"c1", {"s1 (flowlab, fail-secure)"}}});
  ASSERT_EQ(ex.size(), 2u);
  EXPECT_NE(ex[0].find("packets lost until start"), std::string::npos) << ex[0];
  EXPECT_EQ(ex[0].find("kept forwarding"), std::string::npos);
  EXPECT_NE(ex[1].find("c1 was back"), std::string::npos) << ex[1];
}

TEST(ProbeAnalysis, EventsThatDidNotFireAreLeftOut) {
  nlohmann::json late = event("down", 0.5);
  late.erase("fired_ns");
  late["status"] = "not fired";
  auto a = analyze_probe(run_with_gap(0, 0), nlohmann::json::array({late}));
  EXPECT_TRUE(a["events"].empty());
}

TEST(ProbeAnalysis, TimelineSvgAndReportTable) {
  auto a = analyze_probe(run_with_gap(300, 520), {event("down", 0.3), event("up", 0.5)});
  std::string svg = probe_timeline_svg(a, "probe <h1>");
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("<polyline"), std::string::npos);
  EXPECT_NE(svg.find("down h1-s1"), std::string::npos);
  EXPECT_NE(svg.find("probe &lt;h1&gt;"), std::string::npos);
  EXPECT_EQ(svg.substr(svg.size() - 6), "</svg>");
  nlohmann::json rec = {{"probe", {{"events", a["events"]}}}, {"timeline_svg", svg}};
  std::string html = probe_report_html(rec);
  EXPECT_NE(html.find("<td>#300 (0.300 s)</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("0.222 s"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

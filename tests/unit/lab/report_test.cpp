// Explanations, the terminal table (ratios against the first case) and the HTML
// report (self-contained SVG charts), from results documents built here.
#include "lab/report/report.h"

#include <gtest/gtest.h>

#include "lab/explain/explain.h"
#include "lab/report/report_parts.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

json doc_two_cases() {
  json hub_case = {{"name", "hub"},
                   {"status", "ok"},
                   {"switches", {{"s1", {{"kind", "ovs"}, {"controller", "c1"}}}}},
                   {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"hub"}}}}}},
                   {"switch_counters",
                    {{"s1",
                      {{"kind", "ovs"},
                       {"dump_ports",
                        "OFPST_PORT reply (OF1.3) (xid=0x2): 2 ports\n"
                        "  port  1: rx pkts=100, bytes=1000, drop=2, errs=0, frame=0, over=0, crc=0\n"
                        "           tx pkts=90, bytes=900, drop=5, errs=0, coll=0\n"
                        "  port  2: rx pkts=50, bytes=1000, drop=0, errs=1, frame=0, over=0, crc=0\n"
                        "           tx pkts=40, bytes=900, drop=0, errs=0, coll=0\n"},
                       {"dump_flows",
                        " cookie=0x0, duration=3s, table=0, n_packets=4242, n_bytes=1, priority=0 "
                        "actions=CONTROLLER:65535\n"}}}}}};
  json learn_case = {{"name", "learning"},
                     {"status", "ok"},
                     {"switches", {{"s1", {{"kind", "ovs"}, {"controller", "c1"}}}}},
                     {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"learning-switch"}}}}}}};
  json r1 = {{"case", "learning"},
             {"test", "tcp"},
             {"type", "iperf3-tcp"},
             {"status", "ok"},
             {"metrics", {{"gbps", 0.8}, {"retransmits", 0}, {"rtt_ms", 0.3}}}};
  json r2 = {{"case", "hub"},
             {"test", "tcp"},
             {"type", "iperf3-tcp"},
             {"status", "ok"},
             {"to", "h2"},
             {"metrics", {{"gbps", 0.2}, {"retransmits", 7}, {"rtt_ms", 1.6}, {"window_bytes", 65536}}}};
  json r3 = {{"case", "hub"},
             {"test", "udp"},
             {"type", "iperf3-udp"},
             {"status", "failed"},
             {"reason", "iperf3: unable to connect"},
             {"to", "h2"},
             {"metrics", json::object()},
             {"receiver_stack", {{"Tcp.InCsumErrors", 12}}}};
  json r4 = {{"case", "learning"},
             {"test", "udp"},
             {"type", "iperf3-udp"},
             {"status", "ok"},
             {"metrics", {{"gbps", 0.9}, {"loss_pct", 0.1}, {"jitter_ms", 0.01}}}};
  return {{"scenario", {{"name", "t"}, {"description", "d <b>"}}},
          {"run_id", "abc12"},
          {"cases", {learn_case, hub_case}},
          {"results", {r1, r4, r2, r3}}};
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

TEST(Report, ControllerRoundTripBound) {
  auto d = doc_two_cases();
  auto ex = explain_test(d["results"][2], d["cases"][1], d);
  // 65536 B * 8 / 1.6 ms = 0.328 Gbit/s; measured 0.2 is within the bound.
  EXPECT_TRUE(contains(ex, "TCP limited by controller round trip: window 64 KB / RTT 1.6 ms = 0.328 Gbit/s"))
      << ::testing::PrintToString(ex);
  EXPECT_TRUE(contains(ex, "7 TCP retransmits"));
}

TEST(Report, ChecksumDropsExplainAFailure) {
  auto d = doc_two_cases();
  auto ex = explain_test(d["results"][3], d["cases"][1], d);
  EXPECT_TRUE(contains(ex, "receiver dropped 12 segments with bad checksums"))
      << ::testing::PrintToString(ex);
}

TEST(Report, CaseCountersSummarised) {
  auto d = doc_two_cases();
  auto ex = explain_case(d["cases"][1]);
  EXPECT_TRUE(contains(ex, "ports received 150 and sent 130 packets; drops rx 2 / tx 5, rx errors 1"))
      << ::testing::PrintToString(ex);
  EXPECT_TRUE(contains(ex, "4242 packets went to the controller"));
  EXPECT_TRUE(contains(ex, "every packet crosses the controller"));
  EXPECT_FALSE(contains(explain_case(d["cases"][0]), "every packet crosses the controller"));
}

TEST(Report, TableHasRatiosAgainstFirstCase) {
  auto d = doc_two_cases();
  annotate_explanations(d);
  auto t = render_table(d);
  EXPECT_NE(t.find("tcp gbps"), std::string::npos) << t;
  EXPECT_NE(t.find("0.2 (x0.25)"), std::string::npos) << t;
  EXPECT_NE(t.find("failed"), std::string::npos) << t;
  EXPECT_NE(t.find("hub / udp: failed: iperf3: unable to connect"), std::string::npos) << t;
}

TEST(Report, HtmlIsSelfContainedWithSvgCharts) {
  auto d = doc_two_cases();
  annotate_explanations(d);
  auto h = render_html(d);
  EXPECT_NE(h.find("<svg"), std::string::npos);
  EXPECT_NE(h.find("<rect"), std::string::npos);
  EXPECT_EQ(h.find("<script"), std::string::npos);
  EXPECT_EQ(h.find("src=\"http"), std::string::npos);
  EXPECT_EQ(h.find("href=\"http"), std::string::npos);
  EXPECT_NE(h.find("d &lt;b&gt;"), std::string::npos);  // escaped
  EXPECT_NE(h.find("TCP limited by controller round trip"), std::string::npos);
}

TEST(Report, HeadlineMetricsPerType) {
  EXPECT_EQ(headline_metrics(json{{"type", "ping"}}).at(0), "rtt_avg_ms");
  auto w =
      headline_metrics(json{{"type", "iperf2-window"}, {"metrics", {{"gbps_16K", 1.0}, {"gbps_64K", 2.0}}}});
  EXPECT_EQ(w.size(), 2u);
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

// A hub case's TCP-vs-UDP answer opens the summary: both figures with their
// bounds and the controller's load line of the comparison.
TEST(Report, HubAnswerOpensTheSummary) {
  nlohmann::json doc = {
      {"cases",
       {{{"name", "flowlab-hub-far"},
         {"status", "ok"},
         {"comparison",
          {"TCP 5.5 Mbit/s vs UDP 72 Mbit/s: ...", "flowlab controller was busy 1% of a core"}}},
        {{"name", "bridge"}, {"status", "ok"}}}},
      {"results",
       {{{"case", "flowlab-hub-far"},
         {"test", "tcp-16k"},
         {"type", "iperf2-window"},
         {"status", "ok"},
         {"metrics", {{"gbps_16K", 0.0055}}},
         {"verdict", {{"bound", "controller round trip"}}}},
        {{"case", "flowlab-hub-far"},
         {"test", "udp-100m"},
         {"type", "iperf3-udp"},
         {"status", "ok"},
         {"metrics", {{"gbps", 0.072}, {"loss_pct", 23.9}}},
         {"verdict", {{"bound", "switch queue drops"}}}}}}};
  std::string h = render_summary(doc);
  auto hub = h.find("Through the hub controller: TCP vs UDP");
  ASSERT_NE(hub, std::string::npos) << h;
  EXPECT_LT(hub, h.find("id=\"summary\""));
  EXPECT_NE(h.find("<b>controller round trip</b>"), std::string::npos) << h;
  EXPECT_NE(h.find("<b>switch queue drops</b>"), std::string::npos) << h;
  EXPECT_NE(h.find("<td class=\"cmp\">flowlab controller was busy 1% of a core</td>"), std::string::npos)
      << h;
  // A case without a comparison gets no row; a run without hub cases, no table.
  EXPECT_EQ(h.find("<td><b>bridge</b></td>"), std::string::npos) << h;
  doc["cases"][0].erase("comparison");
  EXPECT_EQ(render_summary(doc).find("Through the hub controller"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

// A short ping whose processes all idled draws no CPU chart (no empty "no samples"
// frame); a busy process gets one.
TEST(Report, TestChartsLeaveOutChartsWithNothingToDraw) {
  json r = {{"case", "c"}, {"test", "ping"}, {"type", "ping"}};
  r["samples"] = {
      {"t_s", {0.1, 0.2}},
      {"procs", {{"ping (h1)", {{"max_pct", 0.5}, {"user_pct", {0, 0.5}}, {"system_pct", {0, 0}}}}}}};
  std::string idle = render_test_charts(r);
  EXPECT_EQ(idle.find("CPU per process"), std::string::npos) << idle;
  EXPECT_EQ(idle.find("no samples"), std::string::npos) << idle;
  r["samples"]["procs"]["iperf3 (h1)"] = {{"max_pct", 90}, {"user_pct", {10, 20}}, {"system_pct", {70, 70}}};
  std::string busy = render_test_charts(r);
  EXPECT_NE(busy.find("CPU per process"), std::string::npos);
  EXPECT_NE(busy.find("<polyline"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

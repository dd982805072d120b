// One test per verdict rule on recorded-shaped inputs (the records the runner
// writes: metrics, receiver_stack and the sampler's `samples`), plus "not
// explained", a bound the measurement passes, and the hub TCP-vs-UDP comparison.
#include "lab/explain/verdict.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

using nlohmann::json;

json plain_case() {
  return {{"name", "c"},
          {"status", "ok"},
          {"switches", {{"s1", {{"kind", "flowlab"}, {"controller", "c1"}}}}},
          {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"learning-switch"}}}}}}};
}

json hub_case() {
  json c = plain_case();
  c["controllers"]["c1"]["apps"] = {"hub"};
  c["controller_stats"] = {
      {"c1",
       {{"packet_in", {{"received", 9000}, {"dropped", 0}}},
        {"handling_time", {{"packet_in", {{"count", 9000}, {"p50_ns", 5800}, {"p99_ns", 40000}}}}}}}};
  return c;
}

// A process entry of samples.procs.
json proc(double mean_pct, std::optional<double> limit = std::nullopt) {
  json p = {{"ns", "core"},
            {"mean_pct", mean_pct},
            {"user_mean_pct", mean_pct * 0.7},
            {"system_mean_pct", mean_pct * 0.3},
            {"max_pct", mean_pct}};
  if (limit) p["limit_pct"] = *limit;
  return p;
}

json tcp_record(double gbps) {
  return {
      {"case", "c"},
      {"test", "tcp"},
      {"type", "iperf3-tcp"},
      {"from", "h1"},
      {"to", "h2"},
      {"status", "ok"},
      {"metrics", {{"gbps", gbps}, {"retransmits", 0}}},
      {"receiver_stack", json::object()},
      {"samples",
       {{"t_s", {0.1, 1.0, 2.0, 3.0, 4.0, 5.0}},
        {"procs", {{"flowlab switch s1", proc(20)}, {"iperf3 (h1)", proc(15)}}},
        {"tcp", {{"summary", {{"min_rtt_ms", 0.05}, {"inflight_mean_bytes", 3e6}, {"rto_mean_ms", 204}}}}},
        {"tcp_ext", {{"sender", json::object()}, {"receiver", json::object()}}},
        {"qdiscs", json::array()},
        {"counters", json::object()}}}};
}

json udp_record(double gbps, double offered_gbps, double loss_pct, double lost) {
  json r = tcp_record(gbps);
  r["test"] = "udp";
  r["type"] = "iperf3-udp";
  r["metrics"] = {
      {"gbps", gbps}, {"offered_gbps", offered_gbps}, {"loss_pct", loss_pct}, {"lost_packets", lost}};
  r["samples"].erase("tcp");
  return r;
}

json doc_with(const json& c, const std::vector<json>& results) {
  json d = {{"cases", {c}}, {"results", json::array()}};
  for (const auto& r : results) d["results"].push_back(r);
  return d;
}

Verdict decide(const json& r, const json& c, const std::vector<json>& others = {}) {
  std::vector<json> all = others;
  all.push_back(r);
  return decide_verdict(r, c, doc_with(c, all));
}

TEST(Verdict, ChecksumDropsKillTheStream) {
  json r = tcp_record(0);
  r["status"] = "failed";
  r["reason"] = "iperf3: control socket has closed unexpectedly";
  r["receiver_stack"] = {{"Tcp.InCsumErrors", 512}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kChecksumDrops);
  EXPECT_NE(v.sentence.find("512 segments with bad checksums"), std::string::npos) << v.sentence;
}

TEST(Verdict, ReceiverSocketBuffer) {
  json r = udp_record(0.9, 1.0, 10, 1000);
  r["receiver_stack"] = {{"Udp.RcvbufErrors", 950}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kReceiverBuffer);
  EXPECT_NEAR(v.share, 0.95, 1e-9);
  EXPECT_NE(v.sentence.find("950 of the 1000 lost datagrams"), std::string::npos) << v.sentence;
}

TEST(Verdict, ReceiveWindowLimitedTcp) {
  json r = tcp_record(0.9);
  r["samples"]["tcp"]["summary"]["rwnd_limited_pct"] = 88.5;
  r["samples"]["tcp_ext"]["receiver"] = {{"TcpExt.TCPToZeroWindowAdv", 70}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kReceiverBuffer);
  EXPECT_NE(v.sentence.find("h2's receive window 88% of its busy time"), std::string::npos) << v.sentence;
}

TEST(Verdict, AFullReceiveWindowOfACpuBoundReceiverIsItsCpu) {
  json r = tcp_record(0.2);
  r["samples"]["tcp"]["summary"]["rwnd_limited_pct"] = 99.0;
  r["samples"]["procs"]["iperf3 (h2)"] = proc(9.8, 10);
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kProcessCpu);
  EXPECT_EQ(v.who, "iperf3 (h2)");
}

// The cores had no time left and the case's processes (35% of 199%) took little of
// it: the figure is CPU-bound on a machine shared with other work, and says so.
TEST(Verdict, ASaturatedMachineSharedWithOtherWorkSaysSo) {
  json r = tcp_record(0.3);
  r["samples"]["cores"] = {{"cpu0", {{"busy_mean_pct", 99.0}}}, {"cpu1", {{"busy_mean_pct", 100.0}}}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kMachineCpu);
  EXPECT_EQ(v.who, "shared");
  EXPECT_EQ(v.short_label(), "cpu: shared");
  EXPECT_NE(v.sentence.find("199% busy of 200%"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("work outside the case 164%"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("shared with other work"), std::string::npos) << v.sentence;
}

// Cores with room left are no machine bound, whoever else ran.
TEST(Verdict, NotExplainedWhenTheMachineHadRoomLeft) {
  json r = tcp_record(0.3);
  r["samples"]["cores"] = {{"cpu0", {{"busy_mean_pct", 80.0}}}, {"cpu1", {{"busy_mean_pct", 70.0}}}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kNotExplained) << v.sentence;
}

TEST(Verdict, ProcessCpuUnderACgroupLimitIsNamed) {
  json r = tcp_record(0.12);
  r["samples"]["procs"]["iperf3 (h2)"] = proc(19.6, 20);
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kProcessCpu);
  EXPECT_EQ(v.who, "iperf3 (h2)");
  EXPECT_EQ(v.short_label(), "cpu: iperf3 (h2)");
  EXPECT_NE(v.sentence.find("cgroup's CPU limit of 20%"), std::string::npos) << v.sentence;
}

// The throttled receiver's CPU counts while the stream ran, not while iperf3 waited
// for its client or wound down (recorded shape of tests/lab/explain_test.cpp).
TEST(Verdict, ProcessCpuCountsWhileTheStreamRan) {
  json r = tcp_record(0.05);
  r["samples"]["t_s"] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7};
  r["samples"]["procs"] = {{"iperf3 (h2)",
                            {{"ns", "h2"},
                             {"user_pct", {0, 0, 7, 7, 7, 0, 0}},
                             {"system_pct", {0, 0, 3, 3, 3, 0, 0}},
                             {"mean_pct", 4.3},
                             {"limit_pct", 10}}}};
  r["samples"]["tcp"]["t_s"] = {0.3, 0.4, 0.5};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kProcessCpu) << v.sentence;
  EXPECT_NEAR(v.share, 1.0, 1e-9);
  r["samples"]["tcp"].erase("t_s");  // no stream span: the whole window's mean, 43 %
  EXPECT_EQ(decide(r, plain_case()).bound, Bound::kNotExplained);
}

TEST(Verdict, ProcessCpuAtAFullCore) {
  json r = udp_record(0.3, 1.0, 70, 50000);
  r["samples"]["procs"]["flowlab controller"] = proc(97);
  Verdict v = decide(r, hub_case());
  EXPECT_EQ(v.bound, Bound::kProcessCpu);
  EXPECT_EQ(v.who, "flowlab controller");
}

TEST(Verdict, ControllerRoundTripBoundsTcpThroughAHub) {
  json ping = {{"case", "c"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 20.0}}}};
  json r = tcp_record(0);
  r["type"] = "iperf2-window";
  r["metrics"] = {{"gbps_16K", 0.0056}};
  r["samples"]["tcp"]["summary"] = {{"inflight_mean_bytes", 16384}, {"min_rtt_ms", 25.0}};
  r["samples"]["procs"] = {{"flowlab controller", proc(30)}};
  Verdict v = decide(r, hub_case(), {ping});
  // 16 KB / 20 ms (the idle ping RTT through the hub) = 6.55 Mbit/s; 5.6 measured.
  EXPECT_EQ(v.bound, Bound::kControllerRoundTrip);
  EXPECT_NEAR(v.share, 5.6 / 6.5536, 1e-3);
  EXPECT_NE(v.sentence.find("16 KB in flight and gets one window per 20 ms idle round trip"),
            std::string::npos)
      << v.sentence;
  EXPECT_NE(v.sentence.find("busy 30% of a core"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("5.8 us"), std::string::npos) << v.sentence;
}

// Recorded: flowlab switch + flowlab hub, iperf2 -w 16K, on the loaded 2-core machine
// (hub-100m.yaml): the RTT through the controller grew from 1.2 ms idle to ~8 ms.
TEST(Verdict, FixedWindowThroughAHubUsesTheRoundTripUnderLoad) {
  json ping = {{"case", "c"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 4.89}}}};
  json r = tcp_record(0);
  r["type"] = "iperf2-window";
  r["metrics"] = {{"gbps_16K", 0.015420284}};
  r["samples"]["tcp"]["summary"] = {{"inflight_mean_bytes", 17305.4},
                                    {"min_rtt_ms", 1.218},
                                    {"rtt_mean_ms", 14.69},
                                    {"window_rate_mean_mbps", 17.2165}};
  r["samples"]["procs"] = {{"flowlab controller", proc(9.7)}, {"flowlab switch s1", proc(20.5)}};
  Verdict v = decide(r, hub_case(), {ping});
  EXPECT_EQ(v.bound, Bound::kControllerRoundTrip);
  EXPECT_NEAR(v.share, 15.420284 / 17.2165, 1e-3);
  EXPECT_NE(
      v.sentence.find("17 KB in flight and gets one window per 8.04 ms round trip under load (1.22 ms idle)"),
      std::string::npos)
      << v.sentence;
  EXPECT_NE(v.sentence.find("flowlab controller was busy 10% of a core"), std::string::npos) << v.sentence;
}

TEST(Verdict, LossWithRetransmissionTimeouts) {
  json r = tcp_record(0.04);
  r["metrics"]["retransmits"] = 25;
  r["samples"]["tcp_ext"]["sender"] = {{"TcpExt.TCPTimeouts", 10}};
  r["samples"]["tcp"]["summary"] = {
      {"rto_mean_ms", 300}, {"delivery_max_mbps", 100}, {"inflight_mean_bytes", 8e6}, {"min_rtt_ms", 0.1}};
  Verdict v = decide(r, plain_case());
  // 10 x 300 ms = 3 s of 5 s idle: 40 Mbit/s while sending 2 s would be 100 -> all of the gap.
  EXPECT_EQ(v.bound, Bound::kLossTimeouts);
  EXPECT_NEAR(v.share, 1.0, 1e-9);
  EXPECT_NE(v.sentence.find("10 retransmission timeouts x 300 ms RTO = 3 s"), std::string::npos)
      << v.sentence;
}

TEST(Verdict, SwitchQueueDropsToTheController) {
  json r = udp_record(0.05, 0.1, 40, 2000);
  r["samples"]["counters"] = {{"s1-switch.to_controller.dropped", {0, 300, 1200, 1900}}};
  Verdict v = decide(r, hub_case());
  EXPECT_EQ(v.bound, Bound::kSwitchQueueDrops);
  EXPECT_NEAR(v.share, 0.95, 1e-9);
  EXPECT_NE(
      v.sentence.find("s1-switch lost 1900 packets (1900 because its queue to the controller was full)"),
      std::string::npos)
      << v.sentence;
}

TEST(Verdict, LinkQueueDrops) {
  json r = udp_record(0.6, 1.0, 40, 1000);
  r["samples"]["qdiscs"] = {{{"ns", "core"},
                             {"dev", "s1-p2"},
                             {"kind", "pfifo_fast"},
                             {"rate_bps", 0},
                             {"drops", 900},
                             {"packets", 50000}}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kLinkQueueDrops);
  EXPECT_NEAR(v.share, 0.9, 1e-9);
}

TEST(Verdict, ShapedLinkRate) {
  json r = tcp_record(0.0953);
  r["samples"]["qdiscs"] = {{{"ns", "h1"},
                             {"dev", "eth0"},
                             {"kind", "tbf"},
                             {"rate_bps", 100e6},
                             {"drops", 12},
                             {"packets", 80000}},
                            {{"ns", "h2"},
                             {"dev", "eth0"},
                             {"kind", "tbf"},
                             {"rate_bps", 50e6},
                             {"drops", 0},
                             {"packets", 0}}};  // the reverse direction, unused
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kShapedLink);
  EXPECT_NEAR(v.share, 0.953, 1e-9);
  EXPECT_NE(v.sentence.find("shaped to 100 Mbit/s (tbf on eth0 (h1))"), std::string::npos) << v.sentence;
}

TEST(Verdict, UnderlayBetweenMachines) {
  json r = tcp_record(0.924);
  r["machine"] = "m0->m1";
  json c = plain_case();
  c["underlay"] = {{"mtu", 1500}, {"rate_bps", 1e9}};
  Verdict v = decide(r, c);
  EXPECT_EQ(v.bound, Bound::kShapedLink);
  // 1398 bytes of TCP payload in each 1514 the shaper counts: 923 Mbit/s.
  EXPECT_NEAR(v.share, 1.0, 1e-9);
  EXPECT_NE(v.sentence.find("the machines' underlay (m0->m1) is shaped to 1 Gbit/s"), std::string::npos)
      << v.sentence;
  EXPECT_NE(v.sentence.find("923 Mbit/s of payload"), std::string::npos) << v.sentence;
  r["machine"] = "m0->m0";  // one machine: no underlay on the path
  EXPECT_NE(decide(r, c).bound, Bound::kShapedLink);
}

TEST(Verdict, WindowOverRoundTrip) {
  json ping = {{"case", "c"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 1.0}}}};
  json r = tcp_record(0.5);
  r["metrics"]["window_bytes"] = 65536;
  r["samples"]["tcp"]["summary"] = {{"inflight_mean_bytes", 65536}, {"min_rtt_ms", 1.2}};
  Verdict v = decide(r, plain_case(), {ping});
  EXPECT_EQ(v.bound, Bound::kWindowRtt);  // 64 KB / 1 ms = 524 Mbit/s
  EXPECT_NEAR(v.share, 0.5e9 / (65536 * 8 / 1e-3), 1e-9);
}

TEST(Verdict, OfferedLoadWentThrough) {
  json r = udp_record(0.198, 0.2, 0.1, 5);
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kOffered);
  EXPECT_NE(v.sentence.find("no bound was reached"), std::string::npos) << v.sentence;
}

// Recorded: flowlab switch + hub, UDP at 100 Mbit/s offered: iperf3 saw 3911 datagrams
// and counted 243 lost (0.5 %), but the sender sent ~44600; the switch's queue to
// the controller dropped most of the rest.
TEST(Verdict, UdpLossCountsWhatTheSenderSentNotOnlyIperfsCount) {
  json r = udp_record(0.002314621, 0.09991277, 0.5446, 243);
  r["metrics"]["packets"] = 3911;
  r["command"] = "iperf3 -c 10.0.0.2 -p 5201 -J -t 5 --connect-timeout 3000 -u -b 100M -l 1400";
  r["samples"]["intervals"] = {{"t_s", {1, 2, 3, 4, 5.0}}, {"mbps", {99, 96, 98, 105, 99}}};
  r["samples"]["counters"] = {{"s1-switch.to_controller.dropped", {0, 9000, 20000, 31000, 36500}}};
  r["receiver_stack"] = {{"Udp.RcvbufErrors", 273}};
  Verdict v = decide(r, hub_case());
  EXPECT_NE(v.bound, Bound::kOffered);
  EXPECT_EQ(v.bound, Bound::kSwitchQueueDrops) << v.sentence;
  EXPECT_NE(v.sentence.find("of the 40693 lost datagrams"), std::string::npos) << v.sentence;
}

// Recorded in make demo: OVS userspace's packet sockets dropped 65 % of the lost
// datagrams and the receiver's socket buffer 35 %; neither alone reaches 80 %.
TEST(Verdict, LossesAtSeveralPlacesAddUp) {
  json r = udp_record(0.187, 0.2, 6.3, 2237);
  r["receiver_stack"] = {{"Udp.RcvbufErrors", 792}};
  r["samples"]["packet_drops"] = {{{"process", "ovs-vswitchd"}, {"drops", 1445}}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kSwitchQueueDrops) << v.sentence;
  EXPECT_NEAR(v.share, 1.0, 1e-9);
  EXPECT_EQ(v.short_label(), "sw-drops+rcvbuf");
  EXPECT_NE(
      v.sentence.find("switch queue drops + receiver socket buffer: the 2237 lost datagrams were lost at "
                      "2 places, together 100%"),
      std::string::npos)
      << v.sentence;
  ASSERT_EQ(v.numbers["places"].size(), 2u);
  EXPECT_NEAR(v.numbers["places"][1]["share"].get<double>(), 792.0 / 2237, 1e-9);
}

// Two places that together still miss 80 % leave the figure not explained.
TEST(Verdict, LossesAtSeveralPlacesBelowEightyPercentStayUnexplained) {
  json r = udp_record(0.187, 0.2, 6.3, 2237);
  r["receiver_stack"] = {{"Udp.RcvbufErrors", 500}};
  r["samples"]["packet_drops"] = {{{"process", "ovs-vswitchd"}, {"drops", 1000}}};
  Verdict v = decide(r, plain_case());
  EXPECT_EQ(v.bound, Bound::kNotExplained) << v.sentence;
  EXPECT_EQ(v.short_label(), "?");
}

TEST(Verdict, NotExplainedBelowEightyPercent) {
  json ping = {{"case", "c"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 1.0}}}};
  json r = tcp_record(0.3);  // window bound 3 MB / 0.05 ms is far away; CPU at 20 %
  r["samples"]["tcp"]["summary"] = {{"inflight_mean_bytes", 65536}, {"min_rtt_ms", 0.5}};
  Verdict v = decide(r, plain_case(), {ping});
  // 64 KB / 0.5 ms = 1.05 Gbit/s: the 0.3 measured is 29 % of it.
  EXPECT_EQ(v.bound, Bound::kNotExplained);
  EXPECT_EQ(v.short_label(), "?");
  EXPECT_NE(v.sentence.find("not explained: no bound accounts for 80%"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("closest, 29%: window / RTT"), std::string::npos) << v.sentence;
}

TEST(Verdict, ABoundTheMeasurementPassesIsNoBound) {
  json r = tcp_record(2.0);  // 2 Gbit/s through a "100 Mbit/s" shaper cannot be bound by it
  r["samples"]["qdiscs"] = {
      {{"ns", "h1"}, {"dev", "eth0"}, {"kind", "tbf"}, {"rate_bps", 100e6}, {"drops", 0}, {"packets", 10}}};
  Verdict v = decide(r, plain_case());
  EXPECT_NE(v.bound, Bound::kShapedLink);
}

TEST(Verdict, LatencyTestsAndSkips) {
  json ping = {{"case", "c"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 1.6}}}};
  Verdict v = decide(ping, hub_case());
  EXPECT_EQ(v.bound, Bound::kLatency);
  EXPECT_NE(v.sentence.find("crosses the controller"), std::string::npos);
  json sk = {
      {"case", "c"}, {"test", "tcp"}, {"type", "iperf3-tcp"}, {"status", "skipped"}, {"reason", "no iperf3"}};
  EXPECT_EQ(decide(sk, plain_case()).sentence, "skipped: no iperf3");
  // Garbage in: no crash, a verdict all the same.
  EXPECT_EQ(decide_verdict(json::array(), json(), json()).bound, Bound::kNotExplained);
}

TEST(Verdict, HubComparisonSaysWhyTcpCollapsesAndTheControllerIdles) {
  json c = hub_case();
  c["name"] = "hub";
  json ping = {{"case", "hub"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", 2.8}}}};
  json tcp = tcp_record(0);
  tcp["case"] = "hub";
  tcp["type"] = "iperf2-window";
  tcp["metrics"] = {{"gbps_16K", 0.0056}};  // 16 KB / 2.8 ms = 46.8 Mbit/s: far above -> not this bound
  tcp["samples"]["tcp"]["summary"] = {{"inflight_mean_bytes", 2048}, {"min_rtt_ms", 2.8}};
  tcp["samples"]["procs"] = {{"flowlab controller", proc(30)}};
  tcp["samples"]["counters"] = {{"c1.packet_in.received", {1000, 2000, 3000, 3500, 4000, 4500}}};
  json udp = udp_record(0.095, 0.1, 1.5, 100);
  udp["case"] = "hub";
  udp["samples"]["procs"] = {{"flowlab controller", proc(70)}};
  udp["samples"]["counters"] = {{"c1.packet_in.received", {5000, 15000, 25000, 35000, 45000, 47000}}};
  json doc = {{"cases", {c}}, {"results", {ping, tcp, udp}}};
  annotate_verdicts(doc);
  EXPECT_EQ(doc["results"][1]["verdict"]["bound"], "controller round trip");  // 2 KB / 2.8 ms = 5.85 Mbit/s
  ASSERT_TRUE(doc["cases"][0].contains("comparison"));
  std::string all = doc["cases"][0]["comparison"].dump();
  EXPECT_NE(all.find("TCP 5.6 Mbit/s vs UDP 95 Mbit/s"), std::string::npos) << all;
  EXPECT_NE(all.find("busy 30% of a core during TCP (70% idle) and 70% during UDP"), std::string::npos)
      << all;
  EXPECT_NE(all.find("700 vs 8400 packet-ins/s"), std::string::npos) << all;
  // Not a hub: no comparison.
  json plain = plain_case();
  plain["name"] = "hub";
  json doc2 = {{"cases", {plain}}, {"results", {tcp, udp}}};
  annotate_verdicts(doc2);
  EXPECT_FALSE(doc2["cases"][0].contains("comparison"));
}

}  // namespace
}  // namespace flowlab::lab

// Verdict rules on inputs recorded by the far-controller cases of hub-100m.yaml
// (flowlab-hub-far, controller_link delay 5 ms, Release build, 2026-12-01 15:39
// UTC): TCP's round trip decomposed into controller crossings x channel delay +
// handling, UDP through the same hub not bound (no window) with the controller's
// load; a core saturated by the case's own processes and softirq named CPU-bound,
// and the same saturation by processes outside the case left "not explained"
// (constructed inputs, see below);
// interface receive drops (the backlog behind a veth) counted as link drops.
#include <gtest/gtest.h>

#include "lab/explain/verdict.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

json proc(double mean_pct, const char* ns) {
  return {{"ns", ns}, {"mean_pct", mean_pct}, {"user_mean_pct", mean_pct}, {"system_mean_pct", 0}};
}

json far_case() {
  return {{"name", "flowlab-hub-far"},
          {"status", "ok"},
          {"switches", {{"s1", {{"kind", "flowlab"}, {"controller", "c1"}}}}},
          {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"hub"}}}}}},
          {"controller_stats", {{"c1", {{"handling_time", {{"packet_in", {{"p50_ns", 362}}}}}}}}},
          {"controller_link", {{"delay_ms", 5.0}, {"forwarder", "flowlab-delay-line"}}}};
}

json far_ping() {
  return {{"case", "flowlab-hub-far"},
          {"test", "ping"},
          {"type", "ping"},
          {"status", "ok"},
          {"metrics", {{"rtt_avg_ms", 22.172}}}};
}

json far_tcp() {
  return {{"case", "flowlab-hub-far"},
          {"test", "tcp-16k"},
          {"type", "iperf2-window"},
          {"from", "h1"},
          {"to", "h2"},
          {"status", "ok"},
          {"metrics", {{"gbps_16K", 0.006267251}}},
          {"receiver_stack", json::object()},
          {"samples",
           {{"t_s", {0.104, 1.0, 2.0, 3.0, 4.0, 5.135, 6.19}},
            {"procs",
             {{"flowlab controller", proc(1.49, "ctl")},
              {"flowlab switch s1", proc(4.2, "core")},
              {"iperf (h2)", proc(0.81, "h2")}}},
            {"counters",
             {{"c1.packet_in.received", {39, 900, 1800, 2600, 3400, 4245, 4245}},
              {"s1-switch.packet_ins.sent", {54, 900, 1800, 2600, 3400, 4245, 4245}}}},
            {"tcp",
             {{"summary",
               {{"inflight_mean_bytes", 18410.3},
                {"min_rtt_ms", 20.246},
                {"rtt_mean_ms", 24.195},
                {"rto_mean_ms", 225.9},
                {"window_rate_mean_mbps", 6.114977904458723}}}}}}}};
}

json far_udp() {
  return {{"case", "flowlab-hub-far"},
          {"test", "udp-100m"},
          {"type", "iperf3-udp"},
          {"from", "h1"},
          {"to", "h2"},
          {"status", "ok"},
          {"command", "iperf3 -c 10.0.0.2 -p 5201 -J -t 5 --connect-timeout 3000 -u -b 100M -l 1400"},
          {"metrics",
           {{"gbps", 0.0962544635625985},
            {"offered_gbps", 0.09727171368602941},
            {"loss_pct", 0.18191447716858175},
            {"lost_packets", 79},
            {"packets", 43427}}},
          {"receiver_stack", {{"Udp.RcvbufErrors", 79}}},
          {"samples",
           {{"t_s", {0.102, 1.0, 2.0, 3.0, 4.0, 5.118}},
            {"intervals", {{"t_s", {1, 2, 3, 4, 5.000245}}, {"mbps", {96, 96, 97, 96, 96}}}},
            {"procs",
             {{"flowlab controller", proc(9.76, "ctl")},
              {"flowlab switch s1", proc(23.72, "core")},
              {"iperf3 (h2)", proc(4.72, "h2")}}},
            {"counters",
             {{"c1.packet_in.received", {4245, 12000, 20000, 28000, 36000, 42045}},
              {"s1-switch.packet_ins.sent", {4245, 12000, 20000, 28000, 36000, 45436}}}}}}};
}

json far_doc() { return {{"cases", {far_case()}}, {"results", {far_ping(), far_tcp(), far_udp()}}}; }

TEST(VerdictFar, TcpRoundTripIsControllerCrossingsTimesChannelDelayPlusHandling) {
  json doc = far_doc();
  Verdict v = decide_verdict(far_tcp(), far_case(), doc);
  EXPECT_EQ(v.bound, Bound::kControllerRoundTrip) << v.sentence;
  EXPECT_DOUBLE_EQ(v.numbers["channel_delay_ms"].get<double>(), 5.0);
  EXPECT_EQ(v.numbers["controller_crossings"].get<int>(), 2);
  EXPECT_DOUBLE_EQ(v.numbers["channel_ms"].get<double>(), 20.0);
  // 18410 B in flight at 6.11 Mbit/s = 24.1 ms per window: 20 ms of channel, 4.1 ms the rest.
  EXPECT_NEAR(v.numbers["rtt_ms"].get<double>(), 18410.3 * 8 / 6.114977904458723e6 * 1000, 1e-6);
  EXPECT_NEAR(v.numbers["rest_ms"].get<double>(), v.numbers["rtt_ms"].get<double>() - 20, 1e-9);
  // The larger of the two packet-in series: the controller received 4206 in 6.19 s.
  EXPECT_NEAR(v.numbers["packet_ins_per_s"].get<double>(), (4245.0 - 39) / 6.19, 1e-6);
  for (const char* part :
       {"crosses the controller, 5 ms away", "= 2 controller round trips", "x 2 x 5 ms channel delay = 20 ms",
        "+ 4.09 ms handling", "median packet-in handling 0.362 us", "measured 6.27 Mbit/s",
        "flowlab controller was busy 1% of a core (99% idle) for 679 packet-ins/s"})
    EXPECT_NE(v.sentence.find(part), std::string::npos) << part << " in: " << v.sentence;
}

TEST(VerdictFar, UdpThroughTheSameHubIsNotBoundAndSaysWhy) {
  json doc = far_doc();
  Verdict v = decide_verdict(far_udp(), far_case(), doc);
  // 79 datagrams dropped by the receiver's buffer explain the loss, not the rate.
  EXPECT_EQ(v.bound, Bound::kOffered) << v.sentence;
  for (const char* part : {"no window: the sender waits for no ACK", "(10 ms over the control channel)",
                           "flowlab controller was busy 10% of a core (90% idle)", "packet-ins/s",
                           "the 79 lost: h2's socket buffer"})
    EXPECT_NE(v.sentence.find(part), std::string::npos) << part << " in: " << v.sentence;
  EXPECT_GT(v.numbers["packet_ins_per_s"].get<double>(), 8000);
}

TEST(VerdictFar, ComparisonNamesTheIdleControllerFromThePacketInRates) {
  json doc = far_doc();
  annotate_verdicts(doc);
  auto cmp = compare_controller_path(doc, "flowlab-hub-far");
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_NE(cmp[0].find("TCP 6.27 Mbit/s vs UDP 96.3 Mbit/s"), std::string::npos) << cmp[0];
  EXPECT_NE(cmp[1].find("the controller idles during TCP because TCP brings it fewer packets"),
            std::string::npos)
      << cmp[1];
}

// ovs-osken-hub-far (hub-100m, 17:04 UTC): UDP reached more than TCP but lost 62 %
// of it; the comparison must not say UDP kept the sender's rate.
TEST(VerdictFar, ComparisonSaysWhenUdpLostWhatTheControllerPathCouldNotCarry) {
  json doc = far_doc();
  json& udp = doc["results"][2];
  udp["metrics"] = {{"gbps", 0.00871},
                    {"offered_gbps", 0.0227},
                    {"loss_pct", 61.61},
                    {"lost_packets", 16181},
                    {"packets", 26263}};
  udp["receiver_stack"] = json::object();
  udp["samples"]["counters"]["s1-switch.packet_ins.congested"] = {0, 0, 4000, 8000, 12000, 16181};
  annotate_verdicts(doc);
  auto cmp = compare_controller_path(doc, "flowlab-hub-far");
  ASSERT_EQ(cmp.size(), 2u);
  EXPECT_EQ(cmp[0].find("keeps the sender's rate"), std::string::npos) << cmp[0];
  EXPECT_NE(cmp[0].find("what the controller path cannot carry is lost (62% of it) (switch queue drops: "),
            std::string::npos)
      << cmp[0];
}

// two-nodes, same-host TCP: both cores busy, most of it the case's iperf3
// processes, its switch and the softirq forwarding its packets. Constructed in the
// shape of the sampler's records (this session's runs met a machine loaded to
// 13-40 by other builds, where the case's share was ~30 %: the second test).
json same_host(double procs_scale) {
  json cores = {{"cpu0",
                 {{"busy_pct", {99, 100, 99, 100}},
                  {"user_pct", {20, 21, 20, 19}},
                  {"system_pct", {49, 50, 50, 51}},
                  {"softirq_pct", {30, 29, 29, 30}}}},
                {"cpu1",
                 {{"busy_pct", {97, 98, 99, 98}},
                  {"user_pct", {15, 16, 15, 15}},
                  {"system_pct", {42, 43, 44, 42}},
                  {"softirq_pct", {40, 39, 40, 41}}}}};
  return {{"case", "flowlab"},
          {"test", "same-host"},
          {"type", "iperf3-tcp"},
          {"from", "vm1"},
          {"to", "vm2"},
          {"status", "ok"},
          {"metrics", {{"gbps", 4.8}, {"retransmits", 0}}},
          {"receiver_stack", json::object()},
          {"samples",
           {{"t_s", {0.1, 1, 2, 3}},
            {"cores", cores},
            {"procs",
             {{"iperf3 (vm1)", proc(55 * procs_scale, "vm1")},
              {"iperf3 (vm2)", proc(45 * procs_scale, "vm2")},
              {"flowlab switch cn1", proc(28 * procs_scale, "core")}}},
            {"tcp",
             {{"t_s", {0.1, 1, 2, 3}},
              {"summary", {{"inflight_mean_bytes", 3e6}, {"min_rtt_ms", 0.05}, {"rtt_mean_ms", 4.8}}}}}}}};
}

json plain_case() {
  return {{"name", "flowlab"},
          {"status", "ok"},
          {"switches", {{"cn1", {{"kind", "flowlab"}, {"controller", "c1"}}}}},
          {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"learning-switch"}}}}}}};
}

TEST(VerdictCore, CoreSaturatedByTheCaseIsCpuBound) {
  json r = same_host(1);
  Verdict v = decide_verdict(r, plain_case(), json{{"cases", {plain_case()}}, {"results", {r}}});
  EXPECT_EQ(v.bound, Bound::kCoreCpu) << v.sentence;
  EXPECT_EQ(v.who, "cpu0");
  EXPECT_EQ(v.short_label(), "cpu: cpu0");
  // cpu0 99.5 % busy; processes 128 % + softirq 69.75 % of 197.75 % busy.
  EXPECT_NEAR(v.share, 0.995 * 1.0, 1e-9);
  for (const char* part : {"cpu0 was saturated (busy 100%: softirq 30%, system 50%, user 20%",
                           "iperf3 (vm1) 55%, iperf3 (vm2) 45%, flowlab switch cn1 28%", "is CPU-bound"})
    EXPECT_NE(v.sentence.find(part), std::string::npos) << part << " in: " << v.sentence;
}

TEST(VerdictCore, CoreSaturatedByOthersIsASharedMachine) {
  // The same cores, but the case's processes used a fifth as much: the machine's
  // other work took the CPU. The figure is CPU-bound, and not the case's own.
  json r = same_host(0.2);
  for (auto& [name, c] : r["samples"]["cores"].items()) c["softirq_pct"] = {3, 3, 3, 3};
  Verdict v = decide_verdict(r, plain_case(), json{{"cases", {plain_case()}}, {"results", {r}}});
  EXPECT_EQ(v.bound, Bound::kMachineCpu) << v.sentence;
  EXPECT_EQ(v.short_label(), "cpu: shared");
  for (const char* part : {"198% busy of 200%", "softirq 32% of it and work outside the case 166%",
                           "CPU-bound on a machine shared with other work"})
    EXPECT_NE(v.sentence.find(part), std::string::npos) << part << " in: " << v.sentence;
}

TEST(VerdictDrops, InterfaceReceiveDropsAreLinkQueueDrops) {
  json r = far_udp();
  r["metrics"]["gbps"] = 0.06;
  r["metrics"]["loss_pct"] = 38;
  r["metrics"]["lost_packets"] = 16000;
  r["metrics"]["packets"] = 27000;
  r["receiver_stack"] = json::object();
  r["samples"]["iface_drops"] = {{{"ns", "core"}, {"dev", "s1-p1"}, {"rx_dropped", 15000}},
                                 {{"ns", "ctl"}, {"dev", "eth0"}, {"rx_dropped", 900}}};  // not data
  json c = far_case();
  Verdict v = decide_verdict(r, c, json{{"cases", {c}}, {"results", {r}}});
  EXPECT_EQ(v.bound, Bound::kLinkQueueDrops) << v.sentence;
  EXPECT_NE(v.sentence.find("15000 by interfaces on receive"), std::string::npos) << v.sentence;
  EXPECT_NE(v.sentence.find("s1-p1 15000 (core)"), std::string::npos) << v.sentence;
  EXPECT_EQ(v.sentence.find("(ctl)"), std::string::npos) << v.sentence;
}

}  // namespace
}  // namespace flowlab::lab

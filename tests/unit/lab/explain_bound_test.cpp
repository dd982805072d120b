// The TCP window/RTT explanation stays true to the numbers: it calls TCP "limited by
// round trip" only when the RTT is the idle one, names queueing when the RTT under
// load is far above the case's ping RTT, and calls no estimate below the measurement
// a bound.
#include <gtest/gtest.h>

#include "lab/explain/explain.h"
#include "lab/report/report.h"

namespace flowlab::lab {
namespace {

using nlohmann::json;

json hub_case() {
  return {{"name", "hub"},
          {"status", "ok"},
          {"switches", {{"s1", {{"kind", "ovs"}, {"controller", "c1"}}}}},
          {"controllers", {{"c1", {{"kind", "flowlab"}, {"apps", {"hub"}}}}}}};
}

json doc_with(double ping_ms, const json& tcp_metrics) {
  json ping = {{"case", "hub"},
               {"test", "ping"},
               {"type", "ping"},
               {"status", "ok"},
               {"metrics", {{"rtt_avg_ms", ping_ms}}}};
  json tcp = {
      {"case", "hub"}, {"test", "tcp"}, {"type", "iperf3-tcp"}, {"status", "ok"}, {"metrics", tcp_metrics}};
  return {{"cases", {hub_case()}}, {"results", {ping, tcp}}};
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + "\n";
  return s;
}

TEST(ExplainBound, QueueingRttIsNotCalledARoundTripLimit) {
  // 249 KB cwnd / 43.9 ms = 0.0465 Gbit/s; ping RTT 2.62 ms: 17x, so queueing.
  auto d =
      doc_with(2.62, {{"gbps", 0.0474}, {"rtt_ms", 43.9}, {"max_cwnd_bytes", 255000}, {"retransmits", 51}});
  auto ex = joined(explain_test(d["results"][1], d["cases"][0], d));
  EXPECT_EQ(ex.find("TCP limited by controller round trip"), std::string::npos) << ex;
  EXPECT_NE(ex.find("max cwnd 249 KB / mean RTT 43.9 ms = 0.0465 Gbit/s (measured 0.0474)"),
            std::string::npos)
      << ex;
  EXPECT_NE(ex.find("17x the idle ping RTT (2.62 ms), so it is queueing"), std::string::npos) << ex;
  EXPECT_NE(ex.find("packet rate of the controller path"), std::string::npos) << ex;
}

TEST(ExplainBound, IdleRttNearMeasurementIsTheLimit) {
  auto d = doc_with(1.5, {{"gbps", 0.2}, {"rtt_ms", 1.6}, {"window_bytes", 65536}});
  auto ex = joined(explain_test(d["results"][1], d["cases"][0], d));
  EXPECT_NE(ex.find("TCP limited by controller round trip: window 64 KB / RTT 1.6 ms = 0.328 Gbit/s"),
            std::string::npos)
      << ex;
}

TEST(ExplainBound, EstimateBelowMeasurementIsNoBound) {
  // 402 KB / 23.8 ms = 0.138 Gbit/s but 0.207 measured.
  auto d = doc_with(1.42, {{"gbps", 0.207}, {"rtt_ms", 23.8}, {"max_cwnd_bytes", 411648}});
  auto ex = joined(explain_test(d["results"][1], d["cases"][0], d));
  EXPECT_NE(ex.find("so this is no bound"), std::string::npos) << ex;
  EXPECT_EQ(ex.find("limited by"), std::string::npos) << ex;
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

TEST(ExplainBound, UdpLossAtTheReceiverSocketIsNamed) {
  nlohmann::json c = {{"name", "l"}, {"status", "ok"}};
  nlohmann::json r = {
      {"case", "l"},
      {"test", "udp"},
      {"type", "iperf3-udp"},
      {"status", "ok"},
      {"to", "h2"},
      {"metrics", {{"gbps", 0.18}, {"loss_pct", 80.6}, {"lost_packets", 1000}, {"offered_gbps", 0.9}}},
      {"receiver_stack", {{"Udp.RcvbufErrors", 900}}}};
  nlohmann::json d = {{"cases", {c}}, {"results", {r}}};
  std::string ex;
  for (const auto& s : explain_test(r, c, d)) ex += s + "\n";
  EXPECT_NE(ex.find("900 of the 1000 lost datagrams (90%) reached h2 and were dropped by its socket buffer"),
            std::string::npos)
      << ex;
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

TEST(ExplainBound, OvsLocalPortFloodDropsNotCounted) {
  nlohmann::json c = {{"name", "h"},
                      {"switch_counters",
                       {{"s1",
                         {{"dump_ports",
                           "OFPST_PORT reply (OF1.3) (xid=0x2): 2 ports\n"
                           "  port LOCAL: rx pkts=0, bytes=0, drop=0, errs=0, frame=0, over=0, crc=0\n"
                           "           tx pkts=0, bytes=0, drop=999, errs=0, coll=0\n"
                           "  port  1: rx pkts=10, bytes=1, drop=0, errs=0, frame=0, over=0, crc=0\n"
                           "           tx pkts=7, bytes=1, drop=1, errs=0, coll=0\n"}}}}}};
  std::string ex;
  for (const auto& s : explain_case(c)) ex += s + "\n";
  EXPECT_NE(ex.find("ports received 10 and sent 7 packets; drops rx 0 / tx 1"), std::string::npos) << ex;
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

// Retransmits on a host-to-host veth (no switch between) are not blamed on a
// switch; on a switched path they point at the switch counters.
TEST(ExplainBound, RetransmitsOnADirectPathDoNotBlameTheSwitch) {
  nlohmann::json c = {{"name", "l"}, {"status", "ok"}, {"switches", {{"s1", {{"kind", "flowlab"}}}}}};
  nlohmann::json r = {{"case", "l"},          {"test", "tcp-host-stack"},
                      {"type", "iperf3-tcp"}, {"status", "ok"},
                      {"path", "direct"},     {"metrics", {{"gbps", 9.0}, {"retransmits", 12}}}};
  nlohmann::json doc = {{"cases", {c}}, {"results", {r}}};
  auto direct = joined(explain_test(r, c, doc));
  EXPECT_NE(direct.find("12 TCP retransmits"), std::string::npos) << direct;
  EXPECT_NE(direct.find("no switch on this path"), std::string::npos) << direct;
  EXPECT_EQ(direct.find("switch counters"), std::string::npos) << direct;
  r["path"] = "switched";
  auto switched = joined(explain_test(r, c, doc));
  EXPECT_NE(switched.find("see the switch counters"), std::string::npos) << switched;
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

// flowlab switch's --stats-file counters reach the case explanation: a full
// to-controller queue and evicted buffers are named as the loss they are.
TEST(ExplainBound, SwitchStatsNameControllerQueueDropsAndEvictedBuffers) {
  nlohmann::json stats = {{"to_controller", {{"queued", 5000}, {"dropped", 120}}},
                          {"packet_ins", {{"sent", 4880}, {"unsent", 0}}},
                          {"packet_outs", 4700},
                          {"buffers", {{"capacity", 256}, {"in_use", 3}, {"evicted", 180}, {"expired", 2}}}};
  nlohmann::json c = {{"name", "hub"},
                      {"status", "ok"},
                      {"switch_counters", {{"s1", {{"kind", "flowlab"}, {"stats", stats}}}}}};
  auto ex = joined(explain_case(c));
  EXPECT_NE(
      ex.find("switch s1: 5000 packets queued for the controller, 120 dropped because the queue was full; "
              "4880 packet-ins sent, 4700 packet-outs run"),
      std::string::npos)
      << ex;
  EXPECT_NE(ex.find("180 buffered packet-ins were evicted (all 256 buffers in use) and 2 timed out"),
            std::string::npos)
      << ex;
  c["switch_counters"]["s1"]["stats"]["buffers"] = {{"capacity", 256}, {"evicted", 0}, {"expired", 0}};
  EXPECT_EQ(joined(explain_case(c)).find("evicted"), std::string::npos);
}

// The pipeline's own drops (a firewall's drop flows, table misses, meters) are
// named with their cause; none are mentioned when there were none.
TEST(ExplainBound, SwitchStatsNamePipelineDrops) {
  nlohmann::json stats = {{"datapath",
                           {{"packets", 9000},
                            {"table_miss_drops", 3},
                            {"action_drops", 41},
                            {"meter_drops", 0},
                            {"invalid_ttl", 0},
                            {"frag_drops", 0},
                            {"to_controller", 12}}}};
  nlohmann::json c = {{"name", "firewall"},
                      {"status", "ok"},
                      {"switch_counters", {{"s1", {{"kind", "flowlab"}, {"stats", stats}}}}}};
  auto ex = joined(explain_case(c));
  EXPECT_NE(
      ex.find("switch s1: of 9000 packets its pipeline took, it dropped 41 by flows that output nothing, 3 "
              "by table misses (no flow matched)"),
      std::string::npos)
      << ex;
  EXPECT_EQ(ex.find("meter"), std::string::npos) << ex;
  c["switch_counters"]["s1"]["stats"]["datapath"]["action_drops"] = 0;
  c["switch_counters"]["s1"]["stats"]["datapath"]["table_miss_drops"] = 0;
  EXPECT_EQ(joined(explain_case(c)).find("pipeline took"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

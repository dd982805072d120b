// Parsers for what explains drops and streams, on text recorded on this machine
// (Open vSwitch 3.1, iproute2 6.1, iputils ping): ovs-appctl coverage/show and
// dpctl/show -s, tc -s class show (htb, text), ss -0 -m -p (packet sockets), ping
// replies; and the ping / probe series a test record gets.
#include <gtest/gtest.h>

#include "lab/measure/sample_parse.h"
#include "lab/measure/sampler.h"

namespace flowlab::lab {
namespace {

TEST(SampleParseStreams, OvsCoverageTotals) {
  auto c = parse_ovs_coverage(
      "Event coverage, avg rate over last: 5 seconds, last minute, last hour,  hash=8d16d6f6:\n"
      "ofproto_packet_out       5233.6/sec   436.133/sec        7.2689/sec   total: 35476\n"
      "rconn_overflow             12.0/sec     1.000/sec        0.0100/sec   total: 1438\n"
      "rconn_sent             5234.0/sec   436.167/sec        7.2694/sec   total: 35478\n"
      "104 events never hit\n");
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c["rconn_overflow"], 1438);
  EXPECT_EQ(c["ofproto_packet_out"], 35476);
  EXPECT_TRUE(parse_ovs_coverage("ovs-appctl: cannot connect").empty());
}

TEST(SampleParseStreams, OvsDpctlShowLeavesTheBridgesLocalPortsOut) {
  auto d = parse_ovs_dpctl_show(
      "netdev@ovs-netdev:\n"
      "  lookups: hit:42585 missed:6 lost:3\n"
      "  flows: 6\n"
      "  port 0: ovs-netdev (tap)\n"
      "    RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n"
      "    TX packets:0 errors:0 dropped:0 aborted:0 carrier:0\n"
      "  port 1: br-s1 (tap)\n"
      "    RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n"
      "    TX packets:0 errors:0 dropped:42591 aborted:0 carrier:0\n"
      "    collisions:0\n"
      "    RX bytes:0  TX bytes:0\n"
      "  port 2: s1-p1\n"
      "    RX packets:29280 errors:0 dropped:7 overruns:0 frame:0\n"
      "    TX packets:13322 errors:0 dropped:0 aborted:0 carrier:0\n"
      "    RX bytes:44273960 (42.2 MiB)  TX bytes:880164 (859.5 KiB)\n");
  EXPECT_EQ(d["lookups.hit"], 42585);
  EXPECT_EQ(d["lookups.lost"], 3);
  EXPECT_EQ(d["port.s1-p1.rx_packets"], 29280);
  EXPECT_EQ(d["port.s1-p1.rx_dropped"], 7);
  EXPECT_EQ(d["port.s1-p1.tx_packets"], 13322);
  EXPECT_EQ(d.count("port.br-s1.tx_dropped"), 0u);  // flooded to a LOCAL port that is down
  EXPECT_EQ(d.count("port.s1-p1.rx_bytes"), 0u);
}

TEST(SampleParseStreams, HtbClassText) {
  auto q = parse_tc_class_text(
      "class htb 1:1 root prio 0 rate 100Mbit ceil 100Mbit burst 1600b cburst 1600b \n"
      " Sent 60644 bytes 40146 pkt (dropped 12, overlimits 310 requeues 0) \n"
      " backlog 1514b 1p requeues 0\n"
      " lended: 0 borrowed: 0 giants: 0\n"
      " tokens: 2000 ctokens: 2000\n\n"
      "class htb 1:2 root prio 0 rate 1Gbit ceil 1Gbit burst 1375b cburst 1375b \n"
      " Sent 0 bytes 0 pkt (dropped 0, overlimits 0 requeues 0) \n");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].kind, "htb-class");
  EXPECT_DOUBLE_EQ(q[0].rate_bps, 100e6);
  EXPECT_EQ(q[0].packets, 40146);
  EXPECT_EQ(q[0].drops, 12);
  EXPECT_EQ(q[0].overlimits, 310);
  EXPECT_EQ(q[0].backlog, 1514);  // bytes, as tc -j reports it
  EXPECT_DOUBLE_EQ(q[1].rate_bps, 1e9);
  EXPECT_TRUE(parse_tc_class_text("Cannot find device \"x\"\n").empty());
}

TEST(SampleParseStreams, PacketSocketDrops) {
  auto s = parse_ss_packet(
      "Netid State  Recv-Q Send-Q Local Address:Port Peer Address:PortProcess\n"
      "p_raw UNCONN 2496   0                  *:s1-p1               *     "
      "users:((\"ovs-vswitchd\",pid=2492,fd=3)) skmem:(r2496,rb2304,t0,tb212992,f0,w0,o0,bl0,d3782)\n"
      "p_raw UNCONN 0      0                [0]:d1               *     users:((\"python3\",pid=2492,fd=4)) "
      "skmem:(r0,rb212992,t0,tb212992,f0,w0,o0,bl0,d0)\n");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].process, "ovs-vswitchd");
  EXPECT_EQ(s[0].iface, "s1-p1");
  EXPECT_EQ(s[0].drops, 3782);
  EXPECT_EQ(s[1].iface, "d1");
  EXPECT_EQ(s[1].drops, 0);
  EXPECT_TRUE(parse_ss_packet("Netid State\n").empty());
}

TEST(SampleParseStreams, PingRepliesBecomeASeriesWithGaps) {
  std::string out =
      "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n"
      "64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=1.30 ms\n"
      "64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=1.45 ms\n"
      "64 bytes from 10.0.0.2: icmp_seq=4 ttl=64 time=0.466 ms\n\n"
      "--- 10.0.0.2 ping statistics ---\n"
      "4 packets transmitted, 3 received, 25% packet loss, time 153ms\n"
      "rtt min/avg/max/mdev = 0.466/1.072/1.450/0.433 ms\n";
  auto r = parse_ping_replies(out);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[2].seq, 4);
  EXPECT_DOUBLE_EQ(r[2].rtt_ms, 0.466);
  nlohmann::json rec = {{"type", "ping"}, {"samples", nlohmann::json::object()}};
  add_stream_series(rec, out, 0.05);
  const auto& p = rec["samples"]["ping"];
  EXPECT_EQ(p["seq"], nlohmann::json({1, 2, 4}));
  EXPECT_DOUBLE_EQ(p["t_s"][2].get<double>(), 0.15);  // seq 3 lost: a gap, not a zero
  EXPECT_DOUBLE_EQ(p["rtt_ms"][1].get<double>(), 1.45);
  nlohmann::json none = {{"type", "ping"}, {"samples", nlohmann::json::object()}};
  add_stream_series(none, "ping: connect: Network is unreachable\n", 0.05);
  EXPECT_FALSE(none["samples"].contains("ping"));
}

TEST(SampleParseStreams, ProbeSeriesIsCopiedIntoSamples) {
  nlohmann::json rec = {
      {"type", "probe"},
      {"samples", nlohmann::json::object()},
      {"probe", {{"series", {{"bin_s", 0.1}, {"t_s", {0.1, 0.2, 0.3}}, {"delivered_pps", {1000, 0, 990}}}}}}};
  add_stream_series(rec, "", 0.001);
  EXPECT_EQ(rec["samples"]["probe"]["delivered_pps"], nlohmann::json({1000, 0, 990}));
  EXPECT_DOUBLE_EQ(rec["samples"]["probe"]["bin_s"].get<double>(), 0.1);
}

}  // namespace
}  // namespace flowlab::lab

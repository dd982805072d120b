// Tool-output parsers: ping, iperf3 -J (TCP and UDP), iperf2 CSV, ethtool -k,
// /proc/net/snmp, sizes.
#include <gtest/gtest.h>

#include "lab/host/netns.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {
namespace {

TEST(Parsers, Ping) {
  auto m = parse_ping(
      "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n\n--- 10.0.0.2 ping statistics ---\n"
      "5 packets transmitted, 4 received, 20% packet loss, time 404ms\n"
      "rtt min/avg/max/mdev = 0.031/0.076/0.120/0.030 ms\n");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ((*m)["sent"], 5);
  EXPECT_EQ((*m)["received"], 4);
  EXPECT_DOUBLE_EQ((*m)["loss_pct"].get<double>(), 20.0);
  EXPECT_DOUBLE_EQ((*m)["rtt_min_ms"].get<double>(), 0.031);
  EXPECT_DOUBLE_EQ((*m)["rtt_avg_ms"].get<double>(), 0.076);
  EXPECT_DOUBLE_EQ((*m)["rtt_max_ms"].get<double>(), 0.120);
  EXPECT_DOUBLE_EQ((*m)["rtt_mdev_ms"].get<double>(), 0.030);
}

TEST(Parsers, PingWithoutRepliesFails) {
  auto m =
      parse_ping("--- 10.0.0.2 ping statistics ---\n3 packets transmitted, 0 received, 100% packet loss\n");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("no ping replies"), std::string::npos);
  EXPECT_FALSE(parse_ping("connect: Network is unreachable\n").ok());
}

TEST(Parsers, Iperf3Tcp) {
  auto m = parse_iperf3(R"({"start":{},"intervals":[],"end":{
    "streams":[{"sender":{"bits_per_second":8.0e8,"retransmits":3,"max_snd_cwnd":65536,"mean_rtt":1600,"sender":true}}],
    "sum_sent":{"bits_per_second":8.1e8,"retransmits":3},
    "sum_received":{"bits_per_second":8.0e8}}})",
                        false);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ((*m)["gbps"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ((*m)["sender_gbps"].get<double>(), 0.81);
  EXPECT_EQ((*m)["retransmits"], 3);
  EXPECT_DOUBLE_EQ((*m)["rtt_ms"].get<double>(), 1.6);
  EXPECT_DOUBLE_EQ((*m)["max_cwnd_bytes"].get<double>(), 65536);
}

TEST(Parsers, Iperf3Udp) {
  auto m = parse_iperf3(R"({"end":{
    "sum":{"bits_per_second":1.0e9,"jitter_ms":0.5,"lost_packets":10,"packets":100,"lost_percent":10.0},
    "sum_sent":{"bits_per_second":1.0e9},
    "sum_received":{"bits_per_second":9.0e8,"jitter_ms":0.25,"lost_packets":79,"packets":100,"lost_percent":79.0}}})",
                        true);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_DOUBLE_EQ((*m)["gbps"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ((*m)["offered_gbps"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ((*m)["loss_pct"].get<double>(), 79.0);
  EXPECT_DOUBLE_EQ((*m)["jitter_ms"].get<double>(), 0.25);
}

TEST(Parsers, Iperf3ErrorIsReported) {
  auto m = parse_iperf3(R"({"start":{},"error":"unable to connect to server: Connection refused"})", false);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("Connection refused"), std::string::npos);
  EXPECT_FALSE(parse_iperf3("iperf3: error", false).ok());
}

TEST(Parsers, Iperf2Csv) {
  auto bps = parse_iperf2_bps("20261130061500,10.0.0.1,40000,10.0.0.2,5001,3,0.0-2.0,250000000,1000000000\n");
  ASSERT_TRUE(bps.ok());
  EXPECT_DOUBLE_EQ(*bps, 1e9);
  EXPECT_FALSE(parse_iperf2_bps("connect failed: Connection refused\n").ok());
}

TEST(Parsers, Sizes) {
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("1M"), 1048576u);
  EXPECT_EQ(parse_size("1500"), 1500u);
  EXPECT_EQ(parse_size("abc"), 0u);
  EXPECT_EQ(parse_size("12Q"), 0u);
}

TEST(Parsers, EthtoolFeatures) {
  auto f = parse_ethtool_features(
      "Features for eth0:\nrx-checksumming: on\ntx-checksumming: off\n\ttx-checksum-ipv4: off [fixed]\n"
      "tcp-segmentation-offload: off\ngeneric-receive-offload: on\nhighdma: on\n");
  EXPECT_EQ(f["rx-checksumming"], "on");
  EXPECT_EQ(f["tx-checksumming"], "off");
  EXPECT_EQ(f["tcp-segmentation-offload"], "off");
  EXPECT_EQ(f["generic-receive-offload"], "on");
  EXPECT_EQ(f.count("highdma"), 0u);
}

TEST(Parsers, Snmp) {
  auto c = parse_snmp(
      "Ip: Forwarding DefaultTTL InDiscards\nIp: 2 64 7\n"
      "Tcp: RtoAlgorithm RetransSegs InCsumErrors\nTcp: 1 12 345\n"
      "Udp: InDatagrams InCsumErrors\nUdp: 10 0\n");
  EXPECT_EQ(c["Tcp.InCsumErrors"], 345);
  EXPECT_EQ(c["Tcp.RetransSegs"], 12);
  EXPECT_EQ(c["Udp.InCsumErrors"], 0);
  EXPECT_EQ(c["Ip.InDiscards"], 7);
}

}  // namespace
}  // namespace flowlab::lab

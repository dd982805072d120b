// Parsers of what the sampler reads, on text recorded from this kernel (6.x) and
// iproute2: /proc/PID/stat, /proc/stat, /proc/net/netstat, ss -tin, tc -j -s,
// iperf3 -J intervals, cgroup CPU limits.
#include "lab/measure/sample_parse.h"

#include <gtest/gtest.h>

#include "lab/measure/sampler.h"

namespace flowlab::lab {
namespace {

TEST(SampleParse, ProcPidStatReadsCommWithSpacesAndTimes) {
  // comm "(my proc) x" holds spaces and a parenthesis; utime 1234, stime 56, 7 threads.
  std::string text =
      "4242 ((my proc) x) S 1 4242 4242 0 -1 4194304 99 0 0 0 1234 56 0 0 20 0 7 0 153280 3133440 390 "
      "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  auto s = parse_proc_pid_stat(text);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->comm, "(my proc) x");
  EXPECT_EQ(s->utime, 1234u);
  EXPECT_EQ(s->stime, 56u);
  EXPECT_EQ(s->threads, 7);
  EXPECT_FALSE(parse_proc_pid_stat("4242 (cat) R 1 2").has_value());
  EXPECT_FALSE(parse_proc_pid_stat("").has_value());
}

TEST(SampleParse, ProcStatPerCoreWithoutTheAggregate) {
  std::string text =
      "cpu  29182 153236 22554 100496 410 0 168 142 0 0\n"
      "cpu0 14517 76552 10783 51093 53 0 4 75 0 0\n"
      "cpu1 14664 76684 11771 49402 356 0 163 67 0 0\n"
      "intr 859871 0 0\nctxt 1\n";
  auto m = parse_proc_stat(text);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m["cpu1"].softirq, 163u);
  EXPECT_EQ(m["cpu1"].steal, 67u);
  EXPECT_EQ(m["cpu0"].busy(), 14517u + 76552 + 10783 + 0 + 4 + 75);
  EXPECT_TRUE(parse_proc_stat("garbage\ncpu9 1 2\n").empty());
}

TEST(SampleParse, NetstatPairsHeaderAndValues) {
  std::string text =
      "TcpExt: SyncookiesSent PruneCalled RcvPruned TCPTimeouts TCPLossProbes TCPFastRetrans "
      "TCPSpuriousRTOs\n"
      "TcpExt: 0 3 1 12 7 40 2\n"
      "IpExt: InNoRoutes InOctets\n"
      "IpExt: 0 123456\n"
      "Broken: a b\n";
  auto m = parse_netstat(text);
  EXPECT_EQ(m["TcpExt.TCPTimeouts"], 12);
  EXPECT_EQ(m["TcpExt.TCPLossProbes"], 7);
  EXPECT_EQ(m["TcpExt.RcvPruned"], 1);
  EXPECT_EQ(m["IpExt.InOctets"], 123456);
  EXPECT_EQ(m.count("Broken.a"), 0u);  // a header without its value line
}

// Recorded with `ss -tinH state established` during an iperf3 run on loopback
// (a state filter drops the State column; without one it leads the line).
const char* kSs =
    "0      0                127.0.0.1:55434          127.0.0.1:5999 \n"
    "\t bbr wscale:10,10 rto:204 rtt:0.106/0.07 ato:40 mss:32768 pmtu:65535 rcvmss:536 advmss:65483 cwnd:13 "
    "bytes_sent:164 bytes_acked:165 bytes_received:4 segs_out:7 segs_in:7 send 32149735849bps "
    "delivery_rate 40329846152bps delivered:4 app_limited minrtt:0.004 snd_wnd:65536\n"
    "0      2621440          127.0.0.1:55442          127.0.0.1:5999 \n"
    "\t cubic wscale:7,7 rto:212 rtt:11.5/2.25 mss:1448 pmtu:1500 rcvmss:536 advmss:1448 cwnd:42 ssthresh:30 "
    "bytes_sent:2719781 bytes_retrans:28960 bytes_acked:2690821 segs_out:86 unacked:38 retrans:0/20 lost:1 "
    "send 35165658537bps delivery_rate 95.2Mbps busy:1008ms rwnd_limited:800ms(79.4%) "
    "sndbuf_limited:12ms(1.2%) minrtt:1.62 snd_wnd:131072\n";

TEST(SampleParse, SsTinFieldsOfEachSocket) {
  auto socks = parse_ss_tin(kSs);
  ASSERT_EQ(socks.size(), 2u);
  EXPECT_EQ(socks[0].peer, "127.0.0.1:5999");
  EXPECT_DOUBLE_EQ(socks[0].rtt_ms, 0.106);
  EXPECT_DOUBLE_EQ(socks[0].rto_ms, 204);
  EXPECT_DOUBLE_EQ(socks[0].delivery_rate_bps, 40329846152.0);
  const SsSocket& s = socks[1];
  EXPECT_EQ(s.send_q, 2621440);
  EXPECT_EQ(s.cwnd, 42);
  EXPECT_EQ(s.ssthresh, 30);
  EXPECT_EQ(s.mss, 1448);
  EXPECT_DOUBLE_EQ(s.rtt_ms, 11.5);
  EXPECT_DOUBLE_EQ(s.rtt_var_ms, 2.25);
  EXPECT_DOUBLE_EQ(s.min_rtt_ms, 1.62);
  EXPECT_EQ(s.retrans_total, 20);
  EXPECT_EQ(s.bytes_retrans, 28960);
  EXPECT_EQ(s.unacked, 38);
  EXPECT_EQ(s.snd_wnd, 131072);
  EXPECT_EQ(s.lost, 1);
  EXPECT_DOUBLE_EQ(s.rwnd_limited_pct, 79.4);
  EXPECT_DOUBLE_EQ(s.sndbuf_limited_pct, 1.2);
  EXPECT_DOUBLE_EQ(s.delivery_rate_bps, 95.2e6);
  // The stream is the socket with the most bytes, not the iperf3 control connection.
  EXPECT_EQ(stream_socket(socks), &socks[1]);
  EXPECT_EQ(stream_socket({}), nullptr);
  // Counters at LLONG_MAX (a corrupt line; the fuzzer's find) neither overflow
  // the comparison nor make a negative one win.
  std::vector<SsSocket> huge(3);
  huge[0].bytes_acked = 22980;
  huge[1].bytes_acked = huge[1].bytes_received = 9223372036854775807LL;
  huge[2].bytes_acked = -1;
  EXPECT_EQ(stream_socket(huge), &huge[1]);
  EXPECT_TRUE(parse_ss_tin("\t rtt:1/1\n").empty());
  auto with_state = parse_ss_tin("ESTAB 0 77 10.0.0.1:1 10.0.0.2:5201\n\t cwnd:10 bytes_acked:5\n");
  ASSERT_EQ(with_state.size(), 1u);
  EXPECT_EQ(with_state[0].send_q, 77);
  EXPECT_EQ(with_state[0].peer, "10.0.0.2:5201");
  EXPECT_EQ(with_state[0].cwnd, 10);  // an info line without its socket
}

TEST(SampleParse, TcQdiscAndHtbClassJson) {
  // tc -j -s qdisc show (tbf) and tc -j -s class show dev X (htb, stats nested)
  auto q = parse_tc_json(
      R"([{"kind":"tbf","handle":"8001:","dev":"lo","root":true,"refcnt":2,"options":{"rate":12500000,)"
      R"("burst":32762,"lat":50000},"bytes":1491,"packets":19,"drops":43,"overlimits":5,"requeues":0,)"
      R"("backlog":0,"qlen":0},{"kind":"noqueue","dev":"eth0","packets":0}])");
  ASSERT_EQ(q.size(), 2u);
  EXPECT_EQ(q[0].kind, "tbf");
  EXPECT_DOUBLE_EQ(q[0].rate_bps, 100e6);
  EXPECT_EQ(q[0].drops, 43);
  EXPECT_EQ(q[0].packets, 19);
  EXPECT_DOUBLE_EQ(q[1].rate_bps, 0);
  auto c = parse_tc_json(R"([{"class":"htb","handle":"1:10","root":true,"rate":1250000,"ceil":1250000,)"
                         R"("stats":{"bytes":100,"packets":9,"drops":4,"overlimits":2}}])");
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, "htb");
  EXPECT_DOUBLE_EQ(c[0].rate_bps, 10e6);
  EXPECT_EQ(c[0].drops, 4);
  EXPECT_TRUE(parse_tc_json("Error: Cannot find device").empty());
  // A name of another type reads as absent, the numbers still count (the
  // fuzzer's input: json::value threw type_error on "kind":2).
  auto odd = parse_tc_json(R"([{"kind":2,"dev":5,"drops":7},{"class":[1],"packets":3}])");
  ASSERT_EQ(odd.size(), 2u);
  EXPECT_EQ(odd[0].kind, "");
  EXPECT_EQ(odd[0].dev, "");
  EXPECT_EQ(odd[0].drops, 7);
  EXPECT_EQ(odd[1].kind, "");
  EXPECT_EQ(odd[1].packets, 3);
}

TEST(SampleParse, Iperf3Intervals) {
  std::string j =
      R"(warning text {"start":{},"intervals":[{"sum":{"start":0,"end":1.0,"bits_per_second":9.5e7}},)"
      R"({"sum":{"start":1.0,"end":2.0,"bits_per_second":5.6e6}},{"nosum":1}],"end":{}})";
  auto pts = parse_iperf3_intervals(j);
  ASSERT_EQ(pts.size(), 2u);
  EXPECT_DOUBLE_EQ(pts[1].t_s, 2.0);
  EXPECT_DOUBLE_EQ(pts[1].bps, 5.6e6);
  auto iv = intervals_json(j);
  EXPECT_DOUBLE_EQ(iv["mbps"][0].get<double>(), 95);
  EXPECT_TRUE(parse_iperf3_intervals("not json").empty());
  EXPECT_TRUE(intervals_json("").empty());
}

TEST(SampleParse, CgroupLimits) {
  EXPECT_FALSE(parse_cpu_max("max 100000\n").has_value());
  EXPECT_DOUBLE_EQ(*parse_cpu_max("20000 100000\n"), 20);
  EXPECT_FALSE(parse_cpu_max("").has_value());
  EXPECT_FALSE(parse_cfs_quota("-1\n", "100000\n").has_value());
  EXPECT_DOUBLE_EQ(*parse_cfs_quota("10000\n", "100000\n"), 10);
  auto p = parse_proc_cgroup("12:pids:/\n4:cpu,cpuacct:/lab/slow\n0::/user.slice/x\n");
  EXPECT_EQ(p.v1_cpu, "/lab/slow");
  EXPECT_EQ(p.v2, "/user.slice/x");
  EXPECT_TRUE(parse_proc_cgroup("junk").v1_cpu.empty());
}

}  // namespace
}  // namespace flowlab::lab

namespace flowlab::lab {
namespace {

// `ip -s -j link show` (iproute2 6.1): rx dropped per interface, from stats64.
TEST(SampleParse, IpLinkRxDropped) {
  const char* text =
      R"([{"ifindex":1,"ifname":"lo","stats64":{"rx":{"bytes":10,"packets":1,"errors":0,"dropped":3},)"
      R"("tx":{"dropped":0}}},{"ifindex":7,"ifname":"s1-p1","link_netnsid":0,)"
      R"("stats64":{"rx":{"bytes":99,"packets":9,"errors":0,"dropped":15000},"tx":{"dropped":12}}},)"
      R"({"ifindex":8,"ifname":"nostats"}])";
  auto v = parse_ip_link_rx_dropped(text);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], std::make_pair(std::string("lo"), 3LL));
  EXPECT_EQ(v[1], std::make_pair(std::string("s1-p1"), 15000LL));
  EXPECT_TRUE(parse_ip_link_rx_dropped("not json").empty());
  EXPECT_TRUE(parse_ip_link_rx_dropped(R"({"ifname":"x"})").empty());
  EXPECT_TRUE(parse_ip_link_rx_dropped(R"([{"ifname":"x","stats64":{"rx":{"dropped":"many"}}}])").empty());
}

}  // namespace
}  // namespace flowlab::lab

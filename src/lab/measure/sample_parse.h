// Parsers for what the lab samples while a test runs: /proc/PID/stat (a process's
// CPU time), /proc/stat (per-core busy, softirq, steal), /proc/net/netstat (TcpExt
// counters), `ss -tin` (a TCP socket's cwnd, RTT, RTO, delivery rate, retransmits),
// `tc -j -s qdisc/class show` (shaping rates and queue drops), iperf3 -J intervals
// and cgroup CPU limits. Pure functions on text, so the unit tests feed them
// recorded output; the sampler (sampler.h) does the reading.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flowlab::lab {

// /proc/PID/stat: comm (field 2, may hold spaces and parentheses), utime and stime
// (fields 14, 15) in clock ticks, the thread count (field 20).
struct ProcStat {
  std::string comm;
  uint64_t utime = 0, stime = 0;
  int threads = 0;
};
std::optional<ProcStat> parse_proc_pid_stat(const std::string& text);

// One "cpuN" line of /proc/stat, in clock ticks.
struct CoreTimes {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  uint64_t total() const { return user + nice + system + idle + iowait + irq + softirq + steal; }
  uint64_t busy() const { return total() - idle - iowait; }
};
// `ip -s -j link show`: interface name -> rx dropped (stats64), in file order;
// entries without statistics are left out; malformed JSON gives an empty list.
std::vector<std::pair<std::string, long long>> parse_ip_link_rx_dropped(const std::string& json_text);
// Per core ("cpu0", "cpu1", ...); the aggregate "cpu" line is left out.
std::map<std::string, CoreTimes> parse_proc_stat(const std::string& text);

// /proc/net/netstat and /proc/net/snmp: pairs of header/value lines, keyed
// "TcpExt.TCPTimeouts", "IpExt.InOctets", "Tcp.RetransSegs", ...
std::map<std::string, long long> parse_netstat(const std::string& text);

// One socket of `ss -tin` (two lines: addresses, then the info line).
struct SsSocket {
  std::string local, peer;
  long long send_q = 0;
  double rtt_ms = 0, rtt_var_ms = 0, min_rtt_ms = 0, rto_ms = 0;
  long long cwnd = 0, mss = 0, ssthresh = 0, unacked = 0, snd_wnd = 0;
  double delivery_rate_bps = 0;
  long long retrans_total = 0;  // "retrans:cur/total"
  long long bytes_acked = 0, bytes_received = 0, bytes_retrans = 0, lost = 0;
  // Share of the busy time the sender was limited by the peer's receive window /
  // its own send buffer ("rwnd_limited:80ms(42.1%)"), in %.
  double rwnd_limited_pct = 0, sndbuf_limited_pct = 0;
};
std::vector<SsSocket> parse_ss_tin(const std::string& text);
// The socket that carries the stream: the one with the most bytes acked (the
// iperf3 control connection carries a few bytes only). Null when there is none.
const SsSocket* stream_socket(const std::vector<SsSocket>& sockets);

// `tc -j -s qdisc show` and `tc -j -s class show dev X`: the shaping rate (tbf's
// options.rate, an htb class's rate; bytes/s as tc prints it) and the drops.
struct QdiscStat {
  std::string dev, kind;
  double rate_bps = 0;  // bits per second, 0 when the qdisc does not shape
  long long drops = 0, packets = 0, bytes = 0, overlimits = 0, backlog = 0;
};
std::vector<QdiscStat> parse_tc_json(const std::string& text);
// `tc -s class show dev X` as text: iproute2 6.1 prints htb classes in JSON without
// their rate, so the lab reads the text ("class htb 1:1 root ... rate 100Mbit ceil
// ...", then " Sent B bytes P pkt (dropped D, overlimits O ...)"). kind = "htb-class".
std::vector<QdiscStat> parse_tc_class_text(const std::string& text);

// `ss -0 -m -n -a -p`: the packet sockets (AF_PACKET: the switches' ports) with the
// process that holds them and the drops of their receive buffer (skmem "d").
struct PacketSocketDrops {
  std::string process, iface;
  long long drops = 0;
};
std::vector<PacketSocketDrops> parse_ss_packet(const std::string& text);

// iperf3 -J "intervals": the end time of each interval and its throughput.
struct IntervalPoint {
  double t_s = 0, bps = 0;
};
std::vector<IntervalPoint> parse_iperf3_intervals(const std::string& json_text);

// The CPU limit of a cgroup in % of one core: v2 "cpu.max" ("max 100000" or
// "20000 100000"), v1 cpu.cfs_quota_us / cpu.cfs_period_us. Nullopt when unlimited.
std::optional<double> parse_cpu_max(const std::string& text);
std::optional<double> parse_cfs_quota(const std::string& quota, const std::string& period);
// /proc/PID/cgroup: the path of the v2 hierarchy ("0::/x") and of the v1 cpu
// controller ("4:cpu,cpuacct:/y"); empty when absent.
struct CgroupPaths {
  std::string v2, v1_cpu;
};
CgroupPaths parse_proc_cgroup(const std::string& text);

// `ovs-appctl coverage/show`: event name -> its total ("rconn_overflow", ...).
std::map<std::string, long long> parse_ovs_coverage(const std::string& text);
// `ovs-appctl dpctl/show -s`: "lookups.hit", "lookups.missed", "lookups.lost" of the
// datapath, and per port "port.NAME.rx_dropped" / "port.NAME.tx_dropped" (also
// rx/tx_packets, *_errors). Ports of type tap or internal (the bridges' LOCAL ports,
// ovs-netdev) are left out: their drops are packets flooded to a port that is down,
// not losses on the path.
std::map<std::string, long long> parse_ovs_dpctl_show(const std::string& text);

// `ping -n` replies ("64 bytes from A: icmp_seq=3 ttl=64 time=0.466 ms"): sequence
// number and RTT of each answered echo, in order of arrival.
struct PingReply {
  int seq = 0;
  double rtt_ms = 0;
};
std::vector<PingReply> parse_ping_replies(const std::string& text);

}  // namespace flowlab::lab

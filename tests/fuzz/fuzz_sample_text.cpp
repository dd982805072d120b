// libFuzzer target for the text the lab's samplers read from tools and the
// kernel while a test runs: `ss -tin` (parse_ss_tin), `tc -s -j qdisc`
// (parse_tc_json), /proc/PID/stat, /proc/stat, /proc/net/netstat,
// `ip -s -j link` (parse_ip_link_stats), cgroup cpu.max / cfs quota and
// /proc/PID/cgroup, iperf3 --json intervals. Never crash, never throw.
#include <cstdint>
#include <string>

#include "lab/measure/sample_parse.h"
#include "lab/run/topology_record.h"

using namespace flowlab::lab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto socks = parse_ss_tin(text);
  (void)stream_socket(socks);
  (void)parse_tc_json(text);
  (void)parse_proc_pid_stat(text);
  (void)parse_proc_stat(text);
  (void)parse_netstat(text);
  (void)parse_ip_link_stats(text);
  (void)parse_cpu_max(text);
  auto nl = text.find('\n');
  (void)parse_cfs_quota(text.substr(0, nl), nl == std::string::npos ? "" : text.substr(nl + 1));
  (void)parse_proc_cgroup(text);
  (void)parse_iperf3_intervals(text);
  return 0;
}

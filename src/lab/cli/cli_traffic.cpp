// Mininet's pingall, pingallfull, pingpair and iperf on the lab's hosts, printed as
// Mininet prints them. Pingall is the lab's own (traffic/pingall.h): one fping per
// source host at once, so a hundred hosts answer in a second or two.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "lab/cli/mininet_cli.h"
#include "lab/traffic/pingall.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

namespace {

using nlohmann::json;

// 9.41e9 -> "9.41 Gbits/sec", as iperf prints a rate.
std::string rate_text(double bps) {
  const char* units[] = {"bits/sec", "Kbits/sec", "Mbits/sec", "Gbits/sec", "Tbits/sec"};
  int u = 0;
  while (bps >= 1000 && u < 4) {
    bps /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", bps, units[u]);
}

}  // namespace

void MininetCli::pingall(const std::vector<std::string>& args, bool full, bool pair) {
  TestSpec t;
  t.type = TestType::kPingall;
  t.name = "cli-pingall";
  t.count = 1;
  t.interval = 0.01;
  if (!args.empty() && !pair) {
    char* end = nullptr;
    double timeout = std::strtod(args[0].c_str(), &end);
    if (end == args[0].c_str() || *end || timeout <= 0)
      return error("usage: pingall [timeout in seconds]: '" + args[0] + "' is not a number");
  }
  std::vector<PingallHost> hosts;
  for (const auto& h : view_.hosts) {
    if (h.addr.empty() || h.ns.empty()) continue;
    hosts.push_back({h.name, h.ns, h.addr, h.intfs});
    if (pair && hosts.size() == 2) break;
  }
  if (hosts.size() < 2) return error("Error: pinging needs two hosts with addresses");
  PingallPath path;
  for (const auto& s : view_.switches)
    path.controller_switches += s.kind != "linux-bridge" && !view_.controllers.empty();
  print("*** Ping: testing ping reachability\n");
  PingallOutcome r = run_pingall(t, hosts, 32, path);
  const json& m = r.matrix;
  const json& loss = m.value("loss_pct", json::array());
  const json& rtt = m.value("rtt_ms", json::array());
  size_t sent = 0, received = 0;
  std::string results;
  for (size_t i = 0; i < hosts.size(); ++i) {
    std::string row = hosts[i].name + " -> ";
    for (size_t j = 0; j < hosts.size(); ++j) {
      if (i == j) continue;
      const json& l = i < loss.size() && j < loss[i].size() ? loss[i][j] : json();
      bool ok = l.is_number() && l.get<double>() < 100;
      ++sent;
      received += ok;
      row += (ok ? hosts[j].name : std::string("X")) + " ";
      if (full) {
        const json& rt = i < rtt.size() && j < rtt[i].size() ? rtt[i][j] : json();
        double ms = rt.is_number() ? rt.get<double>() : 0;
        results += ok ? fmt::format(" {}->{}: 1/1, rtt min/avg/max/mdev {:.3f}/{:.3f}/{:.3f}/0.000 ms\n",
                                    hosts[i].name, hosts[j].name, ms, ms, ms)
                      : fmt::format(" {}->{}: 0/1, rtt min/avg/max/mdev 0.000/0.000/0.000/0.000 ms\n",
                                    hosts[i].name, hosts[j].name);
      }
    }
    print(row + "\n");
  }
  if (r.outcome.reason == "interrupted") return error("Interrupted");
  if (full)
    print("*** Results: \n" + results);
  else
    print(fmt::format("*** Results: {:.0f}% dropped ({}/{} received)\n",
                      sent ? 100.0 * double(sent - received) / double(sent) : 0.0, received, sent));
}

void MininetCli::iperf(const std::vector<std::string>& args, bool udp) {
  std::vector<std::string> rest = args;
  std::string bw = "10M";
  if (udp) {
    if (rest.empty()) return error("invalid number of args: iperfudp bw src dst\nbw examples: 10M");
    bw = rest[0];
    rest.erase(rest.begin());
  }
  if (!rest.empty() && rest.size() != 2)
    return error(udp ? "invalid number of args: iperfudp bw src dst"
                     : "invalid number of args: iperf src dst");
  const ViewHost *a = nullptr, *b = nullptr;
  if (rest.empty()) {
    if (view_.hosts.size() < 2) return error("Error: iperf needs two hosts");
    a = &view_.hosts.front();
    b = &view_.hosts.back();
  } else {
    a = view_.host(rest[0]);
    b = view_.host(rest[1]);
    for (size_t k = 0; k < 2; ++k)
      if (!(k ? b : a)) return error("Error: " + rest[k] + " is not a host of this lab");
  }
  TestSpec t;
  t.type = udp ? TestType::kIperf3Udp : TestType::kIperf3Tcp;
  t.name = udp ? "cli-iperfudp" : "cli-iperf";
  t.duration = 5;        // Mininet's default
  if (udp) t.rate = bw;  // TCP unpaced, as Mininet's iperf
  TrafficCtx c;
  c.from_ns = a->ns;
  c.to_ns = b->ns;
  c.to_addr = b->addr;
  c.out_dir = view_.out_dir + "/cli";
  c.flowlab_bin = flowlab_bin_;
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  print(fmt::format("*** Iperf: testing {} bandwidth between {} and {} \n", udp ? "UDP" : "TCP", a->name,
                    b->name));
  TestOutcome o = run_test(t, c);
  if (o.status != "ok") return error("Error: iperf: " + o.reason);
  double rx = o.metrics.value("gbps", 0.0) * 1e9;
  double tx = o.metrics.value(udp ? "offered_gbps" : "sender_gbps", o.metrics.value("gbps", 0.0)) * 1e9;
  if (udp)
    print(fmt::format("*** Results: ['{}', '{}', '{}']\n", bw, rate_text(rx), rate_text(tx)));
  else
    print(fmt::format("*** Results: ['{}', '{}']\n", rate_text(rx), rate_text(tx)));
}

}  // namespace flowlab::lab

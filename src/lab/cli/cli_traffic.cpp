// Mininet's pingall, pingallfull, pingpair and iperf on the lab's hosts, printed as
// Mininet prints them. Pingall counts each pair's first echo, as Mininet's does, all
// sent from this process at once (traffic/echo_sweep.h): a hundred hosts answer in
// under a second.
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "lab/cli/mininet_cli.h"
#include "lab/run/persistent_lab.h"
#include "lab/traffic/echo_sweep.h"
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

PingallPath pingall_path(const LabView& view) {
  PingallPath path;
  for (const auto& s : view.switches)
    path.controller_switches += s.kind != "linux-bridge" && !view.controllers.empty();
  return path;
}

void MininetCli::pingall(const std::vector<std::string>& args, bool full, bool pair) {
  EchoSweepOptions o;
  o.path = pingall_path(view_);
  if (!args.empty() && !pair) {
    char* end = nullptr;
    o.timeout_s = std::strtod(args[0].c_str(), &end);
    if (end == args[0].c_str() || *end || o.timeout_s <= 0)
      return error("usage: pingall [timeout in seconds]: '" + args[0] + "' is not a number");
  }
  std::vector<PingallHost> hosts;
  for (const auto& h : view_.hosts) {
    if (h.addr.empty() || h.ns.empty()) continue;
    hosts.push_back({h.name, h.ns, h.addr, h.intfs});
    if (pair && hosts.size() == 2) break;
  }
  if (hosts.size() < 2) return error("Error: pinging needs two hosts with addresses");
  print("*** Ping: testing ping reachability\n");
  auto sweep = echo_sweep(hosts, o);
  if (!sweep.ok()) return error("Error: " + sweep.error().message);
  std::string results;
  for (size_t i = 0; i < hosts.size(); ++i) {
    std::string row = hosts[i].name + " -> ";
    for (size_t j = 0; j < hosts.size(); ++j) {
      const EchoReply& r = sweep->replies[i][j];
      if (!r.sent) continue;
      row += (r.received ? hosts[j].name : std::string("X")) + " ";
      if (full)
        results += fmt::format(" {}->{}: 1/{}, rtt min/avg/max/mdev {:.3f}/{:.3f}/{:.3f}/0.000 ms\n",
                               hosts[i].name, hosts[j].name, int(r.received), r.rtt_ms, r.rtt_ms, r.rtt_ms);
    }
    print(row + "\n");
  }
  if (sweep->interrupted) return error("Interrupted");
  size_t sent = sweep->sent, received = sweep->received;
  if (full)
    print("*** Results: \n" + results);
  else
    print(fmt::format("*** Results: {:.0f}% dropped ({}/{} received)\n",
                      sent ? 100.0 * double(sent - received) / double(sent) : 0.0, received, sent));
}

Status print_ping_pairs(const std::string& lab_id, const std::vector<std::string>& hosts,
                        const std::string& to, double timeout_s, bool by_source, FILE* out) {
  FLOWLAB_ASSIGN_OR_RETURN(json rec, running_lab_record(lab_id));
  if (rec.contains("across"))
    return fail("lab '{}' spans machines: ping-pairs drives labs on one machine", lab_id);
  FLOWLAB_ASSIGN_OR_RETURN(LabView view, lab_view(rec));
  std::vector<PingallHost> list;
  for (const auto& arg : hosts) {
    auto eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    const ViewHost* h = view.host(name);
    if (!h) return fail("{} is not a host of lab {}", name, lab_id);
    list.push_back({name, h->ns, eq == std::string::npos ? h->addr : arg.substr(eq + 1), h->intfs});
  }
  EchoSweepOptions o;
  o.path = pingall_path(view);
  o.timeout_s = timeout_s;
  o.to = to;
  o.by_source = by_source;
  FLOWLAB_ASSIGN_OR_RETURN(EchoSweep sweep, echo_sweep(list, o));
  if (sweep.interrupted) return fail("interrupted");
  json pairs = json::array();
  for (size_t i = 0; i < list.size(); ++i)
    for (size_t j = 0; j < sweep.replies[i].size(); ++j) {
      const EchoReply& r = sweep.replies[i][j];
      if (r.sent) pairs.push_back({list[i].name, to.empty() ? list[j].name : to, int(r.received), r.rtt_ms});
    }
  json doc = {{"sent", sweep.sent}, {"received", sweep.received}, {"pairs", std::move(pairs)}};
  std::fprintf(out, "%s\n", doc.dump().c_str());
  return ok_status();
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

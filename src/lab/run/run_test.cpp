// One test of a case: pingall, or a traffic test with its sampler (run_test.h).
#include "lab/run/run_test.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/measure/sampler.h"
#include "lab/net/shaped_link.h"
#include "lab/run/case_events.h"
#include "lab/run/test_machines.h"
#include "lab/scenario/topology.h"
#include "lab/traffic/pingall.h"
#include "lab/traffic/probe_test.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

namespace fs = std::filesystem;
using nlohmann::json;

// Every host with an address: its namespace, address and addressed interfaces.
std::vector<PingallHost> pingall_hosts(RunContext& rc, CaseTopology& topo) {
  std::vector<PingallHost> hosts;
  for (const auto& h : rc.sc.hosts) {
    auto a = rc.sc.address_of(h.name);
    if (!a.ok()) continue;
    std::vector<std::string> ifs;
    for (const auto& i : h.interfaces)
      if (!i.addr.empty()) ifs.push_back(i.name);
    hosts.push_back({h.name, topo.host_ns[h.name], *a, ifs});
  }
  return hosts;
}

// pingall: every ordered pair of addressed hosts (pingall.h).
namespace {

json counter_delta(const std::map<std::string, long long>& before,
                   const std::map<std::string, long long>& after) {
  json d = json::object();
  for (const char* k : {"Tcp.InCsumErrors", "Udp.InCsumErrors", "Tcp.RetransSegs", "Udp.InErrors",
                        "Udp.RcvbufErrors", "Ip.InDiscards"}) {
    auto a = after.find(k), b = before.find(k);
    if (a == after.end()) continue;
    d[k] = a->second - (b == before.end() ? 0 : b->second);
  }
  return d;
}

}  // namespace

json run_pingall_test(RunContext& rc, const CaseSpec& cs, const TestSpec& t, CaseTopology& topo) {
  json rec = {{"case", cs.name}, {"test", t.name}, {"type", to_string(t.type)}, {"from", "*"}, {"to", "*"}};
  std::vector<PingallHost> hosts = pingall_hosts(rc, topo);
  rc.progress.start(fmt::format("[{}] {} {} hosts, {} pairs", cs.name, t.name, hosts.size(),
                                hosts.size() * (hosts.size() - 1)));
  uint64_t t0 = monotonic_ns();
  // Switches whose first frames go to a controller and back (pingall paces by
  // them): the case's, built here or on other machines.
  PingallPath path;
  for (const auto& [name, sw] : cs.switches)
    if (sw.kind != SwitchKind::kLinuxBridge && !sw.controller.empty()) ++path.controller_switches;
  PingallOutcome o = run_pingall(t, hosts, 32, path);
  rec["elapsed_s"] = double(monotonic_ns() - t0) / 1e9;
  rc.progress.done(o.outcome.status == "ok" ? fmt::format("ok, {} pairs", o.outcome.metrics.value("pairs", 0))
                                            : o.outcome.status + ": " + o.outcome.reason);
  rec["status"] = o.outcome.status;
  if (!o.outcome.reason.empty()) rec["reason"] = o.outcome.reason;
  rec["metrics"] = o.outcome.metrics;
  rec["matrix"] = o.matrix;
  if (!o.pairs.is_null()) rec["pairs"] = o.pairs;
  rec["command"] = o.outcome.command;
  rec["raw"] = "";
  return rec;
}

json run_one_test(RunContext& rc, const CaseSpec& cs, const TestSpec& t, CaseTopology& topo,
                  const std::string& case_out) {
  json rec = {
      {"case", cs.name}, {"test", t.name}, {"type", to_string(t.type)}, {"from", t.from}, {"to", t.to}};
  std::string to_host = t.to.substr(0, t.to.find(':'));
  // A veth straight between the two hosts means no switch on the path (the
  // baseline of container-switch.yaml); explanations must not blame a switch.
  bool direct = std::any_of(rc.sc.links.begin(), rc.sc.links.end(), [&](const LinkSpec& l) {
    return (l.a.node == t.from && l.b.node == to_host) || (l.b.node == t.from && l.a.node == to_host);
  });
  rec["path"] = direct ? "direct" : "switched";
  TrafficCtx ctx;
  ctx.from_ns = topo.host_ns[t.from];
  ctx.to_ns = topo.host_ns[to_host];
  ctx.to_addr = *rc.sc.address_of(t.to);  // checked by validation
  ctx.out_dir = case_out;
  ctx.flowlab_bin = rc.flowlab_bin;
  ctx.state = &rc.state;
  auto rx_before = snmp_counters(ctx.to_ns);
  auto tx_before = snmp_counters(ctx.from_ns);
  rc.progress.start(fmt::format("[{}] {} {} -> {}", cs.name, t.name, t.from, t.to));
  SamplerConfig scfg{{{"core", topo.core_ns}}, ctx.from_ns, ctx.to_ns, case_out, 0.1, {}};
  for (const auto& [h, ns] : topo.host_ns) {
    scfg.namespaces.emplace_back(h, ns);
    if (ns != ctx.from_ns && ns != ctx.to_ns) scfg.processes_only.insert(ns);  // no traffic of the test
  }
  for (size_t li = 0; li < topo.handles.shaped.size(); ++li)  // explain: the shaped links' queues
    if (const ShapedLink* l = topo.handles.shaped[li])
      scfg.namespaces.emplace_back(
          topo.handles.link_names[li].first + "-" + topo.handles.link_names[li].second, l->wire_ns());
  if (!topo.ctl_ns.empty()) scfg.namespaces.emplace_back("ctl", topo.ctl_ns);  // controller_link
  for (const auto& [m, ns] : topo.machine_core_ns)  // across machines: each one's switches, where visible
    if (!ns.empty() && fs::exists("/run/netns/" + ns)) scfg.namespaces.emplace_back(machine_core_role(m), ns);
  auto sampler = std::make_unique<TestSampler>(std::move(scfg));
  uint64_t t0 = monotonic_ns();
  TestOutcome o;
  if (t.type == TestType::kProbe) {  // the probe runs the scenario's events
    ProbeHooks hooks{rc.sc.events, [&](const EventSpec& e) { return fire_event(e, topo.handles); },
                     controller_switches(topo.handles)};
    ProbeOutcome p = run_probe_test(t, ctx, hooks);
    o = std::move(p.outcome);
    rec["probe"] = std::move(p.probe);
    // The events as the line charts mark them (report_parts.h): probe time, close to sample time.
    json marks = json::array();
    for (const auto& e : rec["probe"].value("timeline", json::array()))
      marks.push_back({{"t_s", e.value("fired_at_s", 0.0)}, {"label", e.value("label", "event")}});
    rec["events"] = std::move(marks);
    rec["timeline_svg"] = std::move(p.svg);
    rec["probe_explain"] = p.explain;
    if (auto st = restore_after_events(topo.handles); !st.ok() && o.status == "ok") {
      o.status = "failed";
      o.reason = "restoring the network after the events: " + st.error().message;
    }
  } else if (t.events && !rc.sc.events.empty()) {  // any other test with `events: true`
    json tl = run_during_events(rc.sc.events, topo.handles, [&] { o = run_test(t, ctx); });
    json marks = json::array();
    for (const auto& e : tl)
      if (e.contains("fired_at_s"))
        marks.push_back({{"t_s", e.value("fired_at_s", 0.0)}, {"label", e.value("label", "event")}});
    rec["events"] = std::move(marks);
    rec["timeline"] = tl;
    for (const auto& e : tl)
      if (e.value("status", "") == "failed" && o.status == "ok") {
        o.status = "failed";
        o.reason = fmt::format("event '{}' failed: {}", e.value("label", ""), e.value("error", ""));
      }
    if (auto st = restore_after_events(topo.handles); !st.ok() && o.status == "ok") {
      o.status = "failed";
      o.reason = "restoring the network after the events: " + st.error().message;
    }
  } else {
    o = run_test(t, ctx);
  }
  rec["elapsed_s"] = double(monotonic_ns() - t0) / 1e9;
  rec["samples"] = sampler->finish();
  if (auto iv = intervals_json(o.raw); !iv.empty()) rec["samples"]["intervals"] = iv;
  add_stream_series(rec, o.raw, t.interval);  // explain: ping and probe streams as series
  std::string summary = o.status;
  if (o.status != "ok") summary += ": " + o.reason;
  rc.progress.done(summary);
  rec["status"] = o.status;
  if (!o.reason.empty()) rec["reason"] = o.reason;
  rec["metrics"] = o.metrics;
  rec["command"] = o.command;
  rec["raw"] = o.raw;
  rec["receiver_stack"] = counter_delta(rx_before, snmp_counters(ctx.to_ns));
  rec["sender_stack"] = counter_delta(tx_before, snmp_counters(ctx.from_ns));
  return rec;
}

}  // namespace flowlab::lab

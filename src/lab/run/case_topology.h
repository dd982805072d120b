// What one case of a lab run builds and owns (CaseTopology), the run's shared
// state (RunContext), and the bring-up that fills a CaseTopology (case_build.cpp).
// Internal to the lab's runner.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "lab/backend/backends.h"
#include "lab/capture/pcap_capture.h"
#include "lab/host/netns.h"
#include "lab/host/ns_processes.h"
#include "lab/host/run_state.h"
#include "lab/net/shaped_link.h"
#include "lab/net/vxlan.h"
#include "lab/run/case_events.h"
#include "lab/run/case_metrics.h"
#include "lab/run/machine_part.h"
#include "lab/run/progress_line.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

using nlohmann::json;

// Seconds per bring-up/teardown phase, into results.json ("phases") and the log.
struct PhaseClock {
  json& out;
  std::string case_name;
  uint64_t t0 = monotonic_ns();
  PhaseClock(json& o, std::string c) : out(o), case_name(std::move(c)) {}
  void lap(const std::string& phase, size_t items) {
    uint64_t now = monotonic_ns();
    double s = double(now - t0) / 1e9;
    out[phase + "_s"] = s;
    std::fprintf(stderr, "lab: [%s] %s: %zu in %.3f s\n", case_name.c_str(), phase.c_str(), items, s);
    t0 = now;
  }
};

// Everything one case creates. Destruction order (reverse of declaration): switches,
// controllers, then namespaces.
struct CaseTopology {
  json phases = json::object();           // bring-up, per phase
  json teardown_phases = json::object();  // filled by teardown()
  std::vector<Netns> namespaces;
  // links through wire namespaces (stopped before the hosts' namespaces
  // go) and the handles events act on.
  std::vector<std::unique_ptr<ShapedLink>> shaped;
  CaseHandles handles;
  std::map<std::string, std::string> host_ns;  // host -> namespace
  std::string core_ns;
  std::vector<std::unique_ptr<ControllerInstance>> controllers;
  std::vector<std::unique_ptr<SwitchInstance>> switches;
  // With a case's controller_link: the controllers' namespace and the shaped link
  // from the core namespace to it (stopped after the controllers).
  std::string ctl_ns;
  std::unique_ptr<ShapedLink> controller_link;
  json offloads = json::object();  // "h1:eth0" -> features
  // The links' captures (--capture): stopped first, before anything they watch goes.
  std::unique_ptr<LinkCaptures> capture;
  // The case's Prometheus (--metrics): stopped first too, before its targets go.
  std::unique_ptr<PrometheusServer> prometheus;
  // Across machines: the provider links' ends here (type: underlay, VLAN on the NIC).
  std::vector<std::unique_ptr<ProviderEnd>> providers;
  // Across machines: node -> machine, and what takes the other machines' parts down.
  std::map<std::string, std::string> placement;
  std::map<std::string, std::string>
      machine_core_ns;             // machine -> its core namespace (switches, controllers)
  json underlay = json::object();  // across machines: {"mtu", "rate_bps" when shaped}, for the verdicts
  // Across machines: the shaped links the agents built (shaped_link_records) as
  // they said when ready; remote_finish's records replace them at the end of the tests.
  json remote_links = json::array();
  std::function<void()> remote_down;
  // Across machines, at the end of the tests: stops every machine's captures and
  // delay lines; {"links": their shaped links' records, "capture": the capture
  // record, its files brought here, or null} (before remote_down: the files go
  // with the parts).
  std::function<json()> remote_finish;
  // The machines lost so far (machine -> why), asked before and after each test.
  std::function<std::map<std::string, std::string>()> lost_machines;
  // Across machines: what to tell of etcd when it could not be reached during the
  // case (the agents keep what they built; how to take it down), "" when it could.
  std::function<std::string()> etcd_lost;
  // Processes first (switches stop in parallel), then every namespace at once.
  // With `defer_switch_links` (an agent), the links between switches are not
  // deleted here but returned, their socket holding the core namespace past its
  // unmount, for the caller to delete once it has said the part is down.
  std::unique_ptr<LabLinksDelete> teardown(const std::string& case_name, bool defer_switch_links = false) {
    std::unique_ptr<LabLinksDelete> links_after_down;
    if (torn_down) return links_after_down;
    torn_down = true;
    PhaseClock clock(teardown_phases, case_name);
    if (prometheus) {
      if (!prometheus->stop())
        std::fprintf(stderr, "lab: [%s] prometheus did not exit cleanly; see %s\n", case_name.c_str(),
                     prometheus->options().dir.c_str());
      prometheus.reset();
      clock.lap("prometheus", 1);
    }
    if (capture) {
      (void)capture->finish();
      capture.reset();
      clock.lap("capture", 1);
    }
    if (remote_finish) {
      (void)remote_finish();
      remote_finish = nullptr;
      clock.lap("capture", 1);
    }
    if (remote_down) {
      remote_down();
      remote_down = nullptr;
      clock.lap("machines", placement.size());
    }
    size_t n = switches.size();
    // The switch host first: it closes all its switches at once.
    for (auto& s : switches)
      if (SwitchHostProcess* h = s->host()) h->stop();
    (void)parallel_for(n, 8, [&](size_t i) {
      SwitchKind k = switches[i]->spec().kind;
      if (k == SwitchKind::kFlowlab || k == SwitchKind::kLinuxBridge) switches[i].reset();
      return ok_status();
    });
    switches.clear();  // the OVS ones, one at a time
    for (auto& c : controllers) c->stop();
    controllers.clear();
    clock.lap("processes", n);
    n = shaped.size() + (controller_link ? 1 : 0);
    for (auto& s : shaped) s->finish();
    if (controller_link) controller_link->finish();
    clock.lap("shaped_links", n);
    n = 0;  // the plain links between two switches: those in the group
    for (size_t i = 0; i < handles.link_ends.size(); ++i) {
      const auto& [a, b] = handles.link_ends[i];
      n += !handles.shaped[i] && a.ns == core_ns && b.ns == core_ns;
    }
    // The links between switches, in one batch (netlink.h says why). None made,
    // no request: it would wait for the RTNL lock all the same, which the kernel
    // holds while it frees other namespaces (on emulated machines, the other
    // agents' parts going at the same time: 0.5-1 s).
    if (!core_ns.empty() && n > 0) {
      auto d = LabLinksDelete::open(core_ns);
      Status st = !d.ok() ? unexpected(d.error()) : ok_status();
      if (d.ok() && defer_switch_links)
        links_after_down = std::make_unique<LabLinksDelete>(std::move(*d));
      else if (d.ok())
        st = d->run();
      if (!st.ok()) std::fprintf(stderr, "lab: %s\n", st.error().message.c_str());
    }
    shaped.clear();
    controller_link.reset();
    clock.lap("switch_links", n);
    // What was started in the hosts and is still running there (a `lab exec ... &`, a
    // killed Mininet script's commands) would keep their namespaces alive.
    std::vector<std::string> host_namespaces;
    for (const auto& [host, ns] : host_ns) host_namespaces.push_back(ns);
    if (size_t killed = kill_processes_in_namespaces(host_namespaces))
      std::fprintf(stderr, "lab: [%s] ended %zu processes left in its hosts\n", case_name.c_str(), killed);
    n = namespaces.size();
    destroy_namespaces(namespaces);
    clock.lap("namespaces", n);
    return links_after_down;
  }
  bool torn_down = false;
  ~CaseTopology() { (void)teardown("teardown"); }
};

struct RunContext;
// What builds a case: build_case on one machine, the coordinator across machines.
using CaseBuilder =
    std::function<Status(RunContext&, const CaseSpec&, size_t, const std::string& case_out, CaseTopology&)>;

struct RunContext {
  const Scenario& sc;
  RunState& state;
  std::string out_dir;
  std::string flowlab_bin;
  ProgressLine progress;
  std::string repeat_dir;             // "/repeat-2" under each case's out dir with --repeat
  std::vector<size_t> capture_links;  // links captured from bring-up on (case_capture.h)
  uint64_t capture_max_bytes = 0;     // per link, 0: unbounded
  const MachinePart* part = nullptr;  // across machines: the part built here (machine_part.h)
  CaseBuilder build;                  // empty: build_case
  MetricsSettings metrics;            // --metrics: a Prometheus per case (case_metrics.h)
};

// Whether a switch of the case (other than a Linux bridge, which takes no
// controller) is wired to controller `name`.
inline bool controller_used(const CaseSpec& cs, const std::string& name) {
  return std::any_of(cs.switches.begin(), cs.switches.end(), [&](const auto& kv) {
    return kv.second.uses(name) && kv.second.kind != SwitchKind::kLinuxBridge;
  });
}

// Builds namespaces, links, addresses, offloads; starts controllers and switches.
Status build_case(RunContext& rc, const CaseSpec& cs, size_t ci, const std::string& case_out,
                  CaseTopology& topo);

}  // namespace flowlab::lab

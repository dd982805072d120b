// Plans in, statuses out: the coordinator's loop over etcd.
#include "lab/machines/coordinator.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "coord/watcher.h"
#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/machines/agent_status.h"
#include "lab/machines/finish_parts.h"
#include "lab/machines/keys.h"
#include "lab/machines/plan.h"
#include "lab/machines/remote_exec.h"
#include "lab/net/vxlan.h"
#include "lab/run/case_events.h"
#include "lab/run/runner.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// Wakes a waiting loop as soon as a key under `prefix` changes (a watch on it),
// or after `at_most` (a change before the watch began, the watch reconnecting):
// an agent's status is seen when it is written, not at the next poll.
class PrefixWake {
 public:
  PrefixWake(const coord::EtcdConfig& cfg, const std::string& prefix)
      : watcher_(cfg, {prefix}, [this](const coord::WatchUpdate&) {
          std::lock_guard<std::mutex> lock(mu_);
          changed_ = true;
          cv_.notify_one();
        }) {}
  void wait(std::chrono::milliseconds at_most) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, at_most, [this] { return changed_; });
    changed_ = false;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool changed_ = false;
  coord::Watcher watcher_;  // last: stopped before what its callback touches goes
};

}  // namespace

Coordinator::Coordinator(CoordinatorOptions opts, coord::EtcdConfig cfg)
    : opts_(std::move(opts)), cfg_(cfg), etcd_(cfg) {}

Result<std::unique_ptr<Coordinator>> Coordinator::connect(CoordinatorOptions opts) {
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(opts.etcd));
  std::unique_ptr<Coordinator> c(new Coordinator(std::move(opts), cfg));
  // One read up front: an unreachable etcd is an error before anything is planned.
  auto probe = c->etcd_.get(keys::kAgents);
  if (!probe.ok()) return fail("lab across machines: etcd: {}", probe.error().message);
  return c;
}

Coordinator::~Coordinator() {
  unroute();
  if (run_.empty()) return;
  (void)etcd_.erase_prefix(keys::pieces(run_));  // a capture's piece left by an interrupted transfer
  auto st = etcd_.erase_prefix(keys::run(run_));
  if (!st.ok())
    std::fprintf(stderr, "lab: could not erase run %s from etcd (%s): `flowlab lab down %s --etcd %s` does\n",
                 run_.c_str(), st.error().message.c_str(), run_.c_str(), opts_.etcd.c_str());
}

Result<std::map<std::string, std::string>> Coordinator::agents() {
  FLOWLAB_ASSIGN_OR_RETURN(auto reply, etcd_.get_prefix(keys::kAgents));
  std::map<std::string, std::string> out;
  for (const auto& kv : reply.kvs) {
    auto a = decode_agent(kv.value);
    if (!a.ok()) {
      std::fprintf(stderr, "lab: ignoring %s: %s\n", kv.key.c_str(), a.error().message.c_str());
      continue;
    }
    out[a->name] = a->underlay;
  }
  return out;
}

Status Coordinator::wait_agents(size_t n, double timeout_s) {
  uint64_t t0 = monotonic_ns();
  for (;;) {
    auto live = agents();
    if (live.ok() && live->size() >= n) return ok_status();
    if (seconds_since(t0) > timeout_s || interrupted())
      return fail("{} of {} agent(s) registered after {:.0f} s{}", live.ok() ? live->size() : 0, n, timeout_s,
                  live.ok() ? "" : ": " + live.error().message);
    std::this_thread::sleep_for(100ms);
  }
}

Status Coordinator::build(RunContext& rc, const CaseSpec& cs, size_t, const std::string& case_out,
                          CaseTopology& topo) {
  const Scenario& sc = rc.sc;
  FLOWLAB_ASSIGN_OR_RETURN(auto live, agents());
  if (live.empty())
    return fail("no agent is registered in etcd {} (start `flowlab lab agent` on each machine)", opts_.etcd);
  CasePlan plan;
  plan.run = rc.state.id();
  plan.case_name = cs.name;
  plan.file = opts_.file;
  plan.scenario = opts_.scenario_text;
  plan.vxlan_port = opts_.vxlan_port;
  plan.underlay_mtu = opts_.underlay_mtu;
  plan.capture = rc.capture_links;
  plan.capture_max_bytes = rc.capture_max_bytes;
  std::vector<std::string> names;
  for (const auto& [n, u] : live) {
    plan.machines[n] = {u, int(names.size())};
    names.push_back(n);
  }
  FLOWLAB_ASSIGN_OR_RETURN(plan.placement, place_nodes(sc, cs, names));
  // The controllers go where most of the switches are.
  std::map<std::string, int> switches_on;
  for (const auto& [n, s] : cs.switches) ++switches_on[plan.placement[n]];
  plan.controllers_on = names.front();
  for (const auto& [m, k] : switches_on)
    if (k > switches_on[plan.controllers_on]) plan.controllers_on = m;
  for (const auto& m : names) FLOWLAB_TRY(part_for(sc, cs, plan, m));  // refusals before anything is built
  auto cut = cut_links(sc, plan.placement);
  size_t provider =
      size_t(std::count_if(cut.begin(), cut.end(), [&](size_t li) { return sc.links[li].underlay; }));
  std::string vlans = provider ? fmt::format(", {} as VLANs on the underlay (provider links)", provider) : "";
  std::fprintf(
      stderr,
      "lab: [%s] across %zu machine(s) (%s): %zu link(s) cut, %zu carried as VXLAN (UDP %d)%s; inner MTU "
      "%d of the underlay's %d; controllers on %s\n",
      cs.name.c_str(), names.size(), fmt::format("{}", fmt::join(names, ", ")).c_str(), cut.size(),
      cut.size() - provider, plan.vxlan_port, vlans.c_str(), plan.underlay_mtu - kVxlanOverhead,
      plan.underlay_mtu, plan.controllers_on.c_str());
  if (run_.empty()) {
    run_ = plan.run;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    nlohmann::json rec = {{"scenario", sc.name},
                          {"file", opts_.file},
                          {"machines", names},
                          {"coordinator", {{"host", host}, {"pid", int(getpid())}}},
                          {"started_at", monotonic_ns()}};
    FLOWLAB_TRY(etcd_.put(keys::record(run_), rec.dump()));
  }
  topo.placement = plan.placement;
  placement_ = plan.placement;
  machines_ = names;
  topo.underlay = {{"mtu", opts_.underlay_mtu}};
  if (opts_.underlay_rate_bps > 0) topo.underlay["rate_bps"] = opts_.underlay_rate_bps;
  topo.remote_down = [this, name = cs.name] {
    Status st = take_down(name);
    if (!st.ok()) std::fprintf(stderr, "lab: [%s] %s\n", name.c_str(), st.error().message.c_str());
  };
  etcd_lost_.clear();
  uint64_t case_t0 = monotonic_ns();
  topo.lost_machines = [this, names, case_t0] {
    std::map<std::string, std::string> lost;
    auto live = agents();
    if (!live.ok()) {  // etcd unreachable from here says nothing of the machines, but is told
      if (etcd_lost_.empty())
        etcd_lost_ = fmt::format(
            "etcd {} could not be reached {:.1f} s into the case ({}); the agents keep what they built; once "
            "it "
            "is back, `flowlab lab down {} --etcd {}` takes the run down on every machine",
            opts_.etcd, seconds_since(case_t0), live.error().message, run_, opts_.etcd);
      return lost;
    }
    for (const auto& m : names)
      if (!live->count(m)) lost[m] = "its agent's lease expired (killed, or its link to etcd cut)";
    return lost;
  };
  topo.etcd_lost = [this] { return etcd_lost_; };
  PrefixWake wake(cfg_, keys::statuses(run_));  // before the plan: the statuses it brings
  FLOWLAB_TRY(etcd_.put(keys::plan(run_), encode_plan(plan)));
  // Every machine's status for this case: ready, failed, or its agent gone.
  PhaseClock clock(topo.phases, cs.name);
  rc.progress.start(
      fmt::format("[{}] waiting for {} machine(s) to build their parts", cs.name, names.size()));
  uint64_t t0 = monotonic_ns();
  std::map<std::string, AgentStatus> ready;
  // Failures are gathered for a moment (every machine says what it could not
  // do, e.g. each one that cannot reach a peer's underlay), then reported together.
  std::map<std::string, std::string> failed;
  uint64_t first_failed = 0;
  constexpr double kFailedGrace = 6;  // past an agent's check of its peers (check_peers: 2 x 2 s)
  Status st = ok_status();
  while (ready.size() < names.size()) {
    if (interrupted()) {
      st = fail("interrupted");
      break;
    }
    if (seconds_since(t0) > opts_.ready_timeout_s) {
      std::vector<std::string> waiting;
      for (const auto& m : names)
        if (!ready.count(m)) waiting.push_back(m);
      st = fail("machine(s) {} not ready after {:.0f} s", fmt::join(waiting, ", "), opts_.ready_timeout_s);
      break;
    }
    auto statuses = etcd_.get_prefix(keys::statuses(run_));
    auto now_live = agents();
    if (!statuses.ok() || !now_live.ok()) {
      std::this_thread::sleep_for(100ms);
      continue;
    }
    for (const auto& kv : statuses->kvs) {
      auto s = decode_status(kv.value);
      if (!s.ok()) {
        st = fail("{}: {}", kv.key, s.error().message);
        break;
      }
      if (s->case_name != cs.name) continue;
      if (s->state == "failed") failed[s->machine] = s->error;
      if (s->state == "ready") ready[s->machine] = std::move(*s);
    }
    if (!st.ok()) break;
    for (const auto& m : names)
      if (!now_live->count(m) && !ready.count(m))
        failed[m] = "its agent is gone (its lease expired: killed, or its link to etcd cut)";
    if (!failed.empty() && !first_failed) first_failed = monotonic_ns();
    if (!failed.empty() &&
        (ready.size() + failed.size() >= names.size() || seconds_since(first_failed) > kFailedGrace)) {
      std::vector<std::string> each;
      for (const auto& [m, why] : failed) each.push_back(fmt::format("machine {}: {}", m, why));
      st = fail("{}", fmt::join(each, "; "));
      break;
    }
    if (ready.size() < names.size()) wake.wait(100ms);  // a lost agent: seen within 100 ms
  }
  rc.progress.done(st.ok() ? "ready" : "failed");
  FLOWLAB_TRY(st);
  // The case as the tests see it: every host's namespace, every link's two ends.
  topo.handles.link_names = link_names(sc);
  topo.handles.link_ends.assign(sc.links.size(), {});
  topo.handles.shaped.assign(sc.links.size(), nullptr);
  for (const auto& [m, s] : ready) {
    topo.phases["machine_" + m + "_s"] = s.build_s;
    topo.machine_core_ns[m] = s.core_ns;
    for (const auto& l : s.shaped_links) topo.remote_links.push_back(l);
    for (const auto& [h, ns] : s.host_ns) topo.host_ns[h] = ns;
    for (size_t li = 0; li < s.link_ends.size() && li < sc.links.size(); ++li) {
      auto& [a, b] = topo.handles.link_ends[li];
      const auto& [sa, sb] = s.link_ends[li];
      if (!sa.first.empty()) a = {sa.first, sa.second};
      if (!sb.first.empty()) b = {sb.first, sb.second};
    }
  }
  // A host whose namespace is not here is on another machine: its commands go
  // to that machine's agent (remote_exec.h).
  std::map<std::string, std::shared_ptr<AgentExec>> execs;
  for (const auto& [m, s] : ready) {
    execs[m] = std::make_shared<AgentExec>(cfg_, run_, m);
    for (const auto& [h, ns] : s.host_ns) {
      if (fs::exists("/run/netns/" + ns) && !opts_.exec_on_agents) continue;
      route_netns(ns, execs[m]);
      routed_.push_back(ns);
    }
  }
  // Events go to the machines they touch: a link's to both ends' (the far end
  // first when it comes up), a node's to where it runs.
  auto placement = plan.placement;
  std::string controllers_on = plan.controllers_on;
  auto names_of_links = link_names(sc);
  const Scenario* scp = &sc;
  topo.handles.remote_event = [execs, placement, controllers_on, names_of_links,
                               scp](const EventSpec& e) -> Status {
    ExecEvent x{std::string(to_string(e.action)), e.node, e.link_a, e.link_b, e.set};
    std::vector<std::string> where;
    if (e.is_link()) {
      int i = find_link(e, names_of_links);
      if (i < 0) return fail("no link {}-{}", e.link_a, e.link_b);
      const auto& l = scp->links[size_t(i)];
      std::string ma = placement.count(l.a.node) ? placement.at(l.a.node) : "",
                  mb = placement.count(l.b.node) ? placement.at(l.b.node) : "";
      where = e.action == EventAction::kLinkUp ? std::vector<std::string>{mb, ma}
                                               : std::vector<std::string>{ma, mb};
      if (ma == mb) where.pop_back();
    } else {
      where = {placement.count(e.node) ? placement.at(e.node) : controllers_on};
    }
    for (const auto& m : where) {
      auto it = execs.find(m);
      if (it == execs.end()) return fail("{}: no machine {} in this case", e.label, m);
      FLOWLAB_TRY(it->second->fire(x));
    }
    return ok_status();
  };
  // The end of the tests: each machine's delay lines' counters and capture files (finish_parts.h).
  std::map<std::string, MachineFinish> finish;
  for (const auto& [m, s] : ready) finish[m] = {execs[m], s.shaped_links};
  topo.remote_finish = [finish, captures = !plan.capture.empty(), dir = case_out + "/capture"] {
    return finish_parts(finish, captures, dir);
  };
  topo.handles.remote_restore = [execs]() -> Status {
    Status first = ok_status();
    for (const auto& [m, e] : execs)
      if (Status st = e->restore(); !st.ok() && first.ok()) first = st;
    return first;
  };
  if (!routed_.empty())
    std::fprintf(stderr, "lab: [%s] %zu host(s) on other machines: their commands go through their agents\n",
                 cs.name.c_str(), routed_.size());
  clock.lap("machines", names.size());
  return ok_status();
}

void Coordinator::unroute() {
  for (const auto& ns : routed_) route_netns(ns, nullptr);
  routed_.clear();
}

Status Coordinator::take_down(const std::string& case_name) {
  unroute();
  if (run_.empty()) return ok_status();
  PrefixWake wake(cfg_, keys::statuses(run_));
  FLOWLAB_TRY(etcd_.erase(keys::plan(run_)));
  uint64_t t0 = monotonic_ns();
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(auto left, etcd_.get_prefix(keys::statuses(run_)));
    if (left.kvs.empty()) return ok_status();
    if (seconds_since(t0) > 60) {
      std::vector<std::string> keys_left;
      for (const auto& kv : left.kvs) keys_left.push_back(kv.key);
      return fail("case {}: still reported after 60 s: {}", case_name, fmt::join(keys_left, ", "));
    }
    wake.wait(100ms);
  }
}

Status down_run(const std::string& etcd, const std::string& run_id) {
  if (run_id.empty() || run_id.find('/') != std::string::npos)
    return fail("lab down: bad run id '{}'", run_id);
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(etcd));
  coord::EtcdClient client(cfg);
  // The plan first: the agents tear down and remove their statuses; a dead
  // agent's status goes with its lease.
  FLOWLAB_ASSIGN_OR_RETURN(auto any, client.get_prefix(keys::run(run_id)));
  if (any.kvs.empty()) return fail("run {} is not in etcd {}", run_id, etcd);
  FLOWLAB_TRY(client.erase(keys::plan(run_id)));
  uint64_t t0 = monotonic_ns();
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(auto left, client.get_prefix(keys::statuses(run_id)));
    if (left.kvs.empty()) break;
    if (seconds_since(t0) > 60) return fail("run {}: agents still report parts of it after 60 s", run_id);
    std::this_thread::sleep_for(100ms);
  }
  FLOWLAB_TRY(client.erase_prefix(keys::pieces(run_id)));
  FLOWLAB_TRY(client.erase_prefix(keys::run(run_id)));
  std::fprintf(stderr, "lab: run %s taken down on every machine\n", run_id.c_str());
  return ok_status();
}

}  // namespace flowlab::lab

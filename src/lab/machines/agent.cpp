// The agent's registration, its reconcile loop, and one built part per run.
#include "lab/machines/agent.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "coord/etcd_client.h"
#include "coord/lease_keeper.h"
#include "coord/watcher.h"
#include "core/clock.h"
#include "lab/capture/link_select.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab/machines/agent_status.h"
#include "lab/machines/keys.h"
#include "lab/machines/plan.h"
#include "lab/machines/remote_exec.h"
#include "lab/net/vxlan.h"
#include "lab/run/case_events.h"
#include "lab/run/case_topology.h"

namespace flowlab::lab {

namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

// The agent wakes on a watch of the runs' keys: a plan or a command for it.
// Without one (the watch reconnecting, an event compacted away) it still
// reconciles every kFull, and looks at its children every kChildren.
constexpr auto kFull = 1000ms;
constexpr auto kChildren = 200ms;

// One run's part as built here, and what it needs to stay up.
struct Built {
  std::string run, case_name;
  int64_t plan_revision = 0;
  std::unique_ptr<Scenario> sc;
  std::unique_ptr<RunState> state;
  MachinePart part;
  std::unique_ptr<CaseTopology> topo;
  std::unique_ptr<ExecServer> exec;  // the tests' commands for this machine's hosts
  // The links between switches, left by teardown(true) (CaseTopology::teardown's defer_switch_links).
  std::unique_ptr<LabLinksDelete> links_left;
  json down_phases = json::object();  // the part's teardown phases, for the agent's log

  // With links_after, the links between switches stay for delete_links_left,
  // after the status: their delete would wait for the RTNL lock behind the
  // kernel's frees of the other parts' namespaces on one shared kernel.
  void teardown(bool links_after = false) {
    exec.reset();  // its children first: they run in the namespaces below
    if (topo) {
      links_left = topo->teardown(case_name, links_after);
      down_phases = std::move(topo->teardown_phases);
    }
    topo.reset();
    state.reset();  // removes the state file: nothing it recorded is left
    if (!links_after) delete_links_left();
  }

  // How many link groups it deleted (0 or 1).
  size_t delete_links_left() {
    if (!links_left) return 0;
    Status st = links_left->run();
    if (!st.ok()) std::fprintf(stderr, "lab: %s\n", st.error().message.c_str());
    links_left.reset();
    return 1;
  }
};

// An event request as the runner's events are: what fire_event takes.
EventSpec to_event(const ExecEvent& x) {
  EventSpec e;
  e.action = x.action == "down"   ? EventAction::kLinkDown
             : x.action == "up"   ? EventAction::kLinkUp
             : x.action == "kill" ? EventAction::kKill
             : x.action == "set"  ? EventAction::kSet
                                  : EventAction::kStart;
  e.node = x.node;
  e.set = x.set;
  e.link_a = x.link_a;
  e.link_b = x.link_b;
  return e;
}

// Every other machine of the plan answers on the underlay from here (a ping
// from this machine's underlay address, each peer at once, two tries): a tunnel
// to an address that does not answer would carry nothing, so the part is
// refused before anything is built, naming the machine and the address.
Status check_peers(const CasePlan& plan, const AgentOptions& o) {
  std::vector<std::pair<std::string, std::string>> peers;
  for (const auto& [n, m] : plan.machines)
    if (n != o.name) peers.emplace_back(n, m.underlay);
  std::vector<std::string> why(peers.size());
  (void)parallel_for(peers.size(), 8, [&](size_t i) -> Status {
    CommandResult r;
    for (int attempt = 0; attempt < 2 && !r.ok(); ++attempt)
      r = run_command({"ping", "-n", "-q", "-c", "1", "-W", "2", "-I", o.underlay, peers[i].second},
                      in_ns(o.underlay_ns, 5));
    if (!r.ok())
      why[i] = fmt::format("machine {}'s underlay address {} does not answer from {} ({})", peers[i].first,
                           peers[i].second, o.underlay, r.exit_code == 1 ? "no reply to ping" : r.describe());
    return ok_status();
  });
  std::vector<std::string> bad;
  for (const auto& w : why)
    if (!w.empty()) bad.push_back(w);
  if (bad.empty()) return ok_status();
  return fail(
      "{}: its tunnels would carry nothing; nothing was built (check each machine's --underlay address and "
      "the network between the machines)",
      fmt::join(bad, "; "));
}

// A finished capture record as the coordinator takes it: each file by its name
// alone (the coordinator asks for it so), and which machine captured which ends
// of the link ("captured_at": inbound at each, so the directions arriving there).
void label_captures(nlohmann::json& rec, const CaseHandles& h, const std::vector<size_t>& links,
                    const std::string& machine) {
  auto names = link_display_names(h.link_names);
  std::map<std::string, nlohmann::json> ends_here;
  for (size_t li : links) {
    nlohmann::json at = nlohmann::json::array();
    const auto& [a, b] = h.link_ends.at(li);
    if (!a.ns.empty()) at.push_back(h.link_names[li].first);
    if (!b.ns.empty()) at.push_back(h.link_names[li].second);
    ends_here[names[li]] = std::move(at);
  }
  for (auto& l : rec) {
    l["machine"] = machine;
    l["captured_at"] = ends_here[l.value("link", "")];
    for (const char* k : {"file", "previous_file"})
      if (l.contains(k)) l[k] = fs::path(l[k].get<std::string>()).filename().string();
  }
}

// The shaped links built here as results.json records them, each with its machine.
nlohmann::json machine_link_records(const CaseHandles& h, const std::string& machine) {
  nlohmann::json out = shaped_link_records(h);
  for (auto& l : out) l["machine"] = machine;
  return out;
}

// The end of the tests on this machine (AgentExec::finish_part): the captures
// and the delay lines stopped, their records; the capture files named there
// are the ones the coordinator may fetch (`files`).
nlohmann::json finish_part(CaseTopology& topo, const std::vector<size_t>& captured,
                           const std::string& machine, std::set<std::string>& files) {
  nlohmann::json rec = nlohmann::json::array();
  if (topo.capture) {
    rec = topo.capture->finish();
    label_captures(rec, topo.handles, captured, machine);
    for (const auto& l : rec)
      for (const char* k : {"file", "previous_file"})
        if (l.contains(k)) files.insert(l[k].get<std::string>());
  }
  for (ShapedLink* l : topo.handles.shaped)
    if (l) l->finish();  // the delay lines' counters final
  return {{"capture", rec}, {"links", machine_link_records(topo.handles, machine)}};
}

// Up to `bytes` of `path` from `offset` (fewer at its end).
Result<std::string> read_piece(const std::string& path, uint64_t offset, size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot open {}", path);
  in.seekg(std::streamoff(offset));
  std::string out(bytes, '\0');
  in.read(out.data(), std::streamsize(bytes));
  out.resize(size_t(in.gcount()));
  return out;
}

class Agent {
 public:
  explicit Agent(const AgentOptions& o, coord::EtcdConfig cfg) : opts_(o), cfg_(cfg), etcd_(cfg) {}

  Status run() {
    FLOWLAB_TRY(register_self());
    std::fprintf(stderr, "lab agent %s: registered (underlay %s%s), watching %s\n", opts_.name.c_str(),
                 opts_.underlay.c_str(),
                 opts_.underlay_ns.empty() ? "" : (" in netns " + opts_.underlay_ns).c_str(),
                 std::string(keys::kRuns).c_str());
    start_watch();
    bool etcd_down = false;
    auto last_full = std::chrono::steady_clock::now() - kFull;
    while (!interrupted()) {
      if (!keeper_ || keeper_->lost()) {  // lost: etcd said the lease is gone
        if (keeper_) {
          std::fprintf(stderr, "lab agent %s: lease lost; tearing down %zu run(s) and registering again\n",
                       opts_.name.c_str(), built_.size());
          for (auto& [id, b] : built_) b.teardown();
          built_.clear();
          keeper_.reset();
        }
        Status st = register_self();
        if (!st.ok()) {
          std::fprintf(stderr, "lab agent %s: %s\n", opts_.name.c_str(), st.error().message.c_str());
          sleep_unless_interrupted(1);
        }
        continue;
      }
      bool full = false;
      {
        std::unique_lock<std::mutex> lock(wake_mu_);
        wake_cv_.wait_for(lock, built_.empty() ? kFull : kChildren,
                          [this] { return plans_changed_ || execs_changed_; });
        full = plans_changed_ || etcd_down || std::chrono::steady_clock::now() - last_full >= kFull;
        plans_changed_ = execs_changed_ = false;
      }
      if (full) last_full = std::chrono::steady_clock::now();
      Status st = full ? reconcile() : serve_execs();
      if (!st.ok() && !etcd_down)
        std::fprintf(stderr, "lab agent %s: %s (what stands stays up; retrying)\n", opts_.name.c_str(),
                     st.error().message.c_str());
      etcd_down = !st.ok();
    }
    watcher_.reset();
    std::fprintf(stderr, "lab agent %s: stopping: tearing down %zu run(s)\n", opts_.name.c_str(),
                 built_.size());
    for (auto& [id, b] : built_) take_down(id, b);
    built_.clear();
    if (keeper_) {
      keeper_->stop();
      (void)etcd_.lease_revoke(keeper_->lease_id());
    }
    return ok_status();
  }

 private:
  // The agent's key, created only if absent; a key left by this agent's previous
  // life waits out its lease (at most a TTL) before the name counts as taken.
  Status register_self() {
    FLOWLAB_ASSIGN_OR_RETURN(auto grant, etcd_.lease_grant(opts_.ttl_s));
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string info = encode_agent({opts_.name, opts_.underlay, int(getpid()), host});
    std::string key = keys::agent(opts_.name);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(opts_.ttl_s + 1);
    for (;;) {
      coord::Txn txn;
      txn.compare.push_back(coord::Compare::absent(key));
      txn.success.push_back(coord::TxnOp::put(key, info, grant.id));
      txn.failure.push_back(coord::TxnOp::get(key));
      FLOWLAB_ASSIGN_OR_RETURN(auto reply, etcd_.txn(txn));
      if (reply.succeeded) break;
      std::string holder = "?";
      if (!reply.responses.empty() && !reply.responses[0].range.kvs.empty())
        holder = reply.responses[0].range.kvs[0].value;
      if (std::chrono::steady_clock::now() > deadline || interrupted()) {
        (void)etcd_.lease_revoke(grant.id);
        return fail("an agent named {} is already running: {} (stop it, or pick another --name)", opts_.name,
                    holder);
      }
      std::this_thread::sleep_for(250ms);
    }
    // etcd away is not the lease gone: what stands stays up until etcd says so.
    keeper_ = std::make_unique<coord::LeaseKeeper>(
        cfg_, grant.id, opts_.ttl_s,
        [this](const std::string& why) {
          std::fprintf(stderr, "lab agent %s: %s\n", opts_.name.c_str(), why.c_str());
        },
        std::chrono::milliseconds(0), false);
    return ok_status();
  }

  void start_watch() {
    coord::WatchOptions wo;
    wo.prefix = std::string(keys::kRuns);
    watcher_ = std::make_unique<coord::Watcher>(cfg_, wo, [this](const coord::WatchUpdate& u) {
      bool plans = u.compacted, execs = false;
      for (const auto& e : u.events) {
        std::string id = keys::run_of(e.kv.key);
        if (e.kv.key == keys::plan(id)) plans = true;
        if (e.kv.key.rfind(keys::execs(id, opts_.name), 0) == 0) execs = true;
      }
      if (!plans && !execs) return;
      std::lock_guard<std::mutex> lock(wake_mu_);
      plans_changed_ = plans_changed_ || plans;
      execs_changed_ = execs_changed_ || execs;
      wake_cv_.notify_one();
    });
  }

  // A run's part down, then its status and the commands' replies erased in one
  // write: the coordinator waits for the statuses to go, so each write here is
  // on its path. The links between switches go after that write, from a socket
  // holding their unmounted namespace (Built::teardown says why).
  void take_down(const std::string& id, Built& b) {
    uint64_t t0 = monotonic_ns();
    if (b.exec) b.exec->leave_replies();
    b.teardown(true);
    uint64_t t1 = monotonic_ns();
    coord::Txn txn;
    txn.success.push_back(coord::TxnOp::erase(keys::status(id, opts_.name)));
    txn.success.push_back(coord::TxnOp::erase(keys::replies(id, opts_.name), true));
    (void)etcd_.txn(txn);
    uint64_t t2 = monotonic_ns();
    size_t groups = b.delete_links_left();
    std::fprintf(
        stderr,
        "lab agent %s: run %s: down in %.3f s (the part %.3f s, its keys %.3f s); then the switches' "
        "links: %zu group(s) in %.3f s; the part's phases %s\n",
        opts_.name.c_str(), id.c_str(), double(t2 - t0) / 1e9, double(t1 - t0) / 1e9, double(t2 - t1) / 1e9,
        groups, double(monotonic_ns() - t2) / 1e9, b.down_phases.dump().c_str());
  }

  // The tests' commands for this machine, of every run built here.
  Status serve_execs() {
    for (auto& [id, b] : built_) {
      if (!b.exec) continue;
      FLOWLAB_ASSIGN_OR_RETURN(auto got, etcd_.get_prefix(keys::execs(id, opts_.name)));
      b.exec->serve(got.kvs);
    }
    return ok_status();
  }

  Status reconcile() {
    FLOWLAB_ASSIGN_OR_RETURN(auto runs, etcd_.get_prefix(keys::kRuns));
    std::map<std::string, const coord::KeyValue*> plans;  // run -> its plan naming this machine
    std::map<std::string, CasePlan> decoded;
    for (const auto& kv : runs.kvs) {
      std::string id = keys::run_of(kv.key);
      if (id.empty() || kv.key != keys::plan(id)) continue;
      auto plan = decode_plan(kv.value);
      if (!plan.ok()) {
        report_failed(id, "", plan.error().message);
        continue;
      }
      if (!plan->machines.count(opts_.name)) continue;
      plans[id] = &kv;
      decoded[id] = std::move(*plan);
    }
    // Down first: a run whose plan is gone, or names another case now.
    for (auto it = built_.begin(); it != built_.end();) {
      auto p = plans.find(it->first);
      if (p != plans.end() && p->second->mod_revision == it->second.plan_revision) {
        ++it;
        continue;
      }
      std::fprintf(stderr, "lab agent %s: run %s case %s: tearing down (%s)\n", opts_.name.c_str(),
                   it->first.c_str(), it->second.case_name.c_str(),
                   p == plans.end() ? "its plan is gone" : "a new plan");
      take_down(it->first, it->second);
      it = built_.erase(it);
    }
    for (auto it = failed_.begin(); it != failed_.end();) {  // a failed part's status goes with its plan
      if (plans.count(it->first)) {
        ++it;
        continue;
      }
      (void)etcd_.erase(keys::status(it->first, opts_.name));
      it = failed_.erase(it);
    }
    for (const auto& [id, kv] : plans) {
      if (built_.count(id) || (failed_.count(id) && failed_[id] == kv->mod_revision)) continue;
      build(id, kv->mod_revision, decoded.at(id));
    }
    for (auto& [id, b] : built_)
      if (b.exec) b.exec->serve(runs.kvs);
    return ok_status();
  }

  void put_status(const std::string& run, const AgentStatus& s) {
    auto st = etcd_.put(keys::status(run, opts_.name), encode_status(s), keeper_->lease_id());
    if (!st.ok())
      std::fprintf(stderr, "lab agent %s: run %s: %s\n", opts_.name.c_str(), run.c_str(),
                   st.error().message.c_str());
  }

  void report_failed(const std::string& run, const std::string& case_name, const std::string& why) {
    std::fprintf(stderr, "lab agent %s: run %s: %s\n", opts_.name.c_str(), run.c_str(), why.c_str());
    AgentStatus s;
    s.machine = opts_.name;
    s.case_name = case_name;
    s.state = "failed";
    s.error = why;
    put_status(run, s);
  }

  void build(const std::string& id, int64_t revision, const CasePlan& plan) {
    uint64_t t0 = monotonic_ns();
    Built b;
    b.run = id;
    b.case_name = plan.case_name;
    b.plan_revision = revision;
    auto fail_once = [&](const std::string& why) {
      failed_[id] = revision;
      report_failed(id, plan.case_name, why);
    };
    put_status(id, {opts_.name, plan.case_name, "building", "", "", {}, {}, 0, nlohmann::json::array()});
    nlohmann::json steps;  // the steps before the build's own phases, in the log
    PhaseClock clock(steps, plan.case_name);
    auto sc = parse_scenario(plan.scenario, plan.file);
    if (!sc.ok()) return fail_once(sc.error().message);
    b.sc = std::make_unique<Scenario>(std::move(*sc));
    size_t ci = 0;
    while (ci < b.sc->cases.size() && b.sc->cases[ci].name != plan.case_name) ++ci;
    if (ci == b.sc->cases.size()) return fail_once("the scenario has no case " + plan.case_name);
    const CaseSpec& cs = b.sc->cases[ci];
    auto part = part_for(*b.sc, cs, plan, opts_.name);
    if (!part.ok()) return fail_once(part.error().message);
    b.part = std::move(*part);
    clock.lap("plan", b.part.nodes.size());
    if (Status reach = check_peers(plan, opts_); !reach.ok()) return fail_once(reach.error().message);
    clock.lap("peers", plan.machines.size() - 1);
    b.part.underlay_ns = opts_.underlay_ns;
    b.part.underlay_addr = opts_.underlay;
    b.part.underlay_dev = opts_.underlay_dev;
    auto state = RunState::create(state_label());
    if (!state.ok()) return fail_once(state.error().message);
    b.state = std::move(*state);
    std::string out = b.state->dir() + "/out";
    std::error_code ec;
    fs::create_directories(out + "/" + cs.name, ec);
    size_t halves = 0;  // shaped links between machines: this machine shapes its way out
    for (const auto& [li, t] : b.part.tunnels) halves += !t.vlan && link_needs_wire(*b.sc, li);
    std::string shaped = halves ? fmt::format(", {} shaped half(s)", halves) : "";
    std::fprintf(stderr,
                 "lab agent %s: run %s case %s: building %zu node(s), %zu tunnel(s)%s, inner MTU %d%s\n",
                 opts_.name.c_str(), id.c_str(), cs.name.c_str(), b.part.nodes.size(), b.part.tunnels.size(),
                 shaped.c_str(), b.part.tunnel_mtu, b.part.controllers ? ", the controllers" : "");
    for (size_t li : plan.capture)
      if (li >= b.sc->links.size())
        return fail_once(
            fmt::format("the plan captures link {}; the scenario has {}", li, b.sc->links.size()));
    RunContext rc{*b.sc,   *b.state, out, self_binary(), {}, {}, plan.capture, plan.capture_max_bytes,
                  &b.part, {},       {}};
    b.topo = std::make_unique<CaseTopology>();
    Status st = build_case(rc, cs, ci, out + "/" + cs.name, *b.topo);
    if (!st.ok()) {
      b.teardown();
      return fail_once(st.error().message);
    }
    AgentStatus s{opts_.name, plan.case_name,         "ready", "", b.topo->core_ns, b.topo->host_ns, {},
                  0,          nlohmann::json::array()};
    for (const auto& [a, z] : b.topo->handles.link_ends)
      s.link_ends.push_back({{a.ns, a.ifname}, {z.ns, z.ifname}});
    s.shaped_links = machine_link_records(b.topo->handles, opts_.name);
    s.build_s = double(monotonic_ns() - t0) / 1e9;
    std::fprintf(stderr, "lab agent %s: run %s case %s: ready in %.2f s\n", opts_.name.c_str(), id.c_str(),
                 cs.name.c_str(), s.build_s);
    CaseHandles* h = &b.topo->handles;
    CaseTopology* topo = b.topo.get();
    std::string capture_dir = out + "/" + cs.name + "/capture";
    auto shipped = std::make_shared<std::set<std::string>>();  // the files the record named
    EventHooks hooks{[h](const ExecEvent& x) { return fire_event(to_event(x), *h); },
                     [h] { return restore_after_events(*h); },
                     [topo, name = opts_.name, links = plan.capture, shipped]() -> Result<nlohmann::json> {
                       return finish_part(*topo, links, name, *shipped);
                     },
                     [capture_dir, shipped](const std::string& file, uint64_t offset,
                                            size_t bytes) -> Result<std::string> {
                       if (!shipped->count(file)) return fail("no capture file {} here", file);
                       return read_piece(capture_dir + "/" + file, offset, bytes);
                     }};
    b.exec = std::make_unique<ExecServer>(cfg_, id, opts_.name, b.state.get(), out, std::move(hooks));
    put_status(id, s);
    failed_.erase(id);
    built_.emplace(id, std::move(b));
  }

  std::string state_label() const { return "agent-" + opts_.name; }

  AgentOptions opts_;
  coord::EtcdConfig cfg_;
  coord::EtcdClient etcd_;
  std::unique_ptr<coord::LeaseKeeper> keeper_;
  std::map<std::string, Built> built_;
  std::map<std::string, int64_t> failed_;  // run -> the plan revision that failed here
  std::unique_ptr<coord::Watcher> watcher_;
  std::mutex wake_mu_;
  std::condition_variable wake_cv_;
  bool plans_changed_ = true, execs_changed_ = false;  // under wake_mu_
};

}  // namespace

Status run_agent(const AgentOptions& opts) {
  if (opts.name.empty() || opts.name.find('/') != std::string::npos)
    return fail("lab agent: --name must be a machine name without '/' (got '{}')", opts.name);
  if (opts.underlay.empty())
    return fail("lab agent: --underlay ADDRESS is required (this machine's tunnel end)");
  if (opts.ttl_s < 1 || opts.ttl_s > 60) return fail("lab agent: --ttl must be 1-60 s");
  if (geteuid() != 0) return fail("flowlab lab agent needs root (network namespaces); try sudo");
  FLOWLAB_ASSIGN_OR_RETURN(auto cfg, coord::parse_endpoints(opts.etcd));
  // The tunnels' end must be an address of this machine (of --underlay-netns
  // when given): every other machine's VXLAN to it would go nowhere.
  if (!opts.underlay_ns.empty() && !fs::exists("/run/netns/" + opts.underlay_ns))
    return fail("lab agent: --underlay-netns {}: no such namespace", opts.underlay_ns);
  auto dev = interface_with_address(opts.underlay_ns, opts.underlay);
  if (!dev.ok())
    return fail(
        "lab agent: --underlay {} is not an address of this machine{}: the other machines' tunnels would "
        "go nowhere",
        opts.underlay, opts.underlay_ns.empty() ? "" : " (in netns " + opts.underlay_ns + ")");
  install_signal_handlers();
  // What this agent's previous life left: its own runs only.
  auto rep = clean_runs(false, "agent-" + opts.name);
  for (const auto& a : rep.actions)
    std::fprintf(stderr, "lab agent %s: cleaned: %s\n", opts.name.c_str(), a.c_str());
  AgentOptions with_dev = opts;
  with_dev.underlay_dev = *dev;  // provider links' VLANs go on it
  Agent agent(with_dev, cfg);
  return agent.run();
}

}  // namespace flowlab::lab

// The lab run: for each case, build the topology in fresh namespaces, start the
// controllers and switches, run the tests, collect the counters that explain them,
// tear everything down; then write results.json and the report.
//
// Ownership: a CaseTopology owns the case's namespaces and backend instances; its
// members are declared so that processes stop before namespaces go. SIGINT/SIGTERM
// only set a flag (process.h): every wait returns early, the case unwinds through
// the destructors, and the partial results are still written.
#include "lab/run/runner.h"

#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "core/clock.h"
#include "lab/backend/backends.h"
#include "lab/explain/explain.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/host/run_state.h"
#include "lab/net/shaped_link.h"
#include "lab/report/repeat.h"
#include "lab/report/report.h"
#include "lab/run/case_capture.h"
#include "lab/run/case_events.h"
#include "lab/run/case_topology.h"
#include "lab/run/progress_line.h"
#include "lab/run/run_test.h"
#include "lab/run/test_machines.h"
#include "lab/run/topology_record.h"
#include "lab/scenario/topology.h"
#include "lab/traffic/pingall.h"
#include "lab/traffic/traffic.h"

namespace flowlab::lab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string now_iso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string case_skip_reason(const CaseSpec& cs, const std::string& bin) {
  for (const auto& [n, s] : cs.switches)
    if (auto m = missing_peer(s); !m.empty()) return m;
  for (const auto& [n, c] : cs.controllers) {
    bool used = controller_used(cs, n);
    if (used)
      if (auto m = missing_peer(c, bin); !m.empty()) return m;
  }
  return {};
}

json case_config(const CaseSpec& cs) {
  json j = {{"name", cs.name}, {"description", cs.description}, {"offloads", cs.offloads}};
  for (const auto& [n, s] : cs.switches) {
    j["switches"][n] = {
        {"kind", to_string(s.kind)}, {"controller", s.controller}, {"security_group", s.security_group}};
    if (!s.more_controllers.empty()) j["switches"][n]["more_controllers"] = s.more_controllers;
    if (!s.protocols.empty()) j["switches"][n]["protocols"] = s.protocols;
  }
  j["controllers"] = json::object();  // only those a switch of the case uses
  for (const auto& [n, c] : cs.controllers) {
    if (c.kind == ControllerKind::kNone || !controller_used(cs, n)) continue;
    j["controllers"][n] = {{"kind", to_string(c.kind)}, {"apps", c.apps}, {"app_file", c.app_file}};
    if (c.kind == ControllerKind::kRemote) {  // port 0: 6653, else 6633, looked up at start
      j["controllers"][n]["address"] = c.address;
      j["controllers"][n]["port"] = c.port;
    }
  }
  return j;
}

// Runs one case; appends its test records to `results` and returns the case record.
json run_case(RunContext& rc, const CaseSpec& cs, size_t ci, json& results) {
  json rec = case_config(cs);
  std::string case_out = rc.out_dir + "/" + cs.name + rc.repeat_dir;
  std::error_code ec;
  fs::create_directories(case_out, ec);
  std::vector<const TestSpec*> tests;
  for (const auto& t : rc.sc.tests)
    if (cs.tests.empty() || std::find(cs.tests.begin(), cs.tests.end(), t.name) != cs.tests.end())
      tests.push_back(&t);
  auto mark_all = [&](const std::string& status, const std::string& reason) {
    for (const TestSpec* t : tests)
      results.push_back({{"case", cs.name},
                         {"test", t->name},
                         {"type", to_string(t->type)},
                         {"from", t->from},
                         {"to", t->to},
                         {"status", status},
                         {"reason", reason},
                         {"metrics", json::object()}});
  };
  if (auto why = case_skip_reason(cs, rc.flowlab_bin); !why.empty()) {
    std::fprintf(stderr, "lab: [%s] skipped: %s\n", cs.name.c_str(), why.c_str());
    rec["status"] = "skipped";
    rec["reason"] = why;
    mark_all("skipped", why);
    return rec;
  }
  CaseTopology topo;
  auto st = rc.build ? rc.build(rc, cs, ci, case_out, topo) : build_case(rc, cs, ci, case_out, topo);
  if (!topo.placement.empty()) rec["placement"] = topo.placement;
  if (!topo.underlay.empty()) rec["underlay"] = topo.underlay;
  rec["offload_state"] = topo.offloads;
  if (!st.ok()) {
    topo.teardown(cs.name);
    rec["phases"] = {{"up", topo.phases}, {"down", topo.teardown_phases}};
    std::string why = interrupted() ? "interrupted" : st.error().message;
    std::fprintf(stderr, "lab: [%s] setup failed: %s\n", cs.name.c_str(), why.c_str());
    rec["status"] = "failed";
    rec["reason"] = "setup: " + why;
    mark_all("failed", "setup: " + why);
    return rec;
  }
  if (cs.settle_s > 0) {
    std::vector<PingallHost> hosts = pingall_hosts(rc, topo);
    rc.progress.start(
        fmt::format("[{}] waiting up to {:.0f} s until every host answers", cs.name, cs.settle_s));
    double took = wait_reachable(hosts, cs.settle_s);
    rc.progress.done(took >= 0 ? fmt::format("settled after {:.1f} s", took)
                               : "not settled (tests run anyway)");
    rec["settle_s"] = took >= 0 ? json(took) : json(nullptr);
  }
  // Warm-up: one answered ping per pair lets learning switches learn and ARP settle
  // (pingall measures from cold, as Mininet's does).
  for (const TestSpec* t : tests) {
    if (t->type == TestType::kPingall) continue;
    auto addr = rc.sc.address_of(t->to);
    for (int i = 0; i < 5 && !interrupted(); ++i)
      if (ping_once(topo.host_ns[t->from], *addr)) break;
  }
  bool failed = false;
  auto bytes_before =
      topo.core_ns.empty() ? std::map<std::string, long long>{} : interface_bytes(topo.core_ns);
  uint64_t tests_t0 = monotonic_ns();
  double tests_t0_unix = unix_now();
  std::map<std::string, std::string> lost;  // across machines: machine -> why it was lost
  for (const TestSpec* t : tests) {
    if (interrupted()) {
      results.push_back({{"case", cs.name},
                         {"test", t->name},
                         {"type", to_string(t->type)},
                         {"status", "skipped"},
                         {"reason", "interrupted"},
                         {"metrics", json::object()}});
      continue;
    }
    if (topo.lost_machines) lost = topo.lost_machines();
    if (auto why = lost_reason(rc.sc, topo, *t, lost); !why.empty()) {  // not run: its machine is gone
      results.push_back({{"case", cs.name},
                         {"test", t->name},
                         {"type", to_string(t->type)},
                         {"from", t->from},
                         {"to", t->to},
                         {"machine", test_machines(topo, *t)},
                         {"status", "lost"},
                         {"reason", why},
                         {"metrics", json::object()}});
      failed = true;
      continue;
    }
    json r = t->type == TestType::kPingall ? run_pingall_test(rc, cs, *t, topo)
                                           : run_one_test(rc, cs, *t, topo, case_out);
    if (!topo.placement.empty()) {  // across machines: where each end ran, and whether it still is
      r["machine"] = test_machines(topo, *t);
      if (auto how = test_crossing(rc.sc, topo, *t); !how.empty()) r["crossing"] = how;
      if (json cpu = cpu_by_machine(topo, r); !cpu.empty()) r["cpu_by_machine"] = cpu;
      if (topo.lost_machines) lost = topo.lost_machines();
      if (auto why = lost_reason(rc.sc, topo, *t, lost); !why.empty()) {
        r["status"] = "lost";
        r["reason"] = why;
      }
    }
    failed |= r["status"] == "failed" || r["status"] == "lost";
    results.push_back(std::move(r));
  }
  if (!lost.empty()) rec["lost_machines"] = lost;
  if (std::string why = topo.etcd_lost ? topo.etcd_lost() : ""; !why.empty()) {
    rec["etcd_lost"] = why;
    std::fprintf(stderr, "lab: [%s] %s\n", cs.name.c_str(), why.c_str());
  }
  if (topo.capture) rec["capture"] = topo.capture->finish();  // files closed, per link counts
  json remote_links = topo.remote_links;
  if (topo.remote_finish) {  // across machines: each machine's delay lines' counters and capture files
    json fin = topo.remote_finish();
    topo.remote_finish = nullptr;
    if (!fin["capture"].is_null()) rec["capture"] = fin["capture"];
    remote_links = fin["links"];
  }
  if (topo.prometheus) rec["metrics"] = case_metrics_record(*topo.prometheus, tests_t0_unix, unix_now());
  // Bytes per switch-side interface over the tests: the load on each link (topology picture).
  rec["tests_elapsed_s"] = double(monotonic_ns() - tests_t0) / 1e9;
  json link_bytes = json::object();
  for (const auto& [ifn, b] : topo.core_ns.empty() ? bytes_before : interface_bytes(topo.core_ns))
    if (ifn != "lo") link_bytes[ifn] = b - (bytes_before.count(ifn) ? bytes_before[ifn] : 0);
  rec["link_bytes"] = link_bytes;
  // per shaped link, its shape and the mechanisms that made it.
  for (ShapedLink* l : topo.handles.shaped)
    if (l) l->finish();
  json links = shaped_link_records(topo.handles);
  for (const auto& l : remote_links) links.push_back(l);
  if (!links.empty()) rec["links"] = std::move(links);
  json counters = json::object();
  // The bridges' counters from one netlink dump of the core namespace, not one per bridge.
  std::vector<LinkInfo> core_links;
  bool bridges = std::any_of(topo.switches.begin(), topo.switches.end(),
                             [](const auto& s) { return s->spec().kind == SwitchKind::kLinuxBridge; });
  auto dumped = bridges ? namespace_links(topo.core_ns) : Result<std::vector<LinkInfo>>(core_links);
  for (auto& s : topo.switches) counters[s->spec().name] = s->counters(dumped.ok() ? &*dumped : nullptr);
  rec["switch_counters"] = counters;
  // Controllers write their statistics as they run and on exit: stop first, then read.
  json stats = json::object();
  for (auto& c : topo.controllers) {
    c->stop();
    stats[c->spec().name] = c->stats();
  }
  rec["controller_stats"] = stats;
  // The control channel's own shaped link (controller_link): its shape, one-way delay
  // and delay-line counters, read once the controllers are gone.
  if (topo.controller_link) {
    topo.controller_link->finish();
    json j = topo.controller_link->to_json();
    j["delay_ms"] = double(cs.controller_link->delay_ns.value_or(0)) / 1e6;
    j["shape"] = cs.controller_link->to_json();
    rec["controller_link"] = std::move(j);
  }
  rec["status"] = interrupted() ? "interrupted" : failed ? "failed" : "ok";
  topo.teardown(cs.name);
  rec["phases"] = {{"up", topo.phases}, {"down", topo.teardown_phases}};
  return rec;
}

}  // namespace

Status with_case_built(const Scenario& sc, size_t ci, RunState& state, const std::string& out_dir,
                       const CaptureOptions& capture, bool metrics, const WhileUp& while_up,
                       const std::function<Status(RunContext&, const CaseSpec&, size_t, const std::string&,
                                                  CaseTopology&)>& build) {
  FLOWLAB_ASSIGN_OR_RETURN(auto capture_links, capture_selection(sc, capture.links, sc.path));
  FLOWLAB_ASSIGN_OR_RETURN(auto metrics_on, metrics_settings(sc, metrics, bool(build)));
  RunContext rc{sc,      state, out_dir,       self_binary(),
                {},      {},    capture_links, uint64_t(capture.max_mb * 1e6),
                nullptr, build, metrics_on};
  const CaseSpec& cs = sc.cases.at(ci);
  if (auto why = case_skip_reason(cs, rc.flowlab_bin); !why.empty()) return fail("case {}: {}", cs.name, why);
  std::string case_out = out_dir + "/" + cs.name;
  std::error_code ec;
  fs::create_directories(case_out, ec);
  CaseTopology topo;
  FLOWLAB_TRY(build ? build(rc, cs, ci, case_out, topo) : build_case(rc, cs, ci, case_out, topo));
  while_up(topo.host_ns, links_record(topo.handles),
           topo.prometheus ? topo.prometheus->record() : nlohmann::json(nullptr), topo.handles);
  return ok_status();
}

Result<int> run_scenario(const std::string& file, const RunOptions& opts) {
  FLOWLAB_ASSIGN_OR_RETURN(Scenario sc, opts.scenario_text.empty()
                                            ? load_scenario(file)
                                            : parse_scenario(opts.scenario_text, file));
  for (const auto& w : sc.warnings) std::fprintf(stderr, "%s\n", w.c_str());
  if (opts.quick) make_quick(sc);
  if (!opts.only_case.empty()) {
    std::erase_if(sc.cases, [&](const CaseSpec& c) { return c.name != opts.only_case; });
    if (sc.cases.empty()) return fail("{}: no case named '{}'", file, opts.only_case);
  }
  // Before anything exists: a capture of a link the scenario lacks leaves nothing behind.
  FLOWLAB_ASSIGN_OR_RETURN(auto capture_links, capture_selection(sc, opts.capture.links, file));
  if (opts.capture.max_mb <= 0) return fail("--capture-max must be more than 0 MB");
  FLOWLAB_ASSIGN_OR_RETURN(auto metrics, metrics_settings(sc, opts.metrics, bool(opts.build)));
  if (geteuid() != 0) return fail("flowlab lab run needs root (network namespaces); try sudo");
  install_signal_handlers();
  FLOWLAB_ASSIGN_OR_RETURN(auto state, RunState::create(sc.name));
  std::string out =
      opts.out_dir.empty() ? fmt::format("lab-results/{}-{}", sc.name, state->id()) : opts.out_dir;
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return fail("cannot create the out dir {}: {}", out, ec.message());
  out = fs::canonical(out).string();
  std::fprintf(stderr, "lab: scenario %s (%s), run %s, %zu case(s) x %zu test(s), results in %s\n",
               sc.name.c_str(), file.c_str(), state->id().c_str(), sc.cases.size(), sc.tests.size(),
               out.c_str());

  RunContext rc{sc,      *state,     out,           self_binary(),
                {},      {},         capture_links, uint64_t(opts.capture.max_mb * 1e6),
                nullptr, opts.build, metrics};
  json doc = {{"scenario",
               {{"name", sc.name},
                {"file", opts.scenario_text.empty() ? fs::absolute(file).string() : file},
                {"description", sc.description}}},
              {"topology", topology_record(sc, sc.cases.front())},
              {"run_id", state->id()},
              {"started_at", now_iso()},
              {"quick", opts.quick},
              {"cases", json::array()},
              {"results", json::array()}};
  bool any_failed = false;
  // --repeat: cases interleaved (A1 B1 A2 B2 ...); the first repeat's case records stay.
  const int repeats = std::max(1, opts.repeat);
  for (int rep = 0; rep < repeats; ++rep) {
    rc.repeat_dir = repeats > 1 ? fmt::format("/repeat-{}", rep + 1) : "";
    for (size_t i = 0; i < sc.cases.size(); ++i) {
      const auto& cs = sc.cases[i];
      if (interrupted()) {
        if (rep == 0)
          doc["cases"].push_back({{"name", cs.name}, {"status", "skipped"}, {"reason", "interrupted"}});
        continue;
      }
      std::fprintf(stderr, "lab: case %zu/%zu%s: %s%s%s\n", i + 1, sc.cases.size(),
                   repeats > 1 ? fmt::format(", repeat {}/{}", rep + 1, repeats).c_str() : "",
                   cs.name.c_str(), cs.description.empty() ? "" : " - ", cs.description.c_str());
      size_t first = doc["results"].size();
      json c = run_case(rc, cs, i, doc["results"]);
      if (repeats > 1)
        for (size_t k = first; k < doc["results"].size(); ++k) doc["results"][k]["repeat"] = rep + 1;
      any_failed |= c["status"] == "failed";
      if (rep == 0) doc["cases"].push_back(std::move(c));
    }
  }
  if (repeats > 1) {
    doc["repeat"] = repeats;
    doc["results_by_repeat"] = doc["results"];
    doc["results"] = aggregate_repeats(doc["results_by_repeat"]);
  }
  doc["finished_at"] = now_iso();
  doc["interrupted"] = interrupted();
  auto save = [&] {
    std::ofstream f(out + "/results.json");
    f << doc.dump(2) << "\n";
  };
  save();  // the measurements are safe before any rendering
  try {
    annotate_explanations(doc);
    save();
    std::fputs(render_table(doc).c_str(), stdout);
    FLOWLAB_TRY(write_html_report(out, doc));
  } catch (const json::exception& e) {
    return fail("rendering the report failed ({}); the results are in {}/results.json", e.what(), out);
  }
  std::fprintf(stdout, "\nresults: %s/results.json\nreport:  %s/report.html\n", out.c_str(), out.c_str());
  std::fflush(stdout);
  if (interrupted()) return 128 + interrupt_signal();
  return any_failed ? 1 : 0;
}

Result<std::string> validate_scenario(const std::string& file, const std::string& text) {
  FLOWLAB_ASSIGN_OR_RETURN(Scenario sc, text.empty() ? load_scenario(file) : parse_scenario(text, file));
  FLOWLAB_TRY(capture_selection(sc, {}, file));
  std::string s = fmt::format(
      "{}: ok: scenario '{}', {} host(s), {} switch(es), {} link(s), {} case(s), {} test(s)\n", file, sc.name,
      sc.hosts.size(), sc.cases.front().switches.size(), sc.links.size(), sc.cases.size(), sc.tests.size());
  if (!sc.generator.empty()) s += fmt::format("  topology {}\n", sc.generator);
  for (const auto& w : sc.warnings) s += w + "\n";
  for (const auto& c : sc.cases) {
    // Per switch "s1=ovs+flowlab(learning-switch)"; past 8 switches, counted by that description.
    std::map<std::string, int> kinds;
    std::string parts;
    for (const auto& [n, sw] : c.switches) {
      std::string what(to_string(sw.kind));
      if (sw.stp) what += "(stp)";
      if (!sw.controller.empty() && c.controllers.count(sw.controller)) {
        const auto& ct = c.controllers.at(sw.controller);
        what += fmt::format("+{}", to_string(ct.kind));
        if (!ct.apps.empty()) what += fmt::format("({})", fmt::join(ct.apps, ","));
        if (!ct.app_file.empty()) what += fmt::format("({})", fs::path(ct.app_file).filename().string());
        if (ct.kind == ControllerKind::kRemote)
          what += fmt::format("({}:{})", ct.address, ct.port ? ct.port : 6653);
        if (!sw.more_controllers.empty()) what += fmt::format("+{} more", sw.more_controllers.size());
      }
      parts += fmt::format(" {}={}", n, what);
      ++kinds[what];
    }
    if (c.switches.size() > 8) {
      parts.clear();
      for (const auto& [what, k] : kinds) parts += fmt::format(" {} x {}", k, what);
    }
    s += fmt::format("  case {}:{} offloads {}\n", c.name, parts, c.offloads ? "on" : "off");
  }
  return s;
}

Status rerender_report(const std::string& dir) {
  std::ifstream in(dir + "/results.json");
  if (!in) return fail("{}/results.json: cannot open", dir);
  json doc;
  try {
    in >> doc;
  } catch (const json::exception& e) {
    return fail("{}/results.json: {}", dir, e.what());
  }
  try {
    annotate_explanations(doc);
    std::fputs(render_table(doc).c_str(), stdout);
    FLOWLAB_TRY(write_html_report(dir, doc));
  } catch (const json::exception& e) {
    return fail("{}/results.json: unexpected content: {}", dir, e.what());
  }
  std::fprintf(stdout, "\nreport: %s/report.html\n", dir.c_str());
  return ok_status();
}

Status diff_runs(const std::string& old_path, const std::string& new_path) {
  FLOWLAB_ASSIGN_OR_RETURN(json a, load_results(old_path));
  FLOWLAB_ASSIGN_OR_RETURN(json b, load_results(new_path));
  try {
    annotate_explanations(a);  // verdicts of runs recorded before they existed
    annotate_explanations(b);
    std::fputs(diff_results(a, b).c_str(), stdout);
  } catch (const json::exception& e) {
    return fail("unexpected results.json content: {}", e.what());
  }
  return ok_status();
}

}  // namespace flowlab::lab

// The probe test run (see probe_test.h).
#include "lab/traffic/probe_test.h"

#include <fstream>
#include <thread>

#include "core/clock.h"
#include "lab/format/svg_chart.h"
#include "lab/host/process.h"
#include "lab/traffic/probe.h"
#include "lab/traffic/probe_analysis.h"

namespace flowlab::lab {

namespace {

constexpr int kPort = 7002;

ProbeOutcome failed(std::string why, std::string raw = {}) {
  ProbeOutcome p;
  p.outcome.status = "failed";
  p.outcome.reason = std::move(why);
  p.outcome.raw = std::move(raw);
  return p;
}

}  // namespace

ProbeOutcome run_probe_test(const TestSpec& t, const TrafficCtx& c, const ProbeHooks& hooks) {
  if (routed_netns(c.from_ns) || routed_netns(c.to_ns))
    return failed(
        "a probe times sender and receiver on one clock: both hosts must be on the machine that runs "
        "the tests (one of them is on another machine)");
  std::string base = c.out_dir + "/" + t.name;
  std::string arrivals = base + "-arrivals.json";
  std::remove(arrivals.c_str());
  auto rx = Process::spawn("probe receiver",
                           {c.flowlab_bin, "lab", "probe-recv", "--port", std::to_string(kPort), "--out",
                            arrivals, "--max", fmt::format("{}", t.duration + 60)},
                           in_ns(c.to_ns), base + "-receiver.log", c.state);
  if (!rx.ok()) return failed(rx.error().message);
  uint64_t deadline = monotonic_ns() + 15'000'000'000ULL;
  while (rx->log_tail(300).find("probe receiver ready") == std::string::npos) {
    if (!rx->running()) return failed("probe receiver exited: " + rx->log_tail(300));
    if (monotonic_ns() > deadline) return failed("probe receiver not ready after 15 s");
    if (!sleep_unless_interrupted(0.02)) return failed("interrupted");
  }
  // Sender, timeline and analysis share one time zero: the sender's first packet.
  uint64_t start = monotonic_ns() + 500'000'000ULL;
  uint64_t interval_ns = uint64_t(t.interval * 1e9);
  std::vector<std::string> argv = {c.flowlab_bin,
                                   "lab",
                                   "probe-send",
                                   "--host",
                                   c.to_addr,
                                   "--port",
                                   std::to_string(kPort),
                                   "--duration",
                                   fmt::format("{}", t.duration),
                                   "--interval-us",
                                   fmt::format("{}", double(interval_ns) / 1e3),
                                   "--size",
                                   std::to_string(t.size),
                                   "--start-at",
                                   std::to_string(start)};
  // The events fire on this thread (processes they start must outlive it: see
  // Timeline::run_here); the sender runs on its own until it is done.
  Timeline tl(hooks.events, hooks.fire);
  CommandResult r;
  std::thread sending([&] {
    r = run_command(argv, in_ns(c.from_ns, t.duration + 20));
    tl.cancel();
  });
  tl.run_here(start);
  sending.join();
  sleep_unless_interrupted(0.5);  // the last packets may still be in a delay line
  rx->stop();
  ProbeOutcome p;
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  p.outcome.command = cmd;
  p.outcome.raw = r.out + r.err;
  p.probe["timeline"] = tl.fired();
  if (!r.ok()) {
    auto f = failed("probe sender: " + r.describe(), p.outcome.raw);
    f.probe = p.probe;
    return f;
  }
  nlohmann::json sender;
  try {
    sender = nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    return failed(std::string("probe sender output is not JSON: ") + e.what(), p.outcome.raw);
  }
  auto got = read_probe_arrivals(arrivals);
  if (!got.ok()) return failed(got.error().message, p.outcome.raw);
  ProbeRun run;
  run.start_ns = sender.value("start_ns", uint64_t(0));
  run.interval_ns = sender.value("interval_ns", interval_ns);
  run.sent = sender.value("sent", uint64_t(0));
  run.arrivals = std::move(*got);
  nlohmann::json a = analyze_probe(run, p.probe["timeline"]);
  p.outcome.metrics = a["metrics"];
  p.outcome.metrics["send_errors"] = sender.value("send_errors", 0);
  p.outcome.metrics["sender_max_late_ms"] = sender.value("max_late_us", 0.0) / 1e3;
  double worst = 0;
  for (const auto& e : a["events"]) worst = std::max(worst, e.value("recovery_s", 0.0));
  if (!a["events"].empty()) p.outcome.metrics["max_recovery_s"] = worst;
  p.probe["sender"] = sender;
  p.probe["events"] = a["events"];
  p.probe["series"] = a["series"];
  p.probe["offered_pps"] = a["offered_pps"];
  p.probe["duration_s"] = a["duration_s"];
  p.explain = explain_probe(a, hooks.controller_switches);
  for (const auto& e : p.probe["timeline"])
    if (e.value("status", "") == "failed" && p.outcome.status == "ok") {
      p.outcome.status = "failed";
      p.outcome.reason = fmt::format("event '{}' failed: {}", e.value("label", ""), e.value("error", ""));
    }
  p.svg = probe_timeline_svg(a, fmt::format("{}: delivered packets/s, {} -> {}", t.name, t.from, t.to));
  std::ofstream(base + "-timeline.svg") << p.svg << "\n";
  return p;
}

std::string probe_report_html(const nlohmann::json& r) {
  if (!r.contains("probe")) return {};
  std::string h = r.value("timeline_svg", "");
  const auto& evs = r["probe"].value("events", nlohmann::json::array());
  if (evs.empty()) return h;
  h += "<table><tr><th>event</th><th>fired at</th><th>first lost</th><th>first delivered after</th>"
       "<th>lost</th><th>recovery</th></tr>";
  for (const auto& e : evs) {
    auto seq = [&](const char* k, const char* at) {
      return e.contains(k) ? fmt::format("#{} ({:.3f} s)", e.value(k, 0), e.value(at, 0.0))
                           : std::string("-");
    };
    h += fmt::format("<tr><td>{}</td><td>{:.3f} s</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                     markup_escape(e.value("label", "")), e.value("fired_at_s", 0.0),
                     seq("first_lost_seq", "first_lost_at_s"),
                     seq("first_delivered_seq", "first_delivered_at_s"), e.value("lost", 0),
                     e.value("recovered", false) ? fmt::format("{:.3f} s", e.value("recovery_s", 0.0))
                                                 : std::string("not recovered"));
  }
  return h + "</table>";
}

}  // namespace flowlab::lab

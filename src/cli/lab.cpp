// `flowlab lab`: argument parsing only; the lab itself is in src/lab (runner.h).
//   flowlab lab run FILE [--out DIR] [--only CASE] [--quick] [--repeat N]
//   flowlab lab validate FILE
//   flowlab lab clean [--force]
//   flowlab lab report DIR
//   flowlab lab diff OLD NEW
// Hidden helpers the lab runs inside host namespaces (tcp-rr test):
//   flowlab lab tcp-rr-server --port P [--timeout S]
//   flowlab lab tcp-rr-client --host A --port P [--count N] [--size B] [--timeout S]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "lab/run_state.h"
#include "lab/runner.h"
#include "lab/tcp_rr.h"

namespace flowlab::cli {

namespace {

int error_exit(const std::string& msg, int code = 1) {
  std::fprintf(stderr, "flowlab lab: error: %s\n", msg.c_str());
  return code;
}

}  // namespace

int run_lab(int argc, char** argv) {
  CLI::App app{
      "flowlab lab: build topologies in namespaces, run traffic against flowlab and its peers, report",
      "flowlab lab"};
  app.require_subcommand(1);

  auto* run = app.add_subcommand(
      "run", "run a scenario: every case x every test; writes results.json and report.html");
  std::string file, out, only;
  bool quick = false;
  run->add_option("FILE", file, "scenario YAML")->required();
  run->add_option("--out", out, "output directory (default lab-results/<scenario>-<runid>)");
  run->add_option("--only", only, "run only this case");
  run->add_flag("--quick", quick, "shorter tests (smoke run)");
  int repeat = 1;
  run->add_option("--repeat", repeat, "run each case N times, interleaved; medians and min-max")
      ->check(CLI::Range(1, 100));

  auto* validate = app.add_subcommand("validate", "check a scenario file without side effects");
  validate->add_option("FILE", file, "scenario YAML")->required();

  auto* clean = app.add_subcommand("clean", "remove namespaces/processes that crashed runs left");
  bool force = false;
  clean->add_flag("--force", force, "also clean runs whose lab process is still alive");

  auto* report = app.add_subcommand("report", "re-render report.html and the table from DIR/results.json");
  std::string dir;
  report->add_option("DIR", dir, "a run's output directory")->required();

  auto* diff =
      app.add_subcommand("diff", "compare two runs: figures moved beyond their spread, verdicts changed");
  std::string old_run, new_run;
  diff->add_option("OLD", old_run, "results.json or a run's output directory")->required();
  diff->add_option("NEW", new_run, "results.json or a run's output directory")->required();

  auto* rr_server = app.add_subcommand("tcp-rr-server", "tcp-rr echo server (used by the lab)");
  auto* rr_client = app.add_subcommand("tcp-rr-client", "tcp-rr client (used by the lab); prints JSON");
  rr_server->group("");
  rr_client->group("");
  int port = 7001, count = 1000, size = 64;
  double timeout = 10;
  std::string host;
  rr_server->add_option("--port", port);
  rr_server->add_option("--timeout", timeout);
  rr_client->add_option("--host", host)->required();
  rr_client->add_option("--port", port);
  rr_client->add_option("--count", count);
  rr_client->add_option("--size", size);
  rr_client->add_option("--timeout", timeout);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (*run) {
    lab::RunOptions o;
    o.out_dir = out;
    o.only_case = only;
    o.quick = quick;
    o.repeat = repeat;
    auto r = lab::run_scenario(file, o);
    if (!r.ok()) return error_exit(r.error().message, 2);
    return *r;
  }
  if (*validate) {
    auto r = lab::validate_scenario(file);
    if (!r.ok()) return error_exit(r.error().message, 2);
    std::fputs(r->c_str(), stdout);
    return 0;
  }
  if (*clean) {
    auto rep = lab::clean_runs(force);
    for (const auto& a : rep.actions) std::printf("%s\n", a.c_str());
    for (const auto& k : rep.kept) std::printf("kept %s (use --force)\n", k.c_str());
    if (rep.actions.empty() && rep.kept.empty()) std::printf("nothing to clean\n");
    return 0;
  }
  if (*report) {
    auto st = lab::rerender_report(dir);
    return st.ok() ? 0 : error_exit(st.error().message);
  }
  if (*diff) {
    auto st = lab::diff_runs(old_run, new_run);
    return st.ok() ? 0 : error_exit(st.error().message);
  }
  if (*rr_server) {
    auto st = lab::tcp_rr_server(port, timeout);
    return st.ok() ? 0 : error_exit(st.error().message);
  }
  if (*rr_client) {
    auto r = lab::tcp_rr_client(host, port, count, size, timeout);
    if (!r.ok()) return error_exit(r.error().message);
    std::printf("%s\n", r->dump().c_str());
    return 0;
  }
  return 2;
}

}  // namespace flowlab::cli

// `flowlab switch-host`: many switches in one process (sw::SwitchHost), each
// added over the control socket with the arguments of `flowlab switch`. Exit
// codes: 0 after SIGINT/SIGTERM (every hosted switch stopped), 2 for a bad
// option or a control socket that cannot be bound.
#include "switch/switch_host.h"

#include <malloc.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/switch_args.h"
#include "core/log.h"
#include "kernel/fast_path.h"
#include "metrics/metrics_server.h"
#include "metrics/switch_metrics.h"
#include "switch/switch.h"

namespace flowlab::cli {
namespace {

// A hosted switch and its --metrics server; destroying it stops both.
class CliHostedSwitch final : public sw::HostedSwitch {
 public:
  ~CliHostedSwitch() override {
    if (metrics_server) metrics_server->stop();
    if (sw) sw->stop();
  }
  std::unique_ptr<sw::Switch> sw;
  metrics::Registry registry;
  std::unique_ptr<metrics::MetricsServer> metrics_server;
};

Result<std::unique_ptr<sw::HostedSwitch>> build_hosted(const std::vector<std::string>& args,
                                                       kernel::FastPathPool& pool) {
  FLOWLAB_ASSIGN_OR_RETURN(auto cmd, parse_switch_command(args));
  if (!cmd.help.empty()) return fail("--help is not a switch");
  auto hosted = std::make_unique<CliHostedSwitch>();
  FLOWLAB_ASSIGN_OR_RETURN(hosted->sw, sw::Switch::create(cmd.opts, &pool));
  metrics::add_switch_collector(hosted->registry, *hosted->sw);
  if (!cmd.metrics.empty()) {
    hosted->metrics_server = std::make_unique<metrics::MetricsServer>(hosted->registry);
    FLOWLAB_TRY(hosted->metrics_server->start(cmd.metrics));
  }
  FLOWLAB_TRY(hosted->sw->start());
  return std::unique_ptr<sw::HostedSwitch>(std::move(hosted));
}

}  // namespace

int run_switch_host(int argc, char** argv) {
  mallopt(M_ARENA_MAX, 1);  // as `flowlab switch` (switch.cpp)
  CLI::App app{
      "flowlab switch-host: many OpenFlow switches in one process, each added over a control socket "
      "with the arguments of `flowlab switch` (lines `add NAME ARG...`, `stop NAME`, `start NAME`, "
      "`remove NAME`, `list`; fields tab-separated)",
      "flowlab switch-host"};
  std::string control, log_level = "info";
  app.add_option("--control", control, "path of the control socket (unix stream)")->required();
  app.add_option("--log-level", log_level, "debug|info|warn|error");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    return error_exit("switch-host", e.what(), 2);
  }
  log::Level level;
  if (!log::parse_level(log_level, level))
    return error_exit("switch-host", "--log-level " + log_level + ": expected debug|info|warn|error", 2);
  log::set_level(level);

  sigset_t stop_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGINT);
  sigaddset(&stop_set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  // The switches' eBPF fast paths: datapaths of as few loaded programs as hold them.
  kernel::FastPathPool pool;
  auto host = sw::SwitchHost::open(
      control, [&pool](const std::vector<std::string>& args) { return build_hosted(args, pool); });
  if (!host.ok()) return error_exit("switch-host", host.error().message, 2);
  (*host)->start();
  log::info("switch-host", "control socket {}", control);
  int sig = 0;
  sigwait(&stop_set, &sig);
  log::info("switch-host", "got {}, stopping every switch", sig == SIGINT ? "SIGINT" : "SIGTERM");
  (*host)->close();
  return 0;
}

}  // namespace flowlab::cli

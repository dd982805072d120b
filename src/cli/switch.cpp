// `flowlab switch`: command-line parsing for the userspace OpenFlow switch.
//
// Only collects and checks options (src/switch/options.h does the checking);
// the switch itself is sw::Switch. Exit codes: 0 after SIGINT/SIGTERM, 2 for a
// bad option / missing interface / busy port before anything starts, 1 for a
// failure while running.
#include "switch/switch.h"

#include <malloc.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/switch_args.h"
#include "core/log.h"
#include "metrics/metrics_server.h"
#include "metrics/switch_metrics.h"

namespace flowlab::cli {
namespace {

int error_exit(const std::string& msg) {
  std::fprintf(stderr, "flowlab switch: error: %s\n", msg.c_str());
  return 2;
}

}  // namespace

int run_switch(int argc, char** argv) {
  // One heap for every thread: the agent thread, which builds the flow
  // tables, would otherwise get a heap of its own that glibc grows a page at
  // a time (an mprotect each: ~15 % of filling a 1M-flow table), where the
  // main heap grows by M_TOP_PAD (main.cpp). Forwarding threads do not
  // allocate per packet, so sharing it costs no contention.
  mallopt(M_ARENA_MAX, 1);
  std::vector<std::string> args(argv, argv + argc);
  auto parsed = parse_switch_command(args);
  if (!parsed.ok()) return error_exit(parsed.error().message);
  if (!parsed->help.empty()) {
    std::fputs(parsed->help.c_str(), stdout);
    return 0;
  }
  log::set_level(parsed->log_level);
  const sw::SwitchOptions& opts = parsed->opts;
  const std::string& metrics = parsed->metrics;
  const std::string& name = opts.name;

  // Block the stop signals in every thread; the main thread waits for them.
  sigset_t stop_set;
  sigemptyset(&stop_set);
  sigaddset(&stop_set, SIGINT);
  sigaddset(&stop_set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_set, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto sw = sw::Switch::create(opts);
  if (!sw.ok()) return error_exit(sw.error().message);
  metrics::Registry registry;
  metrics::add_switch_collector(registry, **sw);
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (!metrics.empty()) {  // binds before anything starts: a port in use exits 2
    metrics_server = std::make_unique<metrics::MetricsServer>(registry);
    if (auto st = metrics_server->start(metrics); !st.ok()) return error_exit(st.error().message);
  }
  if (auto st = (*sw)->start(); !st.ok()) return error_exit(st.error().message);

  int sig = 0;
  sigwait(&stop_set, &sig);
  log::info("switch", "{}: got {}, stopping", name, sig == SIGINT ? "SIGINT" : "SIGTERM");
  if (metrics_server) metrics_server->stop();
  (*sw)->stop();
  return 0;
}

}  // namespace flowlab::cli

// `flowlab switch`: command-line parsing for the userspace OpenFlow switch.
//
// Only collects and checks options (src/switch/options.h does the checking);
// the switch itself is sw::Switch. Exit codes: 0 after SIGINT/SIGTERM, 2 for a
// bad option / missing interface / busy port before anything starts, 1 for a
// failure while running.
#include "switch/switch.h"

#include <malloc.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "core/log.h"
#include "metrics/metrics_server.h"
#include "metrics/switch_metrics.h"
#include "rest/http_server.h"
#include "switch/options.h"

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
  CLI::App app{"flowlab switch: userspace OpenFlow 1.4/1.3/1.0 switch", "flowlab switch"};
  std::string name = "s1", dpid = "0x1", fail_mode = "secure",
              protocols = "OpenFlow15,OpenFlow14,OpenFlow13,OpenFlow10";
  std::string log_level = "info";
  std::vector<std::string> ports, controllers, listeners;
  unsigned threads = 1;
  unsigned n_tables = 64;
  uint32_t table_size = 1u << 20;
  app.add_option("--name", name, "switch name (logs, desc)");
  app.add_option("--dpid", dpid, "datapath id, decimal or 0xHEX");
  app.add_option("--port", ports, "IFNAME[=N] or tap:NAME[=N]; repeatable")->take_all();
  std::string local;
  app.add_option("--local", local,
                 "IFNAME or tap:NAME: the switch's LOCAL port (OFPP_LOCAL), like OVS's bridge device");
  app.add_option("--controller", controllers, "tcp:HOST:PORT or ssl:HOST:PORT; repeatable");
  std::string cert, key, ca;
  app.add_option("--cert", cert, "TLS: this switch's certificate (PEM), for ssl: controllers");
  app.add_option("--key", key, "TLS: its private key (PEM)");
  app.add_option("--ca", ca, "TLS: CA certificate (PEM) the controller's certificate is checked against");
  app.add_option("--listen", listeners, "ptcp:PORT[:IP] for ofctl / ovs-ofctl; repeatable");
  app.add_option("--fail-mode", fail_mode,
                 "secure (keep flows) or standalone (learning switch without controller)");
  // FLOWLAB_DATAPATH sets the default (the test suites run once per datapath with it).
  const char* dp_env = std::getenv("FLOWLAB_DATAPATH");
  std::string datapath = dp_env && *dp_env ? dp_env : "auto";
  app.add_option(
      "--datapath", datapath,
      "tc: eBPF fast path at TC ingress in front of the user-space pipeline (the default where "
      "the kernel allows it; falls back to af-packet with a log line, explicit tc exits 2); "
      "af-packet: the user-space pipeline on AF_PACKET rings only; auto (default, or $FLOWLAB_DATAPATH)");
  double echo_interval = 5, reconnect_max = 8;
  app.add_option("--echo-interval", echo_interval,
                 "seconds between echo requests on a quiet controller connection; the controller is "
                 "dead after 3 unanswered (0.1..3600)");
  app.add_option("--reconnect-max", reconnect_max,
                 "seconds: the cap of the reconnect backoff to a controller (0.1..3600)");
  app.add_option("--threads", threads, "forwarding threads");
  app.add_option("--tables", n_tables, "flow tables (1..254)");
  app.add_option("--table-size", table_size,
                 "flows each table holds (1..1048576; default 1048576): past it an add fails with "
                 "TABLE_FULL or, with OF1.4 eviction on (mod-table T evict), evicts");
  app.add_option("--protocols", protocols, "OpenFlow15,OpenFlow14,OpenFlow13,OpenFlow10 (default: all four)");
  app.add_option("--log-level", log_level, "debug|info|warn|error");
  std::string stats_file;
  app.add_option("--stats-file", stats_file,
                 "write the counters as JSON to this file every 500 ms and at exit");
  std::string metrics;
  app.add_option(
      "--metrics", metrics,
      "serve Prometheus metrics (GET /metrics) on HOST:PORT, e.g. 127.0.0.1:9302 (off by default)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    return error_exit(e.what());
  }

  log::Level level;
  if (!log::parse_level(log_level, level))
    return error_exit("--log-level " + log_level + ": expected debug|info|warn|error");
  log::set_level(level);

  sw::SwitchOptions opts;
  opts.name = name;
  auto d = sw::parse_dpid(dpid);
  if (!d.ok()) return error_exit(d.error().message);
  opts.dpid = *d;
  for (const auto& p : ports) {
    auto ps = sw::parse_port_spec(p);
    if (!ps.ok()) return error_exit(ps.error().message);
    opts.ports.push_back(*ps);
  }
  if (!local.empty()) {
    auto ps = sw::parse_local_port_spec(local);
    if (!ps.ok()) return error_exit(ps.error().message);
    opts.local_port = *ps;
  }
  for (const auto& c : controllers) {
    auto t = sw::parse_controller_target(c);
    if (!t.ok()) return error_exit(t.error().message);
    opts.controllers.push_back(*t);
  }
  for (const auto& l : listeners) {
    auto t = sw::parse_listen_target(l);
    if (!t.ok()) return error_exit(t.error().message);
    opts.listeners.push_back(*t);
  }
  auto fm = sw::parse_fail_mode(fail_mode);
  if (!fm.ok()) return error_exit(fm.error().message);
  opts.fail_mode = *fm;
  auto pr = sw::parse_protocols(protocols);
  if (!pr.ok()) return error_exit(pr.error().message);
  opts.version_bitmap = *pr;
  auto dk = sw::parse_datapath(datapath);
  if (!dk.ok()) return error_exit(dk.error().message);
  opts.datapath = *dk;
  opts.threads = threads;
  if (!(echo_interval >= 0.1 && echo_interval <= 3600))
    return error_exit("--echo-interval: must be 0.1..3600 s");
  if (!(reconnect_max >= 0.1 && reconnect_max <= 3600))
    return error_exit("--reconnect-max: must be 0.1..3600 s");
  opts.echo_interval_ms = uint32_t(echo_interval * 1000);
  opts.reconnect_max_ms = uint32_t(reconnect_max * 1000);
  opts.stats_file = stats_file;
  opts.cert_file = cert;
  opts.key_file = key;
  opts.ca_file = ca;
  if (n_tables < 1 || n_tables > 254) return error_exit("--tables: must be 1..254");
  opts.n_tables = uint8_t(n_tables);
  if (table_size < 1 || table_size > (1u << 20)) return error_exit("--table-size: must be 1..1048576");
  opts.table_size = table_size;
  if (auto st = sw::validate_options(opts); !st.ok()) return error_exit(st.error().message);
  if (!metrics.empty())
    if (auto hp = rest::parse_host_port(metrics, "--metrics"); !hp.ok())
      return error_exit(hp.error().message);

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

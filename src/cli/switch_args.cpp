// The command line of `flowlab switch` (see switch_args.h).
#include "cli/switch_args.h"

#include <CLI/CLI.hpp>
#include <cstdlib>

#include "rest/http_server.h"

namespace flowlab::cli {

Result<SwitchCommand> parse_switch_command(const std::vector<std::string>& args) {
  CLI::App app{"flowlab switch: userspace OpenFlow 1.0/1.3/1.4/1.5 switch", "flowlab switch"};
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
  bool failover = false;
  app.add_flag("--controller-failover", failover,
               "connect to one --controller at a time, in order, and move to the next when its connection "
               "fails or dies (Mininet's user switch); default: all at once");
  std::string connection_log;
  app.add_option("--connection-log", connection_log,
                 "write each controller connection event (TARGET: trying|connected|failed|dropped) to FILE");
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
  std::vector<std::string> rev(args.rbegin(), args.rend() - (args.empty() ? 0 : 1));
  SwitchCommand out;
  try {
    app.parse(rev);
  } catch (const CLI::CallForHelp&) {
    out.help = app.help();
    return out;
  } catch (const CLI::ParseError& e) {
    return fail("{}", e.what());
  }

  if (!log::parse_level(log_level, out.log_level))
    return fail("{}", "--log-level " + log_level + ": expected debug|info|warn|error");

  sw::SwitchOptions& opts = out.opts;
  opts.name = name;
  auto d = sw::parse_dpid(dpid);
  if (!d.ok()) return fail("{}", d.error().message);
  opts.dpid = *d;
  for (const auto& p : ports) {
    auto ps = sw::parse_port_spec(p);
    if (!ps.ok()) return fail("{}", ps.error().message);
    opts.ports.push_back(*ps);
  }
  if (!local.empty()) {
    auto ps = sw::parse_local_port_spec(local);
    if (!ps.ok()) return fail("{}", ps.error().message);
    opts.local_port = *ps;
  }
  for (const auto& c : controllers) {
    auto t = sw::parse_controller_target(c);
    if (!t.ok()) return fail("{}", t.error().message);
    opts.controllers.push_back(*t);
  }
  for (const auto& l : listeners) {
    auto t = sw::parse_listen_target(l);
    if (!t.ok()) return fail("{}", t.error().message);
    opts.listeners.push_back(*t);
  }
  auto fm = sw::parse_fail_mode(fail_mode);
  if (!fm.ok()) return fail("{}", fm.error().message);
  opts.fail_mode = *fm;
  auto pr = sw::parse_protocols(protocols);
  if (!pr.ok()) return fail("{}", pr.error().message);
  opts.version_bitmap = *pr;
  auto dk = sw::parse_datapath(datapath);
  if (!dk.ok()) return fail("{}", dk.error().message);
  opts.datapath = *dk;
  opts.threads = threads;
  if (!(echo_interval >= 0.1 && echo_interval <= 3600))
    return fail("{}", "--echo-interval: must be 0.1..3600 s");
  if (!(reconnect_max >= 0.1 && reconnect_max <= 3600))
    return fail("{}", "--reconnect-max: must be 0.1..3600 s");
  opts.echo_interval_ms = uint32_t(echo_interval * 1000);
  opts.reconnect_max_ms = uint32_t(reconnect_max * 1000);
  opts.stats_file = stats_file;
  opts.controller_failover = failover;
  opts.connection_log = connection_log;
  opts.cert_file = cert;
  opts.key_file = key;
  opts.ca_file = ca;
  if (n_tables < 1 || n_tables > 254) return fail("{}", "--tables: must be 1..254");
  opts.n_tables = uint8_t(n_tables);
  if (table_size < 1 || table_size > (1u << 20)) return fail("{}", "--table-size: must be 1..1048576");
  opts.table_size = table_size;
  if (failover && controllers.empty()) return fail("{}", "--controller-failover: give the --controller list");
  if (auto st = sw::validate_options(opts); !st.ok()) return fail("{}", st.error().message);
  if (!metrics.empty())
    if (auto hp = rest::parse_host_port(metrics, "--metrics"); !hp.ok())
      return fail("{}", hp.error().message);

  out.metrics = metrics;
  return out;
}

}  // namespace flowlab::cli

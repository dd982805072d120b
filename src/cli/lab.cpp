// `flowlab lab`: argument parsing only; the lab itself is in src/lab (runner.h).
//   flowlab lab run FILE [--out DIR] [--only CASE] [--quick] [--repeat N] [--capture LINKS|all]
//                        [--capture-max MB] [--metrics]
//   flowlab lab run --topo tree,2,3 [--switch K] [--controller C]... [--test T] [--mac] [--arp]
//                        [--ipbase NET/LEN] [--out DIR]
//   flowlab lab run --custom mytopo.py --topo mytopo,3 [--link tc,bw=10,delay=5ms] [...as --topo]
//   flowlab lab run FILE|--topo ... --etcd E | --machines N [--vxlan-port P] [--underlay-mtu M]
//                        [--underlay-rate R] [--exec-on-agents]      across machines (lab/machines)
//   flowlab lab agent --etcd E --name M --underlay ADDR [--underlay-netns NS] [--ttl S]
//   flowlab lab validate FILE | --topo ... [--switch K] [--controller C] [--test T]
//   flowlab lab up FILE | --topo ... [--only CASE] [--out DIR] [--capture LINKS|all] [--capture-max MB]
//                        [--metrics] [--owner PID] [--etcd E | --machines N ...as run]
//   flowlab lab run|up FILE|--topo ... --cli   Mininet's prompt once the lab is up (run: down at exit)
//   flowlab lab cli LAB                Mininet's CLI on a lab that is up
//   flowlab lab capture LAB LINK       a live pcap of one link on stdout
//   flowlab lab exec LAB HOST CMD...
//   flowlab lab status [--etcd E]
//   flowlab lab down LAB | down ID --etcd E
//   flowlab lab clean [--force]
//   flowlab lab report DIR
//   flowlab lab diff OLD NEW
// Hidden helpers the lab runs inside host namespaces (tcp-rr test; delay-line,
// probe-send and probe-recv are in lab_shape.cpp):
//   flowlab lab tcp-rr-server --port P [--timeout S]
//   flowlab lab tcp-rr-client --host A --port P [--count N] [--size B] [--timeout S]
// and the Python API's pingAll (lab/cli/mininet_cli.h):
//   flowlab lab ping-pairs LAB [--timeout S] [--to ADDR] [--by-source] HOST[=ADDR]...
// and the connection-churn generator (scripts/bench-churn.sh; see lab/traffic/tcp_crr.h):
//   flowlab lab tcp-crr-server --port P [--count N] [--timeout S]
//   flowlab lab tcp-crr-client --host A --port P (--rate R | --max) (--duration S | --count N)
//                              [--size B] [--parallel K] [--conn-timeout S]
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/lab_shape.h"
#include "lab/cli/mininet_cli.h"
#include "lab/generate/mininet_args.h"
#include "lab/host/run_state.h"
#include "lab/machines/across.h"
#include "lab/machines/agent.h"
#include "lab/machines/coordinator.h"
#include "lab/machines/live_capture.h"
#include "lab/run/persistent_lab.h"
#include "lab/run/runner.h"
#include "lab/scenario/shaping.h"
#include "lab/traffic/tcp_crr.h"
#include "lab/traffic/tcp_rr.h"

namespace flowlab::cli {

// FILE, or the scenario the Mininet-style options describe: (label, text) for the runner.
struct ScenarioSource {
  std::string file, text;
};

Result<ScenarioSource> scenario_source(const std::string& file, const lab::MininetArgs& m,
                                       const lab::MininetCustom& c, bool mininet_given) {
  if (!file.empty() && mininet_given) return fail("give a scenario FILE or --topo, not both");
  if (!file.empty()) return ScenarioSource{file, {}};
  if (m.topo.empty()) return fail("give a scenario FILE or --topo TYPE[,ARGS] (e.g. --topo tree,2,3)");
  FLOWLAB_ASSIGN_OR_RETURN(auto sc, lab::scenario_from_mininet_args(m, c));
  for (const auto& n : sc.notes) std::fprintf(stderr, "flowlab lab: note: %s\n", n.c_str());
  return ScenarioSource{sc.label, sc.yaml};
}

void add_capture_options(CLI::App* cmd, lab::CaptureOptions& c) {
  cmd->add_option("--capture", c.links,
                  "capture these links to CASE/capture/LINK.pcap: s1-s2,h1:eth0 or all (replaces the "
                  "scenario's capture:)");
  cmd->add_option("--capture-max", c.max_mb,
                  "MB per captured link; past it the oldest packets go (default 100)")
      ->check(CLI::Range(0.001, 1e6));
}

void add_mininet_options(CLI::App* cmd, lab::MininetArgs& m, lab::MininetCustom& c) {
  cmd->add_option("--topo", m.topo,
                  "Mininet topology instead of FILE: single,K linear,K[,N] tree,DEPTH[,FANOUT] "
                  "torus,X,Y[,N] fat-tree,K");
  cmd->add_option("--switch", m.switch_kind,
                  "with --topo: flowlab|ovs|ovs-tso|linux-bridge|lxbr[,stp=1][,protocols=OpenFlow13]");
  cmd->add_option("--controller", m.controllers,
                  "with --topo: none|flowlab:APP[,APP]|os-ken:FILE.py|ryu,FILE.py|remote[,ip=A][,port=P] "
                  "(default flowlab:learning-switch); repeatable: the switches connect to each")
      ->allow_extra_args(false);
  cmd->add_option(
      "--test", m.test,
      "with --topo: none|build|pingall|pingallfull|pingpair|iperf[,RATE]|iperfudp[,RATE], several "
      "joined by + (default pingall)");
  cmd->add_flag("--mac", m.mac, "with --topo: host MACs from host numbers (00:00:00:00:00:01, ...)");
  cmd->add_flag("--arp", m.arp, "with --topo: static ARP entries on every host for every other");
  cmd->add_option("--ipbase", m.ipbase, "with --topo: the hosts' network (default 10.0.0.0/8)");
  cmd->add_option("--custom", c.files,
                  "Mininet --custom FILE.py[,FILE.py]: --topo then names one of its topos = {...} with its "
                  "arguments");
  cmd->add_option("--link", c.link,
                  "with --topo/--custom: default|tc[,bw=MBIT,delay=T,jitter=T,loss=PCT,max_queue_size=N] "
                  "(every link a TCLink with these, a --custom link's own options over them)");
}

void add_machines_options(CLI::App* cmd, lab::MachinesOptions& m, std::string& underlay_rate) {
  cmd->add_option("--etcd", m.etcd, "across machines: the agents' etcd (http://E:2379[,...])");
  cmd->add_option("--machines", m.machines, "across N machines emulated on this one (own etcd)")
      ->check(CLI::Range(1, 64));
  cmd->add_option("--vxlan-port", m.vxlan_port, "across machines: the tunnels' UDP port (default 4789)");
  cmd->add_option("--underlay-mtu", m.underlay_mtu,
                  "across machines: the underlay's MTU (default: the scenario's underlay: {mtu}, else 1500)");
  cmd->add_option(
      "--underlay-rate", underlay_rate,
      "across machines: the NIC's rate (e.g. 1G; default: the scenario's underlay: {rate}); --machines "
      "shapes each emulated NIC to it, and the verdicts take it as the bound between machines");
  cmd->add_flag("--exec-on-agents", m.exec_on_agents,
                "across machines: every test command through the hosts' agents, as from another machine");
}

// Whether --etcd/--machines were given (the rate parsed into `m`); an error for
// the options that need them when they were not.
Result<bool> machines_given(lab::MachinesOptions& m, const std::string& underlay_rate) {
  if (m.etcd.empty() && m.machines == 0) {
    if (!underlay_rate.empty()) return fail("--underlay-rate needs --etcd or --machines");
    if (m.exec_on_agents) return fail("--exec-on-agents needs --etcd or --machines");
    return false;
  }
  if (!underlay_rate.empty()) {
    auto bps = lab::parse_rate_bps(underlay_rate);
    if (!bps.ok()) return fail("--underlay-rate: {}", bps.error().message);
    m.underlay_rate_bps = double(*bps);
  }
  return true;
}

int run_lab(int argc, char** argv) {
  CLI::App app{
      "flowlab lab: build topologies in namespaces, run traffic against flowlab and its peers, report",
      "flowlab lab"};
  app.require_subcommand(1);

  auto* run = app.add_subcommand(
      "run", "run a scenario: every case x every test; writes results.json and report.html");
  std::string file, out, only;
  bool quick = false;
  lab::MininetArgs mn;
  lab::MininetCustom mc;
  run->add_option("FILE", file, "scenario YAML (or --topo)");
  add_mininet_options(run, mn, mc);
  run->add_option("--out", out, "output directory (default lab-results/<scenario>-<runid>)");
  run->add_option("--only", only, "run only this case");
  run->add_flag("--quick", quick, "shorter tests (smoke run)");
  int repeat = 1;
  run->add_option("--repeat", repeat, "run each case N times, interleaved; medians and min-max")
      ->check(CLI::Range(1, 100));
  lab::CaptureOptions capture;
  add_capture_options(run, capture);
  bool metrics = false;
  const char* metrics_help =
      "a Prometheus per case scraping its flowlab switches and controllers, TSDB in CASE/prometheus "
      "(as the scenario's metrics: true)";
  run->add_flag("--metrics", metrics, metrics_help);
  lab::MachinesOptions machines;
  std::string underlay_rate;
  add_machines_options(run, machines, underlay_rate);
  bool with_cli = false;
  run->add_flag("--cli", with_cli,
                "Mininet's CLI once the (first or --only) case is up, instead of the tests; "
                "the lab goes down when the CLI exits");

  auto* agent = app.add_subcommand("agent", "one machine's agent of labs across machines (foreground)");
  lab::AgentOptions agent_opts;
  agent->add_option("--etcd", agent_opts.etcd, "etcd endpoints (http://E:2379[,...])")->required();
  agent->add_option("--name", agent_opts.name, "this machine's name (m1)")->required();
  agent->add_option("--underlay", agent_opts.underlay, "this machine's underlay address (tunnel end)")
      ->required();
  agent->add_option("--underlay-netns", agent_opts.underlay_ns,
                    "the network namespace that address lives in");
  agent->add_option("--ttl", agent_opts.ttl_s, "lease TTL in seconds (default 3)");

  auto* validate = app.add_subcommand("validate", "check a scenario file without side effects");
  validate->add_option("FILE", file, "scenario YAML (or --topo)");
  add_mininet_options(validate, mn, mc);

  auto* up = app.add_subcommand("up", "build one case and leave it running (see status, exec, down)");
  up->add_option("FILE", file, "scenario YAML (or --topo)");
  up->add_option("--only", only, "the case to bring up (default: the first)");
  up->add_option("--out", out, "output directory for logs");
  add_mininet_options(up, mn, mc);
  add_capture_options(up, capture);
  up->add_flag("--metrics", metrics, metrics_help);
  add_machines_options(up, machines, underlay_rate);
  up->add_flag("--cli", with_cli, "Mininet's CLI once the lab is up (the lab stays up after it)");
  int owner_pid = 0;
  up->add_option("--owner", owner_pid,
                 "a process whose exit takes the lab down (the Mininet API's script: killed, the lab goes)");
  std::string lab_id;
  auto* cli = app.add_subcommand("cli",
                                 "Mininet's CLI (mininet> pingall, h1 ping h2, link s1 s2 down...) "
                                 "on a lab that is up");
  cli->add_option("LAB", lab_id, "lab id (flowlab lab status)")->required();
  auto* ping_pairs = app.add_subcommand(
      "ping-pairs", "one echo per ordered pair of HOST[=ADDR]s of a lab that is up, as JSON (Mininet API)");
  ping_pairs->group("");
  std::vector<std::string> ping_hosts;
  std::string ping_to;
  double ping_timeout = 0;
  bool ping_by_source = false;
  ping_pairs->add_option("LAB", lab_id, "lab id")->required();
  ping_pairs->add_option("HOSTS", ping_hosts, "HOST or HOST=ADDR (its address, if not the lab's)")
      ->required();
  ping_pairs->add_option("--to", ping_to, "every host pings this address only");
  ping_pairs->add_option("--timeout", ping_timeout, "seconds an echo waits for its reply")
      ->check(CLI::Range(0.001, 3600.0));
  ping_pairs->add_flag("--by-source", ping_by_source,
                       "Mininet's order: one source after the other, each source's echoes at once");
  auto* exec =
      app.add_subcommand("exec", "run a command in a host of a lab that is up: exec LAB HOST CMD...");
  exec->prefix_command();
  auto* cap = app.add_subcommand("capture",
                                 "a live pcap of one link of a lab that is up, on stdout: "
                                 "capture LAB LINK | tshark -r -");
  std::string cap_link;
  cap->add_option("LAB", lab_id, "lab id (flowlab lab status)")->required();
  cap->add_option("LINK", cap_link, "the link: s1-s2, h1:eth0, h1:eth0-s1:p1")->required();
  auto* status = app.add_subcommand("status", "list the labs that are up");
  std::string status_etcd;
  status->add_option("--etcd", status_etcd, "the agents and the runs across machines in this etcd");
  auto* down = app.add_subcommand("down", "tear down a lab that is up");
  down->add_option("LAB", lab_id, "lab id (flowlab lab status), or a run id with --etcd")->required();
  std::string down_etcd;
  down->add_option("--etcd", down_etcd, "a run across machines: tear it down on every machine");

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

  auto* crr_server =
      app.add_subcommand("tcp-crr-server", "tcp-crr server: answers and closes each connection");
  auto* crr_client =
      app.add_subcommand("tcp-crr-client", "tcp-crr client: a new connection per transaction; JSON");
  crr_server->group("");
  crr_client->group("");
  lab::CrrServerOptions crr_srv;
  lab::CrrClientOptions crr;
  bool crr_max = false;
  crr_server->add_option("--port", crr_srv.port);
  crr_server->add_option("--count", crr_srv.count, "exit after serving N connections");
  crr_server->add_option("--timeout", crr_srv.timeout_s, "exit after S seconds without a new connection");
  crr_client->add_option("--host", crr.host)->required();
  crr_client->add_option("--port", crr.port);
  crr_client->add_option("--rate", crr.rate, "offered connections per second (open loop)");
  crr_client->add_flag("--max", crr_max, "as many as --parallel in flight allow (closed loop)");
  crr_client->add_option("--duration", crr.duration_s, "seconds to offer connections");
  crr_client->add_option("--count", crr.count, "connections to attempt");
  crr_client->add_option("--size", crr.size, "request and response bytes");
  crr_client->add_option("--parallel", crr.parallel, "in flight: --max's window (1), --rate's cap (4096)");
  crr_client->add_option("--conn-timeout", crr.conn_timeout_s,
                         "seconds before a connection counts as failed");

  auto shape_cmds = add_lab_shape_commands(app);  // delay-line, probe-send/-recv

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (int rc = run_lab_shape_commands(*shape_cmds); rc >= 0) return rc;
  auto* sub = *run ? run : *up ? up : validate;
  bool mininet_given = false;
  for (const char* o :
       {"--topo", "--switch", "--controller", "--test", "--custom", "--link", "--mac", "--arp", "--ipbase"})
    mininet_given |= sub->count(o) > 0;
  if ((*run || *up) && with_cli) {  // up, the CLI, and for run down at its exit
    auto src = scenario_source(file, mn, mc, mininet_given);
    if (!src.ok()) return error_exit("lab", src.error().message, 2);
    if (sub->count("--etcd") || sub->count("--machines") || owner_pid != 0 || repeat > 1)
      return error_exit(
          "lab", "--cli runs one case on this machine: not with --etcd, --machines, --owner or --repeat", 2);
    auto r = lab::up_with_cli(src->file, src->text, only, out, capture, metrics, up->parsed());
    return r.ok() ? *r : error_exit("lab", r.error().message, 2);
  }
  if (*cli) {
    auto st = lab::run_mininet_cli(lab_id);
    return st.ok() ? 0 : error_exit("lab", st.error().message, 2);
  }
  if (*run) {
    auto src = scenario_source(file, mn, mc, mininet_given);
    if (!src.ok()) return error_exit("lab", src.error().message, 2);
    file = src->file;
    lab::RunOptions o;
    o.scenario_text = src->text;
    o.out_dir = out;
    o.only_case = only;
    o.quick = quick;
    o.repeat = repeat;
    o.capture = capture;
    o.metrics = metrics;
    auto across = machines_given(machines, underlay_rate);
    if (!across.ok()) return error_exit("lab", across.error().message, 2);
    auto r = *across ? lab::run_across_machines(file, o, machines) : lab::run_scenario(file, o);
    if (!r.ok()) return error_exit("lab", r.error().message, 2);
    return *r;
  }
  if (*up) {
    auto src = scenario_source(file, mn, mc, mininet_given);
    if (!src.ok()) return error_exit("lab", src.error().message, 2);
    auto across = machines_given(machines, underlay_rate);
    if (!across.ok()) return error_exit("lab", across.error().message, 2);
    lab::LabBuilderFactory builder;
    if (*across) {
      auto b = lab::machines_builder(src->file, src->text, machines);
      if (!b.ok()) return error_exit("lab", b.error().message, 2);
      builder = std::move(*b);
    }
    auto r =
        lab::lab_up(src->file, src->text, only, out, capture, metrics, builder, nullptr, pid_t(owner_pid));
    if (!r.ok()) return error_exit("lab", r.error().message, 2);
    return *r;
  }
  if (*ping_pairs) {
    auto st = lab::print_ping_pairs(lab_id, ping_hosts, ping_to, ping_timeout, ping_by_source);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*exec) {
    auto rest = exec->remaining();
    if (rest.size() < 3) return error_exit("lab", "usage: flowlab lab exec LAB HOST CMD...", 2);
    auto r = lab::lab_exec(rest[0], rest[1], std::vector<std::string>(rest.begin() + 2, rest.end()),
                           lab::exec_across);
    return r.ok() ? *r : error_exit("lab", r.error().message, 2);
  }
  if (*cap) {
    auto st = lab::lab_capture(lab_id, cap_link, lab::capture_across);
    return st.ok() ? 0 : error_exit("lab", st.error().message, 2);
  }
  if (*status && !status_etcd.empty()) {
    auto r = lab::runs_status(status_etcd);
    if (!r.ok()) return error_exit("lab", r.error().message);
    std::fputs(r->c_str(), stdout);
    return 0;
  }
  if (*status) {
    std::fputs(lab::lab_status().c_str(), stdout);
    return 0;
  }
  if (*agent) {
    auto st = lab::run_agent(agent_opts);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*down && !down_etcd.empty()) {
    auto st = lab::down_run(down_etcd, lab_id);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*down) {
    auto st = lab::lab_down(lab_id);
    if (!st.ok()) return error_exit("lab", st.error().message);
    std::printf("lab %s is down\n", lab_id.c_str());
    return 0;
  }
  if (*validate) {
    auto src = scenario_source(file, mn, mc, mininet_given);
    if (!src.ok()) return error_exit("lab", src.error().message, 2);
    auto r = lab::validate_scenario(src->file, src->text);
    if (!r.ok()) return error_exit("lab", r.error().message, 2);
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
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*diff) {
    auto st = lab::diff_runs(old_run, new_run);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*rr_server) {
    auto st = lab::tcp_rr_server(port, timeout);
    return st.ok() ? 0 : error_exit("lab", st.error().message);
  }
  if (*crr_server) {
    auto r = lab::tcp_crr_server(crr_srv);
    if (!r.ok()) return error_exit("lab", r.error().message, 1);
    std::printf("%s\n", r->dump().c_str());
    return 0;
  }
  if (*crr_client) {
    if (auto st = lab::check_crr_client_options(crr); !st.ok())
      return error_exit("lab", st.error().message, 2);
    if (crr_max == (crr.rate > 0)) return error_exit("lab", "give --rate R or --max, one of them", 2);
    auto r = lab::tcp_crr_client(crr);
    if (!r.ok()) return error_exit("lab", r.error().message, 1);
    std::printf("%s\n", r->dump().c_str());
    return 0;
  }
  if (*rr_client) {
    auto r = lab::tcp_rr_client(host, port, count, size, timeout);
    if (!r.ok()) return error_exit("lab", r.error().message);
    std::printf("%s\n", r->dump().c_str());
    return 0;
  }
  return 2;
}

}  // namespace flowlab::cli

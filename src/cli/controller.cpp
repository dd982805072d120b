// `flowlab controller`: argument parsing for the controller runtime (src/controller).
#include "controller/controller.h"

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cluster/flow_store.h"
#include "cluster/node.h"
#include "cluster/status.h"
#include "controller/app_registry.h"
#include "core/log.h"
#include "metrics/controller_metrics.h"
#include "metrics/metrics_server.h"
#include "rest/api.h"
#include "rest/http_server.h"
#include "rest/switch_directory.h"

namespace flowlab::cli {

int run_controller(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "cluster-status")
    return run_cluster_status(argc - 1, argv + 1);
  CLI::App app{
      "OpenFlow 1.0/1.3/1.4/1.5 controller hosting apps (hub, learning-switch, firewall, shortest-path, "
      "static-flows), "
      "stacked in order",
      "flowlab controller"};
  controller::ControllerOptions o;
  controller::AppConfig cfg;
  std::vector<std::string> apps;
  std::string log_level = "info";
  double stats_every = 0, echo_interval = 5, dead_peer = 15;
  std::vector<std::string> protocols;
  std::string rest;
  double rest_timeout = 5;
  app.add_option("-l,--listen", o.listen,
                 "passive endpoint(s): ptcp:PORT[:IP] or pssl:PORT[:IP] (repeatable)");
  app.add_option("-c,--connect", o.connect,
                 "active endpoint(s) to a passive switch: tcp:HOST:PORT or ssl:HOST:PORT");
  app.add_option("-a,--app", apps,
                 "app to run, in stack order (repeatable): hub, learning-switch, firewall, shortest-path, "
                 "static-flows")
      ->required();
  app.add_option("--config", cfg.config_file, "firewall rules (YAML); reloaded on SIGHUP");
  app.add_option("--idle-timeout", cfg.idle_timeout, "idle timeout of learned flows, seconds")
      ->capture_default_str();
  app.add_flag("--proxy-arp", cfg.proxy_arp, "shortest-path: answer ARP requests from the host table");
  app.add_option("--flows", cfg.flows_file, "static-flows: file of flows (ovs-ofctl add-flows lines)");
  app.add_option("--bundle-size", cfg.bundle_size,
                 "static-flows: flow-mods per bundle on OpenFlow 1.3 (0: plain flow-mods and barriers)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  int lldp_interval = int(o.topology.lldp_interval.count()),
      link_timeout = int(o.topology.link_timeout.count());
  app.add_option("--lldp-interval", lldp_interval, "topology: milliseconds between LLDP frames on every port")
      ->capture_default_str()
      ->check(CLI::Range(10, 60000));
  app.add_option("--link-timeout", link_timeout,
                 "topology: milliseconds without LLDP after which a link is gone (> --lldp-interval)")
      ->capture_default_str()
      ->check(CLI::Range(20, 600000));
  std::string topology_mode = "auto";
  app.add_option("--topology", topology_mode,
                 "topology service (LLDP links, hosts): auto (on when an app uses it), on, off")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("-t,--threads", o.threads, "event-loop threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  app.add_option("--stats-every", stats_every, "log a stats line every S seconds (0: off)")
      ->check(CLI::Range(0.0, 86400.0));
  app.add_option("--stats-json", o.stats_json, "write stats as JSON to FILE every second and at exit");
  app.add_option("--echo-interval", echo_interval, "seconds of silence before an echo request")
      ->capture_default_str();
  app.add_option("--dead-peer", dead_peer, "seconds of silence before a switch is declared dead")
      ->capture_default_str();
  app.add_option("--protocols", protocols, "OpenFlow15,OpenFlow14,OpenFlow13,OpenFlow10 (default all four)")
      ->delimiter(',')
      ->check(CLI::IsMember({"OpenFlow15", "OpenFlow14", "OpenFlow13", "OpenFlow10"}));
  app.add_option("--cert", o.tls.cert_file, "TLS certificate (PEM) for pssl:/ssl:");
  app.add_option("--key", o.tls.key_file, "TLS private key (PEM)");
  app.add_option("--ca", o.tls.ca_file, "CA certificate (PEM) that switch certificates are checked against");
  app.add_option("--rest", rest,
                 "serve the REST API (Ryu ofctl_rest / rest_topology endpoints, /v1/stats) on HOST:PORT, "
                 "e.g. 127.0.0.1:8080 (off by default)");
  app.add_option("--rest-timeout", rest_timeout, "seconds a REST request waits for a switch's reply")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 600.0));
  std::string metrics;
  app.add_option(
      "--metrics", metrics,
      "serve Prometheus metrics (GET /metrics) on HOST:PORT, e.g. 127.0.0.1:9303 (off by default)");
  std::string role;
  uint64_t generation_id = 0;
  app.add_option("--role", role,
                 "OF1.3 role requested from every switch on connect: master, slave or equal (default: none, "
                 "the switch keeps the controller equal); SIGUSR1 requests master")
      ->check(CLI::IsMember({"master", "slave", "equal"}));
  auto* gen =
      app.add_option("--generation-id", generation_id,
                     "generation id of the role requests (a new master needs a larger one than the old)");
  cluster::ClusterOptions co;
  std::string cluster_endpoints;
  app.add_option("--cluster", cluster_endpoints,
                 "run as a member of a controller cluster on these etcd endpoints "
                 "(http://E1:2379,http://E2:2379,...): one master per switch, elected in etcd");
  app.add_option("--node", co.node, "--cluster: this controller's name, unique in the cluster");
  app.add_option("--cluster-name", co.name,
                 "--cluster: the cluster's name (etcd key root /flowlab/cluster/NAME/)")
      ->capture_default_str();
  app.add_option("--peer", co.peer,
                 "--cluster: HOST:PORT of this node's peer link listener (the others see it die at once)")
      ->capture_default_str();
  app.add_option("--advertise", co.advertise,
                 "--cluster: the host the others reach the peer link on (default: this machine's address "
                 "towards etcd)");
  app.add_option("--lease-ttl", co.lease_ttl_s,
                 "--cluster: seconds without a keepalive after which a hung node loses its switches")
      ->capture_default_str()
      ->check(CLI::Range(1, 60));
  app.add_option("--log-level", log_level, "debug, info, warn, error")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  log::Level lvl;
  if (!log::parse_level(log_level, lvl)) {
    std::fprintf(stderr, "flowlab controller: error: --log-level '%s' is not debug, info, warn or error\n",
                 log_level.c_str());
    return 2;
  }
  log::set_level(lvl);
  if (o.listen.empty() && o.connect.empty()) o.listen.push_back("ptcp:6653");
  if (!protocols.empty()) {
    o.connection.versions.clear();
    for (const auto& p : protocols)
      o.connection.versions.push_back(p == "OpenFlow15"   ? of::kOf15
                                      : p == "OpenFlow14" ? of::kOf14
                                      : p == "OpenFlow13" ? of::kOf13
                                                          : of::kOf10);
  }
  if (link_timeout <= lldp_interval) {
    std::fprintf(
        stderr, "flowlab controller: error: --link-timeout %d ms must be longer than --lldp-interval %d ms\n",
        link_timeout, lldp_interval);
    return 2;
  }
  o.topology.lldp_interval = std::chrono::milliseconds(lldp_interval);
  o.topology.link_timeout = std::chrono::milliseconds(link_timeout);
  using Mode = controller::topology::TopologyOptions::Mode;
  o.topology.mode = topology_mode == "on" ? Mode::kOn : topology_mode == "off" ? Mode::kOff : Mode::kAuto;
  bool wants_topology = std::find(apps.begin(), apps.end(), "shortest-path") != apps.end();
  if (wants_topology && o.topology.mode == Mode::kOff) {
    std::fprintf(
        stderr,
        "flowlab controller: error: --app shortest-path needs the topology service (not --topology off)\n");
    return 2;
  }
  if (cfg.proxy_arp && !wants_topology) {
    std::fprintf(stderr, "flowlab controller: error: --proxy-arp is only used by --app shortest-path\n");
    return 2;
  }
  if (gen->count() && role.empty()) {
    std::fprintf(stderr, "flowlab controller: error: --generation-id is only used with --role\n");
    return 2;
  }
  std::unique_ptr<cluster::ClusterNode> cluster_node;
  if (!cluster_endpoints.empty()) {
    if (!role.empty()) {
      std::fprintf(stderr,
                   "flowlab controller: error: --role is decided by the cluster; drop it with --cluster\n");
      return 2;
    }
    if (co.node.empty()) {
      std::fprintf(stderr, "flowlab controller: error: --cluster needs --node NAME\n");
      return 2;
    }
    auto ep = coord::parse_endpoints(cluster_endpoints);
    if (!ep.ok()) {
      std::fprintf(stderr, "flowlab controller: error: --cluster: %s\n", ep.error().message.c_str());
      return 2;
    }
    co.etcd = *ep;
    co.rest = rest;
    cluster_node = std::make_unique<cluster::ClusterNode>(co);
    o.mastership = cluster_node.get();
  } else if (!co.node.empty()) {
    std::fprintf(stderr, "flowlab controller: error: --node is only used with --cluster\n");
    return 2;
  }
  using Role = of::ControllerRole;
  o.role = role == "master"  ? Role::kMaster
           : role == "slave" ? Role::kSlave
           : role == "equal" ? Role::kEqual
                             : Role::kNoChange;
  o.generation_id = generation_id;
  o.stats_every = std::chrono::milliseconds(int64_t(stats_every * 1000));
  o.connection.echo_interval = std::chrono::milliseconds(int64_t(echo_interval * 1000));
  o.connection.dead_peer_timeout = std::chrono::milliseconds(int64_t(dead_peer * 1000));
  if (!cfg.config_file.empty() && std::find(apps.begin(), apps.end(), "firewall") == apps.end()) {
    std::fprintf(stderr, "flowlab controller: error: --config is only used by --app firewall\n");
    return 2;
  }
  if (!cfg.flows_file.empty() && std::find(apps.begin(), apps.end(), "static-flows") == apps.end()) {
    std::fprintf(stderr, "flowlab controller: error: --flows is only used by --app static-flows\n");
    return 2;
  }
  if (!metrics.empty()) {
    if (auto hp = rest::parse_host_port(metrics, "--metrics"); !hp.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", hp.error().message.c_str());
      return 2;
    }
  }
  std::vector<std::unique_ptr<controller::App>> stack;
  // The REST API's view of the switches: first in the stack, no tables, consumes nothing.
  rest::SwitchDirectory* directory = nullptr;
  if (!rest.empty()) {
    if (auto hp = rest::parse_host_port(rest); !hp.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", hp.error().message.c_str());
      return 2;
    }
    auto d = std::make_unique<rest::SwitchDirectory>(std::chrono::milliseconds(int64_t(rest_timeout * 1000)));
    directory = d.get();
    stack.push_back(std::move(d));
  }
  for (const auto& name : apps) {
    auto a = controller::make_app(name, cfg);
    if (!a.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", a.error().message.c_str());
      return 2;
    }
    stack.push_back(std::move(*a));
  }
  std::signal(SIGPIPE, SIG_IGN);
  controller::Controller c(std::move(o), std::move(stack));
  auto st = c.start();
  if (!st.ok()) {
    std::fprintf(stderr, "flowlab controller: error: %s\n", st.error().message.c_str());
    return 2;
  }
  // With a cluster, REST's changes go through etcd (cluster/flow_store.h):
  // stored, sent by the switch's master, replayed by the next one.
  std::unique_ptr<cluster::FlowStore> flow_store;
  if (cluster_node && directory) {
    flow_store = std::make_unique<cluster::FlowStore>(co.etcd, co.name, co.node, *directory);
    cluster_node->on_mastership(
        [fs = flow_store.get()](uint64_t dpid, bool master) { fs->on_mastership(dpid, master); });
    flow_store->start();
  }
  if (cluster_node) {
    if (auto cs = cluster_node->start(c); !cs.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", cs.error().message.c_str());
      return 2;
    }
  }
  std::unique_ptr<rest::RuntimeTopology> topology;
  std::unique_ptr<rest::RestApi> api;
  std::unique_ptr<rest::HttpServer> server;
  if (directory) {
    topology = std::make_unique<rest::RuntimeTopology>(*directory, &c.topology());
    rest::SwitchAccess& access = flow_store ? static_cast<rest::SwitchAccess&>(*flow_store) : *directory;
    api = std::make_unique<rest::RestApi>(access, *topology, [&c] { return c.stats().to_json(); });
    if (cluster_node) {
      auto etcd = std::make_shared<coord::EtcdClient>(co.etcd);
      api->set_cluster_status([etcd, name = co.name]() -> rest::Json {
        auto v = cluster::read_cluster(*etcd, name);
        return v.ok() ? cluster::status_json(*v, name) : rest::Json();
      });
    }
    server = std::make_unique<rest::HttpServer>(*api);
    if (auto rs = server->start(rest); !rs.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", rs.error().message.c_str());
      return 2;
    }
  }
  metrics::Registry registry;
  registry.add([&c, role](std::vector<metrics::Family>& out) {
    metrics::collect_controller(c.stats(), c.topology(), role, out);
  });
  std::unique_ptr<metrics::MetricsServer> metrics_server;
  if (!metrics.empty()) {
    metrics_server = std::make_unique<metrics::MetricsServer>(registry);
    if (auto ms = metrics_server->start(metrics); !ms.ok()) {
      std::fprintf(stderr, "flowlab controller: error: %s\n", ms.error().message.c_str());
      return 2;
    }
  }
  c.run();
  if (cluster_node) cluster_node->stop();
  if (flow_store) flow_store->stop();
  if (metrics_server) metrics_server->stop();
  if (server) server->stop();
  return 0;
}

}  // namespace flowlab::cli

// `flowlab controller cluster-status`: the controller cluster as etcd holds it.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "cli/commands.h"
#include "cluster/status.h"

namespace flowlab::cli {

int run_cluster_status(int argc, char** argv) {
  CLI::App app{"the nodes of a controller cluster, their leases, and who masters which switch since when",
               "flowlab controller cluster-status"};
  std::string endpoints, name = "default";
  bool json = false;
  app.add_option("--cluster", endpoints, "etcd endpoints (http://E1:2379,http://E2:2379,...)")->required();
  app.add_option("--cluster-name", name, "the cluster's name")->capture_default_str();
  app.add_flag("--json", json, "print JSON (the REST API's /v1/cluster shape)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  auto cfg = coord::parse_endpoints(endpoints);
  if (!cfg.ok()) {
    std::fprintf(stderr, "flowlab controller cluster-status: error: --cluster: %s\n",
                 cfg.error().message.c_str());
    return 2;
  }
  coord::EtcdClient etcd(*cfg);
  auto view = cluster::read_cluster(etcd, name);
  if (!view.ok()) {
    std::fprintf(stderr, "flowlab controller cluster-status: error: %s\n", view.error().message.c_str());
    return 2;
  }
  std::string out =
      json ? cluster::status_json(*view, name).dump(2) + "\n" : cluster::status_text(*view, name);
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace flowlab::cli

// Cluster status (status.h).
#include "cluster/status.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

namespace flowlab::cluster {

namespace {

std::string clock_time(int64_t ms) {
  if (ms <= 0) return "-";
  std::time_t t = std::time_t(ms / 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03}Z", buf, ms % 1000);
}

// The master of a switch: its leader, if the switch granted it the role;
// during a hand-off (the old master went to the back of the queue and serves
// until the new leader is granted the role) the candidate still serving.
const Candidate* master_of(const std::vector<Candidate>& cands) {
  auto it = std::find_if(cands.begin(), cands.end(), [](const Candidate& c) { return c.master; });
  return it == cands.end() ? nullptr : &*it;
}

}  // namespace

Result<ClusterView> read_cluster(coord::EtcdClient& etcd, std::string_view name) {
  const std::string root = cluster_root(name);
  FLOWLAB_ASSIGN_OR_RETURN(auto r, etcd.get_prefix(root));
  return build_view(root, r.kvs, r.header.revision);
}

nlohmann::json status_json(const ClusterView& view, std::string_view name) {
  std::map<std::string, int> masters;
  auto switches = nlohmann::json::array();
  for (const auto& [dpid, cands] : view.switches) {
    const Candidate* m = master_of(cands);
    if (m) masters[m->node]++;
    auto cj = nlohmann::json::array();
    for (const auto& c : cands)
      cj.push_back(
          {{"node", c.node}, {"state", c.master ? "master" : "candidate"}, {"revision", c.create_revision}});
    switches.push_back({{"dpid", fmt::format("{:016x}", dpid)},
                        {"master", m ? nlohmann::json(m->node) : nlohmann::json(nullptr)},
                        {"generation_id", m ? m->create_revision : 0},
                        {"since", m ? clock_time(m->since_ms) : "-"},
                        {"handing_over_to", m && m != &cands.front() ? nlohmann::json(cands.front().node)
                                                                     : nlohmann::json(nullptr)},
                        {"candidates", cj}});
  }
  auto nodes = nlohmann::json::array();
  for (const auto& [n, rec] : view.nodes)
    nodes.push_back({{"node", n},
                     {"lease", fmt::format("{:x}", uint64_t(rec.lease))},
                     {"peer", rec.peer},
                     {"rest", rec.rest},
                     {"since", clock_time(rec.since_ms)},
                     {"masters", masters[n]}});
  return {{"cluster", name}, {"revision", view.revision}, {"nodes", nodes}, {"switches", switches}};
}

std::string status_text(const ClusterView& view, std::string_view name) {
  auto j = status_json(view, name);
  size_t mastered = 0;
  for (const auto& s : j["switches"])
    if (!s["master"].is_null()) ++mastered;
  std::string out = fmt::format("cluster {}: {} node(s), {} switch(es), {} mastered (etcd revision {})\n",
                                name, j["nodes"].size(), j["switches"].size(), mastered, view.revision);
  out += fmt::format("\n{:<16} {:<16} {:<22} {:<22} {:<25} {}\n", "NODE", "LEASE", "PEER", "REST", "SINCE",
                     "MASTERS");
  for (const auto& n : j["nodes"])
    out += fmt::format("{:<16} {:<16} {:<22} {:<22} {:<25} {}\n", n["node"].get<std::string>(),
                       n["lease"].get<std::string>(), n["peer"].get<std::string>(),
                       n["rest"].get<std::string>().empty() ? "-" : n["rest"].get<std::string>(),
                       n["since"].get<std::string>(), n["masters"].get<int>());
  out += fmt::format("\n{:<16} {:<16} {:<13} {:<25} {}\n", "SWITCH", "MASTER", "GENERATION", "SINCE",
                     "CANDIDATES (election order)");
  for (const auto& s : j["switches"]) {
    std::string cands;
    for (const auto& c : s["candidates"]) cands += (cands.empty() ? "" : ",") + c["node"].get<std::string>();
    out += fmt::format("{:<16} {:<16} {:<13} {:<25} {}\n", s["dpid"].get<std::string>(),
                       s["master"].is_null() ? "(none)" : s["master"].get<std::string>(),
                       s["generation_id"].get<int64_t>(), s["since"].get<std::string>(), cands);
  }
  if (view.skipped) out += fmt::format("\n{} key(s) under the cluster's root did not decode\n", view.skipped);
  return out;
}

}  // namespace flowlab::cluster

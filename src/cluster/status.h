// The cluster's status, read from etcd: `flowlab controller cluster-status`
// and the REST API's /v1/cluster. Nodes (lease, peer link, REST address,
// since when, how many switches each masters) and switches (the master, its
// generation id, since when, every candidate in election order).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "cluster/view.h"
#include "coord/etcd_client.h"
#include "core/result.h"

namespace flowlab::cluster {

nlohmann::json status_json(const ClusterView& view, std::string_view name);
std::string status_text(const ClusterView& view, std::string_view name);

// Reads cluster `name` from etcd.
Result<ClusterView> read_cluster(coord::EtcdClient& etcd, std::string_view name);

}  // namespace flowlab::cluster

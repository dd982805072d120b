// The cluster as etcd holds it, under one root (/flowlab/cluster/NAME/):
//
//   ROOT/nodes/NODE                   {"node","lease","peer","rest","since_ms"}  bound to NODE's lease
//   ROOT/switches/DPID16/LEASE16[.1]  {"node","state","since_ms"}               bound to the lease
//
// Each switch is an election (coord/election.h's recipe): one key per node
// that has the switch connected, the lowest create revision leads, and that
// revision is the generation id of the leader's OF1.3 role requests (it only
// grows from one leader to the next). A candidate's state is "master" once
// the switch granted it the role, "candidate" otherwise.
//
// Pure: keys and values in, a ClusterView out; values that do not decode are
// skipped and counted (fuzzed by tests/fuzz/fuzz_cluster_view.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coord/etcd_json.h"

namespace flowlab::cluster {

struct NodeRecord {
  std::string node;
  int64_t lease = 0;
  std::string peer;  // HOST:PORT of its liveness listener
  std::string rest;  // HOST:PORT of its REST API, or ""
  int64_t since_ms = 0;
};

struct Candidate {
  std::string node;
  int64_t lease = 0;
  int64_t create_revision = 0;
  bool master = false;  // the switch granted this candidate MASTER
  int64_t since_ms = 0;
  std::string key;
};

struct ClusterView {
  int64_t revision = 0;
  std::map<std::string, NodeRecord> nodes;
  std::map<uint64_t, std::vector<Candidate>> switches;  // candidates oldest first
  size_t skipped = 0;                                   // keys or values that did not decode

  const Candidate* leader(uint64_t dpid) const;
};

std::string cluster_root(std::string_view name);
std::string node_key(std::string_view root, std::string_view node);
std::string switch_prefix(std::string_view root, uint64_t dpid);
std::string candidate_key(std::string_view root, uint64_t dpid, int64_t lease);
// The key a candidate moves to when it goes to the back of the queue (a
// hand-off): the other of LEASE16 and LEASE16.1, so that the move is one
// transaction (etcd refuses a delete and a put of the same key in one).
std::string requeued_key(std::string_view root, uint64_t dpid, int64_t lease, std::string_view current);

std::string encode_node(const NodeRecord& n);
std::optional<NodeRecord> decode_node(std::string_view json);
std::string encode_candidate(std::string_view node, bool master, int64_t since_ms);
// Fills node, master and since_ms.
std::optional<Candidate> decode_candidate(std::string_view json);

ClusterView build_view(std::string_view root, const std::vector<coord::KeyValue>& kvs, int64_t revision);

// A node name: 1-64 of [A-Za-z0-9._-].
bool valid_node_name(std::string_view name);

}  // namespace flowlab::cluster

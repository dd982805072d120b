// Which node should master each switch: every live node about 1/N of them.
//
// Deterministic from a ClusterView alone, so every node reading the same
// revision agrees without talking. A switch stays with its current leader
// while that node holds at most ceil(S/N) switches (S switches with a live
// candidate, N live nodes): a failover or a join moves only the switches that
// must move. The rest go, in dpid order, to the candidate that ranks highest
// for that switch (rendezvous hashing) among those under the cap.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "cluster/view.h"

namespace flowlab::cluster {

std::map<uint64_t, std::string> preferred_masters(const ClusterView& view);

// The rendezvous score of `node` for `dpid` (FNV-1a, then a 64-bit mix).
uint64_t rendezvous_score(const std::string& node, uint64_t dpid);

}  // namespace flowlab::cluster

// preferred_masters (balance.h).
#include "cluster/balance.h"

#include <algorithm>
#include <vector>

namespace flowlab::cluster {

uint64_t rendezvous_score(const std::string& node, uint64_t dpid) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto feed = [&h](uint8_t b) { h = (h ^ b) * 0x100000001b3ull; };
  for (char c : node) feed(uint8_t(c));
  for (int i = 0; i < 8; ++i) feed(uint8_t(dpid >> (8 * i)));
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

std::map<uint64_t, std::string> preferred_masters(const ClusterView& view) {
  std::map<uint64_t, std::vector<std::string>> live;  // each switch's live candidates
  for (const auto& [dpid, cands] : view.switches)
    for (const auto& c : cands)
      if (auto n = view.nodes.find(c.node); n != view.nodes.end() && n->second.lease == c.lease)
        live[dpid].push_back(c.node);
  std::map<uint64_t, std::string> out;
  if (live.empty() || view.nodes.empty()) return out;
  const size_t cap = (live.size() + view.nodes.size() - 1) / view.nodes.size();
  std::map<std::string, size_t> load;
  for (const auto& [dpid, nodes] : live) {
    const std::string& leader = nodes.front();  // oldest live candidate
    if (load[leader] < cap) {
      out[dpid] = leader;
      load[leader]++;
    }
  }
  for (const auto& entry : live) {
    const uint64_t dpid = entry.first;
    if (out.count(dpid)) continue;
    std::vector<std::string> ranked = entry.second;
    std::sort(ranked.begin(), ranked.end(), [dpid](const std::string& a, const std::string& b) {
      uint64_t sa = rendezvous_score(a, dpid), sb = rendezvous_score(b, dpid);
      return sa != sb ? sa > sb : a < b;
    });
    const std::string* pick = nullptr;
    for (const auto& n : ranked)
      if (load[n] < cap) {
        pick = &n;
        break;
      }
    if (!pick)
      pick = &*std::min_element(
          ranked.begin(), ranked.end(),
          [&load](const std::string& a, const std::string& b) { return load[a] < load[b]; });
    out[dpid] = *pick;
    load[*pick]++;
  }
  return out;
}

}  // namespace flowlab::cluster

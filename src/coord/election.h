// Election: etcd's election recipe, written for flowlab.
//
// Every candidate writes one key under the election's prefix, PREFIX/<lease
// in hex>, bound to its lease, in a transaction that creates it only if absent
// (a retried campaign finds its own key again). The candidate whose key has
// the lowest create revision leads; the others wait for the keys created
// before theirs to go (resigned, or their lease expired or was revoked).
// The leader's create revision only grows from one leader to the next, so it
// serves as a fencing token (the controller cluster's OpenFlow generation_id).
// A leader that lost its lease is no longer leader, whatever it believes:
// proclaim and resign compare the key's create revision and fail if it is gone.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "coord/etcd_client.h"
#include "coord/watcher.h"

namespace flowlab::coord {

struct Candidacy {
  std::string key;
  int64_t create_revision = 0;
  int64_t lease = 0;
};

class Election {
 public:
  // `prefix` is the election's name; a '/' is added if it does not end in one.
  Election(EtcdClient& client, std::string prefix);

  const std::string& prefix() const { return prefix_; }

  // Enters the election with `lease` (the key lives as long as the lease):
  // returns at once with the candidacy, leader or not.
  Result<Candidacy> enter(int64_t lease, std::string_view value);
  // Enters and waits until leader, at most `timeout`: true when leading.
  Result<bool> campaign(int64_t lease, std::string_view value, std::chrono::milliseconds timeout,
                        Candidacy* out = nullptr);
  // Waits until `c` leads, at most `timeout`.
  Result<bool> wait_leader(const Candidacy& c, std::chrono::milliseconds timeout);
  Result<bool> is_leader(const Candidacy& c);

  // The leader's key-value (lowest create revision), if any candidate.
  Result<std::optional<KeyValue>> leader();
  // Every candidate, oldest first.
  Result<std::vector<KeyValue>> candidates();

  // The leader's new value; fails if `c` no longer holds its key.
  Status proclaim(const Candidacy& c, std::string_view value);
  // Leaves the election (deletes the key if it is still `c`'s).
  Status resign(const Candidacy& c);

  // Calls `on_leader` with the leader now (on the caller's thread), then on a
  // thread of its own each time it changes (nullopt: no candidate). Stops
  // with the returned watcher. Each call reads the leader after a change, so
  // changes in quick succession may be reported as their outcome only.
  using OnLeader = std::function<void(const std::optional<KeyValue>&)>;
  std::unique_ptr<Watcher> observe(OnLeader on_leader);

 private:
  EtcdClient& client_;
  std::string prefix_;
};

}  // namespace flowlab::coord

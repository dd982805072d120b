// LeaseKeeper: a thread that keeps one etcd lease alive.
//
// It sends a keepalive every `interval` (a third of the TTL unless given) and
// says, once, on its own thread, when the lease is lost: etcd answered that the
// lease is gone (expired or revoked by someone), or no keepalive succeeded for
// a whole TTL (etcd unreachable: the lease must be presumed expired, as an
// elected master must). A holder that may keep its work while etcd is away (a
// lab agent) passes presume_lost false: the keeper then retries until etcd
// answers, and the lease is lost only when etcd says it is gone.
// Stopping it (or its destructor) does not revoke the lease.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "coord/etcd_client.h"

namespace flowlab::coord {

class LeaseKeeper {
 public:
  using OnLost = std::function<void(const std::string& why)>;

  LeaseKeeper(EtcdConfig config, int64_t lease_id, int64_t ttl_seconds, OnLost on_lost,
              std::chrono::milliseconds interval = std::chrono::milliseconds(0), bool presume_lost = true);
  ~LeaseKeeper();
  LeaseKeeper(const LeaseKeeper&) = delete;
  LeaseKeeper& operator=(const LeaseKeeper&) = delete;

  int64_t lease_id() const { return id_; }
  bool lost() const { return lost_.load(); }
  // When the last keepalive succeeded.
  std::chrono::steady_clock::time_point last_renewed() const;
  void stop();

 private:
  void run();

  EtcdClient client_;
  int64_t id_;
  std::chrono::milliseconds ttl_;
  std::chrono::milliseconds interval_;
  OnLost on_lost_;
  bool presume_lost_;
  std::atomic<bool> lost_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::chrono::steady_clock::time_point last_ok_;
  std::thread thread_;
};

}  // namespace flowlab::coord

// Watcher: every change under a key prefix, from a revision on, delivered to
// a callback on a thread of its own.
//
// The stream is `/v3/watch` on one endpoint. When it ends (the member died,
// was stopped, the connection reset) the watcher reconnects to the next
// endpoint and resumes from the revision after the last one it delivered, so
// no event is lost or repeated. A member that stops answering without closing
// the connection (SIGSTOP, a cut link) is found by a status probe when the
// stream has been silent for `probe_after`. If the revision to resume from was
// compacted, the callback is told (WatchUpdate::compacted, with etcd's compact
// revision) and the watch resumes from that revision: the caller re-reads the
// state it keeps. Events of one revision arrive in one update.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coord/etcd_client.h"

namespace flowlab::coord {

struct WatchUpdate {
  std::vector<WatchEvent> events;
  int64_t revision = 0;          // the header revision of the message
  bool compacted = false;        // the resume revision was compacted away
  int64_t compact_revision = 0;  // compacted: etcd's oldest revision
};

struct WatchOptions {
  std::string prefix;          // every key starting with it ("" = all keys)
  int64_t start_revision = 0;  // 0: from now on
  bool prev_kv = false;        // deliver the previous value of changed keys
  std::chrono::milliseconds probe_after{1000};
  std::chrono::milliseconds reconnect_backoff{100};
};

class Watcher {
 public:
  using OnUpdate = std::function<void(const WatchUpdate&)>;
  // Connection state changes (lost with the reason, or resumed), for logs.
  using OnState = std::function<void(bool connected, const std::string& detail)>;

  Watcher(EtcdConfig config, WatchOptions options, OnUpdate on_update, OnState on_state = {});
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // The revision after which the next event is expected (the last delivered).
  int64_t last_revision() const { return last_revision_.load(); }
  // True once the first stream was created on a member.
  bool started() const { return started_.load(); }
  void stop();

 private:
  void run();

  EtcdConfig config_;
  WatchOptions options_;
  OnUpdate on_update_;
  OnState on_state_;
  std::atomic<int64_t> last_revision_{0};
  std::atomic<bool> started_{false};
  std::atomic<bool> stop_{false};
  std::mutex stream_mu_;
  CurlStream* stream_ = nullptr;  // the running stream, to stop it
  std::thread thread_;
};

}  // namespace flowlab::coord

// A switch's controllers one at a time (`--controller-failover`, the way Mininet's
// user switch, ofprotocol, treats its list: it talks to one controller and moves to
// the next when that connection fails or dies) and the log of its controller
// connections (`--connection-log FILE`, lines "TARGET: EVENT" as ofprotocol's log
// writes them, so a test following that log reads the same words).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"

namespace flowlab::sw {

// Which controller a failover switch tries now, and how long it waits before the
// next. Within a round of the list the next one is tried at once; after a whole
// round without a negotiated connection the wait doubles from `initial` up to `max`
// (the switch's --reconnect-max), so a switch whose controllers are all gone does not
// spin. Pure: the switch calls it on its io thread.
class FailoverRing {
 public:
  FailoverRing(size_t n, std::chrono::milliseconds initial, std::chrono::milliseconds max)
      : n_(n ? n : 1), initial_(initial), max_(max) {}
  size_t active() const { return active_; }
  // The active controller's connection failed or died: the next one is active now;
  // returns the wait before trying it.
  std::chrono::milliseconds failed();
  // The active controller answered (HELLO negotiated): the next failure starts a round.
  void connected() {
    failures_ = 0;
    wait_ = std::chrono::milliseconds(0);
  }

 private:
  size_t n_;
  std::chrono::milliseconds initial_, max_;
  size_t active_ = 0;
  size_t failures_ = 0;  // since the last negotiated connection
  std::chrono::milliseconds wait_{0};
};

// `--connection-log FILE`: truncated when opened, one line per event, flushed at once
// (a reader following the file sees each line as it happens). Default-constructed
// (no file) it writes nothing.
class ConnectionLog {
 public:
  ConnectionLog() = default;
  static Result<ConnectionLog> open(const std::string& path, std::string switch_name);
  // "2026-12-06T10:00:00.123Z|s1|tcp:192.168.123.1:6653: connected (OpenFlow 1.0)"
  void write(std::string_view target, std::string_view event);
  bool enabled() const { return file_ != nullptr; }

 private:
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Close> file_;
  std::string name_;
};

}  // namespace flowlab::sw

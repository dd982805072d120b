// One progress line on stderr for the lab run, refreshed twice a second while a step
// runs ("[2/3 ovs-osken] iperf3-tcp 3.5 s"); plain lines when stderr is not a terminal.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.h"

namespace flowlab::lab {

class ProgressLine {
 public:
  ProgressLine() : tty_(isatty(2) != 0) {}
  ~ProgressLine() { stop(); }
  void start(std::string label) {
    stop();
    label_ = std::move(label);
    start_ns_ = monotonic_ns();
    if (!tty_) {
      std::fprintf(stderr, "lab: %s ...\n", label_.c_str());
      return;
    }
    running_ = true;
    thread_ = std::thread([this] {
      while (running_) {
        {
          std::lock_guard lock(mu_);
          std::fprintf(stderr, "\r\033[K%s  %.1f s", label_.c_str(),
                       double(monotonic_ns() - start_ns_) / 1e9);
        }
        for (int i = 0; i < 10 && running_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  void done(const std::string& result) {
    stop();
    double s = double(monotonic_ns() - start_ns_) / 1e9;
    if (tty_) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "lab: %s: %s (%.1f s)\n", label_.c_str(), result.c_str(), s);
  }

 private:
  void stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
  }
  bool tty_;
  std::string label_;
  uint64_t start_ns_ = 0;
  std::atomic<bool> running_{false};
  std::mutex mu_;
  std::thread thread_;
};

}  // namespace flowlab::lab

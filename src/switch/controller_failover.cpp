// FailoverRing and ConnectionLog (see controller_failover.h).
#include "switch/controller_failover.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

namespace flowlab::sw {

std::chrono::milliseconds FailoverRing::failed() {
  active_ = (active_ + 1) % n_;
  ++failures_;
  if (failures_ % n_ != 0) return std::chrono::milliseconds(0);
  wait_ = wait_.count() == 0 ? initial_ : std::min(wait_ * 2, max_);
  return std::min(wait_, max_);
}

Result<ConnectionLog> ConnectionLog::open(const std::string& path, std::string switch_name) {
  ConnectionLog log;
  if (path.empty()) return log;
  log.file_.reset(std::fopen(path.c_str(), "w"));
  if (!log.file_) return fail("--connection-log {}: {}", path, std::strerror(errno));
  log.name_ = std::move(switch_name);
  return log;
}

void ConnectionLog::write(std::string_view target, std::string_view event) {
  if (!file_) return;
  // UTC time by strftime: fmt's chrono formatting needs the locale part of fmt that the
  // Release build does not compile (core/fmt_instance.cpp).
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string line = fmt::format("{}.{:03d}Z|{}|{}: {}\n", stamp, ms, name_, target, event);
  std::fputs(line.c_str(), file_.get());
  std::fflush(file_.get());
}

}  // namespace flowlab::sw

// FailoverRing and ConnectionLog (see controller_failover.h).
#include "switch/controller_failover.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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
  auto now = std::chrono::system_clock::now();
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::string line = fmt::format("{:%Y-%m-%dT%H:%M:%S}.{:03d}Z|{}|{}: {}\n",
                                 std::chrono::floor<std::chrono::seconds>(now), ms, name_, target, event);
  std::fputs(line.c_str(), file_.get());
  std::fflush(file_.get());
}

}  // namespace flowlab::sw

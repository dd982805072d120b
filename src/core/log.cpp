#include "core/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace flowlab::log {
namespace {
std::atomic<Level> g_level{Level::kInfo};
std::mutex g_mutex;
constexpr const char* kNames[] = {"DEBUG", "INFO", "WARN", "ERROR", "OFF"};
}  // namespace

void set_level(Level l) { g_level.store(l, std::memory_order_relaxed); }
Level level() { return g_level.load(std::memory_order_relaxed); }

bool parse_level(std::string_view s, Level& out) {
  if (s == "debug")
    out = Level::kDebug;
  else if (s == "info")
    out = Level::kInfo;
  else if (s == "warn" || s == "warning")
    out = Level::kWarn;
  else if (s == "error")
    out = Level::kError;
  else if (s == "off")
    out = Level::kOff;
  else
    return false;
  return true;
}

void write(Level l, std::string_view component, std::string_view message) {
  using namespace std::chrono;
  auto now = system_clock::now();
  auto t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char ts[32];
  std::strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  std::lock_guard lock(g_mutex);
  std::fprintf(stderr, "%s.%03lld %s %.*s: %.*s\n", ts, static_cast<long long>(ms),
               kNames[static_cast<int>(l)], int(component.size()), component.data(), int(message.size()),
               message.data());
  std::fflush(stderr);
}

}  // namespace flowlab::log

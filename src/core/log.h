// Logging: one global logger (the only global mutable state allowed), lines to stderr
// with a timestamp, level and component: "2026-11-30T05:50:01.123 INFO switch: ...".
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace flowlab::log {

enum class Level { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

void set_level(Level level);
Level level();
bool parse_level(std::string_view s, Level& out);
void write(Level level, std::string_view component, std::string_view message);

template <typename... Args>
void debug(std::string_view comp, fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::kDebug) write(Level::kDebug, comp, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void info(std::string_view comp, fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::kInfo) write(Level::kInfo, comp, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warn(std::string_view comp, fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::kWarn) write(Level::kWarn, comp, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void error(std::string_view comp, fmt::format_string<Args...> f, Args&&... args) {
  if (level() <= Level::kError) write(Level::kError, comp, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace flowlab::log

// Builds apps by name for the command line: hub, learning-switch, firewall.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "controller/app.h"
#include "core/result.h"

namespace flowlab::controller {

struct AppConfig {
  std::string config_file;     // --config (firewall rules)
  uint16_t idle_timeout = 60;  // learning-switch learned flows
};

Result<std::unique_ptr<App>> make_app(std::string_view name, const AppConfig& cfg);
std::vector<std::string_view> app_names();

}  // namespace flowlab::controller

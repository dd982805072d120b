// Builds apps by name for the command line: hub, learning-switch, firewall, shortest-path, static-flows.
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
  uint16_t idle_timeout = 60;  // learning-switch learned flows, shortest-path flows
  bool proxy_arp = false;      // shortest-path: answer ARP from the host table
  std::string flows_file;      // --flows (static-flows: ovs-ofctl flow lines)
  size_t bundle_size = 4096;   // static-flows: flow-mods per bundle (0: plain flow-mods)
};

Result<std::unique_ptr<App>> make_app(std::string_view name, const AppConfig& cfg);
std::vector<std::string_view> app_names();

}  // namespace flowlab::controller

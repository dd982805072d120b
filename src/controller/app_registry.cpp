// App registry (see app_registry.h).
#include "controller/app_registry.h"

#include "controller/apps/firewall.h"
#include "controller/apps/hub.h"
#include "controller/apps/learning_switch.h"
#include "controller/apps/shortest_path.h"
#include "controller/apps/static_flows.h"

namespace flowlab::controller {

std::vector<std::string_view> app_names() {
  return {"hub", "learning-switch", "firewall", "shortest-path", "static-flows"};
}

Result<std::unique_ptr<App>> make_app(std::string_view name, const AppConfig& cfg) {
  if (name == "hub") return std::unique_ptr<App>(std::make_unique<Hub>());
  if (name == "learning-switch" || name == "learning_switch" || name == "simple-switch")
    return std::unique_ptr<App>(std::make_unique<LearningSwitch>(cfg.idle_timeout));
  if (name == "shortest-path" || name == "shortest_path")
    return std::unique_ptr<App>(
        std::make_unique<ShortestPath>(ShortestPath::Options{cfg.idle_timeout, cfg.proxy_arp}));
  if (name == "firewall") {
    if (cfg.config_file.empty()) return fail("app 'firewall' needs --config RULES.yaml");
    FLOWLAB_ASSIGN_OR_RETURN(auto fw, Firewall::load(cfg.config_file));
    return std::unique_ptr<App>(std::move(fw));
  }
  if (name == "static-flows" || name == "static_flows") {
    if (cfg.flows_file.empty()) return fail("app 'static-flows' needs --flows FILE (ovs-ofctl flow lines)");
    FLOWLAB_ASSIGN_OR_RETURN(auto sf, StaticFlows::load(cfg.flows_file, cfg.bundle_size));
    return std::unique_ptr<App>(std::move(sf));
  }
  return fail("unknown app '{}' (known: hub, learning-switch, firewall, shortest-path, static-flows)", name);
}

}  // namespace flowlab::controller

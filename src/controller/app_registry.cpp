// App registry (see app_registry.h).
#include "controller/app_registry.h"

#include "controller/apps/firewall.h"
#include "controller/apps/hub.h"
#include "controller/apps/learning_switch.h"
#include "controller/apps/shortest_path.h"

namespace flowlab::controller {

std::vector<std::string_view> app_names() { return {"hub", "learning-switch", "firewall", "shortest-path"}; }

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
  return fail("unknown app '{}' (known: hub, learning-switch, firewall, shortest-path)", name);
}

}  // namespace flowlab::controller

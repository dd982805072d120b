// Registry (see registry.h).
#include "metrics/registry.h"

namespace flowlab::metrics {

void Registry::add(Collector c) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(c));
}

std::vector<Family> Registry::collect() const {
  std::lock_guard lock(mu_);
  std::vector<Family> out;
  for (const Collector& c : collectors_) c(out);
  return out;
}

std::string Registry::scrape() const { return write_text(collect()); }

Family counter(std::string name, std::string help) {
  return Family{std::move(name), std::move(help), MetricType::kCounter, {}, {}};
}

Family gauge(std::string name, std::string help) {
  return Family{std::move(name), std::move(help), MetricType::kGauge, {}, {}};
}

}  // namespace flowlab::metrics

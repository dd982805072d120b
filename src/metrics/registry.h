// Registry: what /metrics answers, gathered when it is asked. Collectors are
// functions that read counters the switch or controller already keeps and
// append families; nothing is counted on the data path for a scrape, and a
// process nobody scrapes pays nothing. Any thread; scrapes run one at a time.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "metrics/exposition.h"

namespace flowlab::metrics {

class Registry {
 public:
  using Collector = std::function<void(std::vector<Family>&)>;

  void add(Collector c);
  // Every collector's families, in the order the collectors were added.
  std::vector<Family> collect() const;
  // collect() in the text format.
  std::string scrape() const;

 private:
  mutable std::mutex mu_;
  std::vector<Collector> collectors_;
};

// A family to fill: counter("of_packet_ins_total", "...").add({{"dp_id", "0x1"}}, 42).
Family counter(std::string name, std::string help);
Family gauge(std::string name, std::string help);

}  // namespace flowlab::metrics

// The controller's families for /metrics (flowlab controller --metrics), read
// at scrape time from ControllerStats (atomics, any thread) and the topology
// view (a snapshot under its lock): packet-ins, flow messages, connections,
// roles, handling-time histograms, switches, ports, learned hosts and links.
// The names and their Faucet counterparts are listed in docs/CONTROLLER.md.
#pragma once

#include <string>
#include <vector>

#include "controller/stats.h"
#include "controller/topology/view.h"
#include "metrics/exposition.h"

namespace flowlab::metrics {

// `role` is what --role asked for ("master", "slave", "equal", "" for none).
void collect_controller(const controller::ControllerStats& stats,
                        const controller::topology::TopologyView& topo, const std::string& role,
                        std::vector<Family>& out);

// A log2 histogram of nanoseconds as Prometheus buckets in seconds: le = 2^k ns
// for k = 10..34 (1.024 us .. 17.2 s), cumulative, the count taken from the
// buckets themselves so that +Inf is never below a finite bucket.
HistogramSample histogram_seconds(const controller::LatencyHistogram& h, Labels labels);

}  // namespace flowlab::metrics

// The switch's families for /metrics (flowlab switch --metrics), read at
// scrape time on the agent thread (Switch::run_on_agent) from the counters the
// switch keeps anyway: ports (Gauge's of_port_* names), flow tables, the
// pipeline, the kernel fast path, the OpenFlow agent. The names and their
// Faucet/Gauge counterparts are listed in docs/SWITCH.md ("Metrics").
#pragma once

#include <chrono>
#include <vector>

#include "metrics/exposition.h"
#include "metrics/registry.h"
#include "switch/switch.h"

namespace flowlab::metrics {

// Appends the switch's families; false (nothing appended) when the agent
// thread did not answer within `timeout`.
bool collect_switch(sw::Switch& s, std::vector<Family>& out,
                    std::chrono::milliseconds timeout = std::chrono::seconds(2));

// Registers collect_switch; a scrape the agent thread does not answer in time
// answers 503 (CollectTimeout).
void add_switch_collector(Registry& r, sw::Switch& s);

// The same from the agent's state (the part run on the agent thread; tests).
void collect_switch_state(const sw::Switch::AgentState& st, size_t peers, std::vector<Family>& out);

}  // namespace flowlab::metrics

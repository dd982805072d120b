// The lab's delay line: delay and jitter for a shaped link on kernels without
// netem. A shaped link with a delay passes through a small "wire" namespace
// (shaped_link.h) in which this process, `flowlab lab delay-line` (hidden),
// reads every frame arriving on one side with AF_PACKET, holds it until its due
// time (delay + uniform jitter in [-jitter, +jitter], never before the frame
// ahead of it: no reordering) in a bounded queue (full: dropped, counted) and
// then sends it out of the other side. The hold counts from the kernel's receive
// stamp of the frame (SO_TIMESTAMPNS, so the wake-up to read it is not added) and
// is shortened by the line's own measured lateness (a low mark of how far past
// its due time a frame gets out, at most a quarter of the delay; the average
// would deliver every less-late frame early): the link adds `delay`, not delay
// plus the line's cost. Counters report both (kernel_stamped, own_latency_ns,
// own_latency_floor_ns). PACKET_VNET_HDR keeps GSO super-frames and
// partial checksums as they are, so TCP keeps its offloads through the wire.
//
// It asks for SCHED_FIFO priority 1 (the lowest real-time one; it sleeps in ppoll
// between frames) so that a loaded machine does not stretch the delay.
// On SIGTERM/SIGINT it stops and writes its counters as JSON to stats_path. On
// SIGUSR1 it re-reads params_path ("A_TO_B B_TO_A", each DELAY_NS,JITTER_NS,QUEUE):
// a re-shape changes the delay without a restart; frames already held keep their
// due time.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

struct DelayLineDirection {
  uint64_t delay_ns = 0;
  uint64_t jitter_ns = 0;
  int queue = 10000;  // frames held at most
};

// "DELAY_NS,JITTER_NS,QUEUE" (the hidden subcommand's argument form).
std::string to_arg(const DelayLineDirection& d);
Result<DelayLineDirection> parse_delay_line_arg(const std::string& s);

// Runs until SIGTERM/SIGINT (or `max_s` seconds when > 0, for tests).
Status run_delay_line(const std::string& if_a, const std::string& if_b, const DelayLineDirection& a_to_b,
                      const DelayLineDirection& b_to_a, const std::string& stats_path, double max_s = 0,
                      const std::string& params_path = {});
// Reads a params file written for SIGUSR1.
Result<std::pair<DelayLineDirection, DelayLineDirection>> read_delay_line_params(const std::string& path);

}  // namespace flowlab::lab

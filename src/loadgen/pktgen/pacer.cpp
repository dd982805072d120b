// Pacer (see pacer.h).
#include "loadgen/pktgen/pacer.h"

#include <thread>

namespace flowlab::loadgen {

void Pacer::wait() {
  if (!(rate_ > 0)) return;
  const Clock::time_point now = Clock::now();
  const double behind = std::chrono::duration<double>(now - next_due()).count();
  if (behind > max_backlog_) {
    // Too far behind: skip ahead so at most max_backlog is caught up.
    due_ += (behind - max_backlog_) * rate_;
    return;
  }
  if (behind < 0) std::this_thread::sleep_until(next_due());
}

}  // namespace flowlab::loadgen

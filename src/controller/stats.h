// Controller statistics: packet-in counters and per-event handling-time
// histograms (log2 buckets of nanoseconds), readable from any thread, printed as
// one log line and as JSON (the lab report reads the JSON).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace flowlab::controller {

// Log2 histogram: bucket i counts values in [2^i, 2^(i+1)) ns (bucket 0: < 2 ns).
class LatencyHistogram {
 public:
  static constexpr int kBuckets = 40;
  void record(uint64_t ns);
  uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  // Approximate quantile (q in [0,1]): the geometric middle of the bucket.
  uint64_t quantile_ns(double q) const;
  uint64_t max_ns() const { return max_.load(std::memory_order_relaxed); }
  uint64_t mean_ns() const;
  uint64_t sum_ns() const { return sum_.load(std::memory_order_relaxed); }
  uint64_t bucket(int i) const { return buckets_[size_t(i)].load(std::memory_order_relaxed); }
  nlohmann::json to_json() const;

 private:
  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
  std::atomic<uint64_t> count_{0}, sum_{0}, max_{0};
};

enum class EventKind {
  kSwitchConnected,
  kSwitchDisconnected,
  kPacketIn,
  kPortStatus,
  kFlowRemoved,
  kError,
  kMultipartReply,
  kCount
};
const char* to_string(EventKind k);

struct ControllerStats {
  std::atomic<uint64_t> packet_in_received{0};
  std::atomic<uint64_t> packet_in_answered{0};  // an app sent a packet-out or flow-mod for it
  std::atomic<uint64_t> packet_in_dropped{0};   // nobody answered, or the answer was refused
  std::atomic<uint64_t> packet_in_lldp{0};  // LLDP, consumed by the topology service (not in the two above)
  std::atomic<uint64_t> packet_out_sent{0};
  std::atomic<uint64_t> flow_mod_sent{0};
  std::atomic<uint64_t> messages_sent{0};
  std::atomic<uint64_t> send_refused{0};
  // Roles (--role): state-changing sends not made as a slave; role requests a
  // switch refused (stale generation id, ...); OFPBRC_IS_SLAVE errors (another
  // controller became master behind this one's back).
  std::atomic<uint64_t> slave_refused{0};
  std::atomic<uint64_t> role_refused{0};
  std::atomic<uint64_t> is_slave_errors{0};
  std::atomic<uint64_t> switches_master{0};     // now: switches where this controller is master
  std::atomic<uint64_t> switches_connected{0};  // now
  std::atomic<uint64_t> switches_seen{0};       // total since start
  std::array<LatencyHistogram, size_t(EventKind::kCount)> handling;

  std::string log_line() const;
  nlohmann::json to_json() const;
};

}  // namespace flowlab::controller

// Controller statistics (see stats.h).
#include "controller/stats.h"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <nlohmann/json.hpp>

namespace flowlab::controller {

void LatencyHistogram::record(uint64_t ns) {
  int b = ns < 2 ? 0 : std::min(kBuckets - 1, int(std::bit_width(ns)) - 1);
  buckets_[size_t(b)].fetch_add(1, std::memory_order_relaxed);
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(ns, std::memory_order_relaxed);
  uint64_t m = max_.load(std::memory_order_relaxed);
  while (ns > m && !max_.compare_exchange_weak(m, ns, std::memory_order_relaxed)) {
  }
}

uint64_t LatencyHistogram::quantile_ns(double q) const {
  uint64_t n = count();
  if (n == 0) return 0;
  auto target = uint64_t(std::ceil(q * double(n)));
  if (target == 0) target = 1;
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[size_t(i)].load(std::memory_order_relaxed);
    if (seen >= target) return uint64_t(std::ldexp(std::sqrt(2.0), i));  // 2^i * sqrt(2)
  }
  return max_ns();
}

uint64_t LatencyHistogram::mean_ns() const {
  uint64_t n = count();
  return n ? sum_.load(std::memory_order_relaxed) / n : 0;
}

nlohmann::json LatencyHistogram::to_json() const {
  nlohmann::json j;
  j["count"] = count();
  j["mean_ns"] = mean_ns();
  j["p50_ns"] = quantile_ns(0.5);
  j["p99_ns"] = quantile_ns(0.99);
  j["max_ns"] = max_ns();
  auto& b = j["log2_buckets"] = nlohmann::json::array();
  int last = 0;
  for (int i = 0; i < kBuckets; ++i)
    if (buckets_[size_t(i)].load(std::memory_order_relaxed)) last = i;
  for (int i = 0; i <= last; ++i) b.push_back(buckets_[size_t(i)].load(std::memory_order_relaxed));
  return j;
}

const char* to_string(EventKind k) {
  switch (k) {
    case EventKind::kSwitchConnected:
      return "switch_connected";
    case EventKind::kSwitchDisconnected:
      return "switch_disconnected";
    case EventKind::kPacketIn:
      return "packet_in";
    case EventKind::kPortStatus:
      return "port_status";
    case EventKind::kFlowRemoved:
      return "flow_removed";
    case EventKind::kError:
      return "error";
    case EventKind::kMultipartReply:
      return "multipart_reply";
    case EventKind::kCount:
      break;
  }
  return "?";
}

std::string ControllerStats::log_line() const {
  const auto& h = handling[size_t(EventKind::kPacketIn)];
  return fmt::format(
      "switches {} packet-in received {} answered {} dropped {} | packet-out {} flow-mod {} refused {} | "
      "packet-in handling p50 {:.1f} us p99 {:.1f} us max {:.1f} us",
      switches_connected.load(), packet_in_received.load(), packet_in_answered.load(),
      packet_in_dropped.load(), packet_out_sent.load(), flow_mod_sent.load(), send_refused.load(),
      double(h.quantile_ns(0.5)) / 1000, double(h.quantile_ns(0.99)) / 1000, double(h.max_ns()) / 1000);
}

nlohmann::json ControllerStats::to_json() const {
  nlohmann::json j;
  j["switches_connected"] = switches_connected.load();
  j["switches_seen"] = switches_seen.load();
  j["packet_in"] = {{"received", packet_in_received.load()},
                    {"answered", packet_in_answered.load()},
                    {"dropped", packet_in_dropped.load()},
                    {"lldp", packet_in_lldp.load()}};
  j["sent"] = {{"packet_out", packet_out_sent.load()},
               {"flow_mod", flow_mod_sent.load()},
               {"messages", messages_sent.load()},
               {"refused", send_refused.load()}};
  j["role"] = {{"slave_refused", slave_refused.load()},
               {"role_refused", role_refused.load()},
               {"is_slave_errors", is_slave_errors.load()},
               {"switches_master", switches_master.load()}};
  auto& h = j["handling_time"];
  for (size_t i = 0; i < size_t(EventKind::kCount); ++i)
    if (handling[i].count()) h[to_string(EventKind(i))] = handling[i].to_json();
  if (h.is_null()) h = nlohmann::json::object();
  return j;
}

}  // namespace flowlab::controller

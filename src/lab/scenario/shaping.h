// Link shaping: what a scenario asks of a link (rate, delay, jitter, loss, queue),
// per direction, and the parser of the YAML keys that say it.
//
//   links:
//     - endpoints: [h1:eth0, s1:p1]
//       bw: 1G          # 10M, 100M, 1G, 10G (bit/s, decimal units; a unit is required)
//       delay: 5ms      # one way; us, ms, s
//       jitter: 1ms     # +- uniform around delay, no reordering
//       loss: 1%        # per packet, independent
//       queue: 1000     # packets the link holds before it drops
//       a_to_b: {bw: 100M}   # per direction, over the keys above (a = first endpoint)
//       b_to_a: {loss: 0.5%}
//
// Pure data and parsing; building a shaped link in namespaces is shaped_link.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace YAML {
class Node;
}

namespace flowlab::lab {

// One direction of a link. Unset fields: not shaped.
struct LinkShape {
  std::optional<uint64_t> bw_bps;
  std::optional<uint64_t> delay_ns;
  std::optional<uint64_t> jitter_ns;
  std::optional<double> loss_pct;
  std::optional<int> queue;  // packets

  bool empty() const { return !bw_bps && !delay_ns && !jitter_ns && !loss_pct && !queue; }
  // Delay or jitter set (and non-zero): a delay line (or netem) is needed.
  bool delays() const { return delay_ns.value_or(0) > 0 || jitter_ns.value_or(0) > 0; }
  bool loses() const { return loss_pct.value_or(0) > 0; }
  // Fields set in `over` replace ours.
  void merge(const LinkShape& over);
  nlohmann::json to_json() const;
  // Exact, for a shape sent between processes: {bw_bps, delay_ns, jitter_ns, loss_pct, queue}.
  nlohmann::json to_wire() const;
};
// to_wire's JSON back, each field checked as the YAML keys are (fuzzed through
// the lab's exec requests).
Result<LinkShape> link_shape_from_wire(const nlohmann::json& j);

struct LinkShapes {
  LinkShape a_to_b, b_to_a;
  bool empty() const { return a_to_b.empty() && b_to_a.empty(); }
  void merge(const LinkShapes& over) {
    a_to_b.merge(over.a_to_b);
    b_to_a.merge(over.b_to_a);
  }
  // Across machines, the machine holding one end of a link shapes the direction
  // leaving it, as its half's a_to_b: the link's b_to_a when it holds end b.
  LinkShapes leaving(bool holds_b) const { return {holds_b ? b_to_a : a_to_b, {}}; }
  static std::string_view leaving_key(bool holds_b) { return holds_b ? "b_to_a" : "a_to_b"; }
};

// The shaping keys a link mapping may hold besides its own (endpoints, mtu).
inline constexpr std::string_view kShapeKeys[] = {"bw",    "delay",  "jitter", "loss",
                                                  "queue", "a_to_b", "b_to_a"};
bool is_shape_key(std::string_view key);

// Reads the shaping keys of a link node (both directions, then a_to_b/b_to_a on
// top). Errors read "FILE:LINE: key 'K': message", e.g. "bw: 10X".
Result<LinkShapes> parse_link_shapes(const YAML::Node& link, const std::string& path);
// A flat mapping of bw/delay/jitter/loss/queue (an event's `set:`), for both
// directions.
Result<LinkShape> parse_shape_map(const YAML::Node& map, const std::string& path, std::string_view where);

// Units. Each returns an error message naming what it expected.
Result<uint64_t> parse_rate_bps(std::string_view text);     // "100M" -> 100000000
Result<uint64_t> parse_duration_ns(std::string_view text);  // "1.5ms" -> 1500000; "0" allowed
Result<double> parse_percent(std::string_view text);        // "5%" or "5" -> 5
std::string format_rate(uint64_t bps);                      // 1000000000 -> "1G"
std::string format_duration(uint64_t ns);                   // 1500000 -> "1.5ms"

}  // namespace flowlab::lab

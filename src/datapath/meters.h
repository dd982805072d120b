// Meters: token-bucket rate limiters with drop and dscp-remark bands.
//
// Idea. Each band has its own token bucket filled at the band rate (kbps or
// pktps) up to its burst size; a packet takes tokens from every band that has
// enough, and the band with the highest rate among those that did not is the
// one applied (drop, or raise the DSCP drop precedence). Time is the now_ns the
// caller passes in, so tests drive it with a fake clock.
//
// Invariants. A Meter is immutable once published; its mutable state (tokens,
// last refill time, counters) lives in MeterState and is updated with atomic
// compare-and-swap loops: no lock, several forwarding threads may meter at once.
// Token units: 1e-6 bit (kbps) or 1e-9 packet (pktps), so refill is rate * elapsed_ns.
// Cost per packet: O(bands) atomic operations.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "datapath/datapath.h"

namespace flowlab::dp {

struct MeterState {
  explicit MeterState(size_t n_bands) : tokens(n_bands), band_packets(n_bands), band_bytes(n_bands) {}
  std::atomic<uint64_t> last_ns{0};
  std::vector<std::atomic<int64_t>> tokens;
  std::atomic<uint64_t> packets{0};
  std::atomic<uint64_t> bytes{0};
  std::vector<std::atomic<uint64_t>> band_packets;
  std::vector<std::atomic<uint64_t>> band_bytes;
};

struct Meter {
  uint32_t id = 0;
  uint16_t flags = 0;
  std::vector<of::MeterBand> bands;
  std::vector<int64_t> capacity;  // per band, token units
  uint64_t created_ns = 0;
  std::shared_ptr<MeterState> state;
};
using MeterPtr = std::shared_ptr<const Meter>;
using MeterTable = std::map<uint32_t, MeterPtr>;

// What a meter decided for one packet.
struct MeterVerdict {
  bool drop = false;
  uint8_t raise_precedence = 0;  // dscp-remark band: prec_level to add
};
MeterVerdict meter_packet(const Meter& m, size_t bytes, uint64_t now_ns);

// Checks and applies a meter-mod to `table`. Errors carry OFPMMFC_* codes.
OfStatus apply_meter_mod(MeterTable& table, const of::MeterMod& mm, uint64_t now_ns);

// DSCP after a dscp_remark band of prec_level `levels`:
// - an AF code point gets its drop precedence raised (AFx1 -> AFx2 -> AFx3);
// - a class selector (CSn, the IP precedence with no drop bits) has no drop
//   precedence to raise: its precedence is lowered by `levels` (CS3 -> CS2,
//   never below CS0), as Ryu's switch suite expects (24 -> 16 at prec_level 1);
// - other code points (EF, experimental ones) are returned unchanged.
uint8_t remark_dscp(uint8_t dscp, uint8_t levels);

inline constexpr uint32_t kMaxMeters = 65536;
inline constexpr uint8_t kMaxMeterBands = 8;

}  // namespace flowlab::dp

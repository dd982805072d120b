// BufferStore: packets held for the controller under a buffer id (packet-in
// with buffer_id, then packet-out / flow-mod naming that id).
//
// Bounded: at most `capacity` packets and `max_bytes` of packet data are held;
// past either bound the oldest packets are evicted (and counted). The byte
// bound lets the count be high enough for a deep to-controller queue of small
// packets (a controller answers after the agent has sent a whole batch) while
// 64 KB GSO super-frames still cannot take unbounded memory. Each id is used once: take() removes the packet,
// and a packet older than `timeout` is gone (OFPBRC_BUFFER_UNKNOWN / BUFFER_EMPTY). Ids are slot | generation
// << 16 so a stale id never names a newer packet. Used only on the agent thread: no locking.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/bytes.h"
#include "packet/packet.h"

namespace flowlab::sw {

struct BufferedPacket {
  Bytes data;
  uint32_t in_port = 0;
  uint64_t metadata = 0;
  uint64_t tunnel_id = 0;
  OffloadInfo offload;  // kept so a packet-out by buffer id re-sends a GSO frame as such
};

class BufferStore {
 public:
  enum class Miss { kUnknown, kExpired };

  static constexpr size_t kDefaultMaxBytes = size_t(64) << 20;
  BufferStore(uint32_t capacity, uint64_t timeout_ns, size_t max_bytes = kDefaultMaxBytes);

  // Stores a packet; returns its id, or kNoBuffer (0xffffffff) when capacity is 0.
  uint32_t put(BufferedPacket pkt, uint64_t now_ns);
  // Removes and returns the packet of `id`; nullopt + why when absent.
  std::optional<BufferedPacket> take(uint32_t id, uint64_t now_ns, Miss* why = nullptr);
  // Frees packets older than the timeout.
  void expire(uint64_t now_ns);

  uint32_t capacity() const { return cap_; }
  size_t in_use() const { return in_use_; }
  size_t bytes() const { return bytes_; }
  uint64_t evicted() const { return evicted_; }
  uint64_t expired() const { return expired_; }

 private:
  struct Slot {
    bool used = false;
    uint16_t gen = 0;
    uint64_t stored_ns = 0;
    BufferedPacket pkt;
  };
  uint32_t cap_;
  std::vector<Slot> slots_;         // grows up to cap_ as the ring is first filled
  BufferedPacket release(Slot& s);  // empties a used slot, returns its packet

  uint64_t timeout_ns_;
  size_t max_bytes_;
  size_t next_ = 0;
  size_t in_use_ = 0;
  size_t bytes_ = 0;
  uint64_t evicted_ = 0, expired_ = 0;
};

}  // namespace flowlab::sw

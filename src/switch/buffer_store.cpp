// BufferStore (see buffer_store.h): a ring of slots; put() takes the next slot
// in order, evicting what it holds, so the oldest packet goes first.
#include "switch/buffer_store.h"

#include <algorithm>
#include <utility>

namespace flowlab::sw {

namespace {
constexpr uint32_t kNoBufferId = 0xffffffff;
}

BufferStore::BufferStore(uint32_t capacity, uint64_t timeout_ns, size_t max_bytes)
    : cap_(capacity > 0xffff ? 0xffff : capacity), timeout_ns_(timeout_ns), max_bytes_(max_bytes) {}

BufferedPacket BufferStore::release(Slot& s) {
  s.used = false;
  bytes_ -= s.pkt.data.size();
  --in_use_;
  return std::exchange(s.pkt, {});
}

uint32_t BufferStore::put(BufferedPacket pkt, uint64_t now_ns) {
  if (cap_ == 0) return kNoBufferId;
  // The ring grows as it is first filled (a switch that buffers nothing holds no
  // slots; 64k of them are 4 MB), and turns once it has all its slots.
  if (next_ >= slots_.size()) {
    if (slots_.size() < cap_)
      slots_.resize(std::min<size_t>(cap_, std::max<size_t>(256, slots_.size() * 2)));
    else
      next_ = 0;
  }
  // Over the byte bound: evict from the oldest (the slots after next_, in
  // ring order) until the new packet fits. Stops at a full turn, so a packet
  // larger than the bound alone is still stored.
  for (size_t k = 1; k < slots_.size() && bytes_ + pkt.data.size() > max_bytes_; ++k) {
    Slot& old = slots_[(next_ + k) % slots_.size()];
    if (!old.used) continue;
    release(old);
    ++evicted_;
  }
  size_t i = next_++;
  Slot& s = slots_[i];
  if (s.used) {
    release(s);
    ++evicted_;
  }
  s.used = true;
  ++in_use_;
  s.gen = uint16_t(s.gen + 1);
  if (s.gen == 0xffff) s.gen = 0;  // keep ids below kNoBuffer
  s.stored_ns = now_ns;
  s.pkt = std::move(pkt);
  bytes_ += s.pkt.data.size();
  return uint32_t(i) | uint32_t(s.gen) << 16;
}

std::optional<BufferedPacket> BufferStore::take(uint32_t id, uint64_t now_ns, Miss* why) {
  size_t i = id & 0xffff;
  uint16_t gen = uint16_t(id >> 16);
  if (i >= slots_.size() || !slots_[i].used || slots_[i].gen != gen) {
    if (why) *why = (i < slots_.size() && slots_[i].gen == gen) ? Miss::kExpired : Miss::kUnknown;
    return std::nullopt;
  }
  Slot& s = slots_[i];
  if (now_ns - s.stored_ns > timeout_ns_) {
    release(s);
    ++expired_;
    if (why) *why = Miss::kExpired;
    return std::nullopt;
  }
  return release(s);
}

void BufferStore::expire(uint64_t now_ns) {
  if (in_use_ == 0) return;  // an idle switch's tick does not walk its 64k slots
  for (auto& s : slots_) {
    if (s.used && now_ns - s.stored_ns > timeout_ns_) {
      release(s);
      ++expired_;
    }
  }
}

}  // namespace flowlab::sw

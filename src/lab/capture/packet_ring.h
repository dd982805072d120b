// PacketRing: the frames one interface receives, as the kernel hands them, through
// a TPACKET_V3 receive ring mapped into the process (AF_PACKET, ETH_P_ALL).
//
// The kernel copies each inbound frame once, into the ring, in the receiving
// softirq; the reader gets whole blocks of frames and hands each block back when
// it is done with it, so a block's frames are read where the kernel put them.
// Outbound frames are not copied at all: the socket ignores them
// (PACKET_IGNORE_OUTGOING, so the transmit path does not even clone them for it),
// and a socket filter on the packet type drops them where that option is missing.
// Frames keep their full length (no snap length beyond a block), GSO super-frames
// included; timestamps are the kernel's, in nanoseconds.
//
// The socket belongs to the network namespace of the thread that opens it.
// Move-only owner of the socket and the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

// Outbound frames dropped in the kernel at packet socket `fd`, before they are
// copied for it: a socket filter on the packet type. `where` names it in errors.
Status drop_outgoing(int fd, const std::string& where);

// One frame in a block, valid until the block is released.
struct RingFrame {
  const uint8_t* data = nullptr;
  uint32_t caplen = 0;  // bytes in the ring
  uint32_t len = 0;     // bytes on the wire (the frame's own length)
  uint32_t sec = 0, nsec = 0;
  bool has_vlan = false;  // a VLAN tag the kernel took out of the frame (tci, tpid)
  uint16_t vlan_tci = 0, vlan_tpid = 0;
};

class PacketRing {
 public:
  static constexpr uint32_t kBlockBytes = 1u << 20;  // one block holds a few GSO super-frames
  static constexpr uint32_t kBlocks = 8;
  static constexpr uint32_t kBlockTimeoutMs = 20;  // a partly filled block is handed over after this

  // Opens the ring on `ifname` in the calling thread's namespace; `where` names it in errors.
  static Result<PacketRing> open(const std::string& where, const std::string& ifname);
  PacketRing(PacketRing&& o) noexcept;
  PacketRing& operator=(PacketRing&& o) noexcept;
  PacketRing(const PacketRing&) = delete;
  PacketRing& operator=(const PacketRing&) = delete;
  ~PacketRing();

  int fd() const { return fd_; }  // poll for POLLIN: a block is ready

  // The next block the kernel handed over, or none.
  bool next_block();
  // Walks the current block: the next frame, or false when the block is done.
  bool next_frame(RingFrame* f);
  void release_block();  // back to the kernel; the frames read from it are gone

  // Frames the kernel dropped because the ring was full, since the last call.
  uint64_t take_drops();

 private:
  PacketRing() = default;
  void close_all();
  int fd_ = -1;
  uint8_t* map_ = nullptr;
  size_t map_bytes_ = 0;
  uint32_t block_ = 0;          // the block next_block() looks at
  uint8_t* current_ = nullptr;  // the block being read, or null
  const uint8_t* frame_ = nullptr;
  uint32_t frames_left_ = 0;
};

}  // namespace flowlab::lab

// Packet: one frame in an owned buffer with headroom, plus its offload metadata.
//
// Ports receive into Packets, the datapath rewrites them in place (push/pop of
// headers uses the headroom), ports transmit them. Offload metadata follows the
// virtio-net header that AF_PACKET (PACKET_VNET_HDR) and TAP (IFF_VNET_HDR) use:
// a frame may be a GSO super-frame (gso_type != kGsoNone, up to 64 KB) and/or
// carry a partial checksum (kNeedsCsum: the L4 checksum field at
// csum_start+csum_offset holds only the pseudo-header sum). Whoever moves or
// changes headers keeps csum_start/hdr_len consistent; an output that cannot
// take the metadata completes the checksum / segments in software.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

namespace flowlab {

// virtio_net_hdr fields, host byte order.
struct OffloadInfo {
  static constexpr uint8_t kNeedsCsum = 1;  // VIRTIO_NET_HDR_F_NEEDS_CSUM
  static constexpr uint8_t kDataValid = 2;  // VIRTIO_NET_HDR_F_DATA_VALID
  static constexpr uint8_t kGsoNone = 0;
  static constexpr uint8_t kGsoTcpv4 = 1;
  static constexpr uint8_t kGsoUdp = 3;
  static constexpr uint8_t kGsoTcpv6 = 4;
  static constexpr uint8_t kGsoUdpL4 = 5;
  static constexpr uint8_t kGsoEcn = 0x80;

  uint8_t flags = 0;
  uint8_t gso_type = kGsoNone;
  uint16_t hdr_len = 0;
  uint16_t gso_size = 0;
  uint16_t csum_start = 0;
  uint16_t csum_offset = 0;

  bool needs_csum() const { return flags & kNeedsCsum; }
  bool is_gso() const { return (gso_type & ~kGsoEcn) != kGsoNone; }
  void clear() { *this = OffloadInfo{}; }
};

class Packet {
 public:
  static constexpr size_t kHeadroom = 128;
  static constexpr size_t kDefaultCapacity = 65536 + 512;

  explicit Packet(size_t capacity = kDefaultCapacity)
      : buf_(std::make_unique_for_overwrite<uint8_t[]>(capacity + kHeadroom)), cap_(capacity + kHeadroom) {}
  // (for_overwrite: no memset of the 64 KB buffer; bytes past size() are never read)
  Packet(const Packet&) = delete;
  Packet& operator=(const Packet&) = delete;
  Packet(Packet&&) noexcept = default;
  Packet& operator=(Packet&&) noexcept = default;

  uint8_t* data() { return buf_.get() + off_; }
  const uint8_t* data() const { return buf_.get() + off_; }
  size_t size() const { return len_; }
  size_t headroom() const { return off_; }
  size_t tailroom() const { return cap_ - off_ - len_; }
  size_t capacity() const { return cap_; }

  // Start over: empty frame at the default headroom, metadata cleared.
  void reset() {
    off_ = kHeadroom;
    len_ = 0;
    offload.clear();
    in_port = 0;
    metadata = 0;
    tunnel_id = 0;
  }
  // Room for writing a frame of up to n bytes at data(); false if it cannot fit.
  bool set_size(size_t n) {
    if (off_ + n > cap_) return false;
    len_ = n;
    return true;
  }
  bool assign(const uint8_t* p, size_t n) {
    reset();
    if (!set_size(n)) return false;
    std::memcpy(data(), p, n);
    return true;
  }
  // Grow at the front (push a header); nullptr when the headroom is used up.
  uint8_t* push_front(size_t n) {
    if (n > off_) return nullptr;
    off_ -= n;
    len_ += n;
    return data();
  }
  // Drop n bytes from the front (pop a header).
  bool pull_front(size_t n) {
    if (n > len_) return false;
    off_ += n;
    len_ -= n;
    return true;
  }
  void truncate(size_t n) {
    if (n < len_) len_ = n;
  }

  OffloadInfo offload;
  uint32_t in_port = 0;   // OpenFlow port number it arrived on
  uint64_t metadata = 0;  // OpenFlow metadata register
  uint64_t tunnel_id = 0;

 private:
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;
  size_t off_ = kHeadroom;
  size_t len_ = 0;
};

// A batch of packets handed between port, datapath and port again (up to kMax).
struct PacketBatch {
  static constexpr size_t kMax = 32;
  std::vector<Packet*> pkts;
  PacketBatch() { pkts.reserve(kMax); }
  size_t size() const { return pkts.size(); }
  bool full() const { return pkts.size() >= kMax; }
  void clear() { pkts.clear(); }
};

}  // namespace flowlab

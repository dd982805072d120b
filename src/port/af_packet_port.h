// AfPacketPort: a switch port on an existing Linux interface (veth, physical)
// through an AF_PACKET socket with a TPACKET_V2 receive ring and PACKET_VNET_HDR,
// so GSO super-frames and partial checksums cross it with their metadata.
// See the design comment in af_packet_port.cpp.
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "port/netdev.h"
#include "port/port.h"

namespace flowlab {

class AfPacketPort final : public Port {
 public:
  static Result<std::unique_ptr<AfPacketPort>> open(std::string_view ifname, const PortOptions& opts = {});
  ~AfPacketPort() override;

  std::string_view name() const override { return name_; }
  int ifindex() const override { return ifindex_; }
  MacAddr mac() const override;
  uint32_t mtu() const override;
  bool link_up() const override;
  uint32_t speed_mbps() const override;
  int poll_fd() const override { return receive_ ? fd_.get() : -1; }
  // The kernel sets ENETDOWN on the socket when the link goes down (and
  // re-arms the socket itself when it comes back up); SO_ERROR reads it.
  int take_error() override;
  PortCapabilities capabilities() const override { return caps_; }

  size_t rx_batch(PacketBatch& batch, size_t max) override;
  size_t tx_batch(PacketBatch& batch) override;
  // tx_batch, returning what this call alone added to the transmit counters
  // (packets, bytes, drops, errors), read under the transmit lock: threads
  // transmitting on the port at the same time each get their own share.
  PortStats tx_batch_counted(PacketBatch& batch);

  // Ring geometry, for tests and logs.
  uint32_t ring_frame_size() const { return frame_size_; }
  uint32_t ring_frames() const { return frame_nr_; }

 private:
  AfPacketPort() = default;
  Status setup(std::string_view ifname, const PortOptions& opts);
  Status setup_ring(std::string_view ifname, const PortOptions& opts);
  Status finish_setup(std::string_view ifname, const PortOptions& opts);
  bool receive_one(void* slot, uint32_t status, Packet& pkt);
  bool receive_copied(Packet& pkt);
  void account_kernel_drops();
  void queue_tx(Packet& pkt);
  void flush_tx();

  static constexpr size_t kTxBatch = 32;
  struct VnetHdr {  // struct virtio_net_hdr, host byte order (little-endian hosts)
    uint8_t flags, gso_type;
    uint16_t hdr_len, gso_size, csum_start, csum_offset;
  };
  static_assert(sizeof(VnetHdr) == 10);

  UniqueFd fd_;
  UniqueFd ctl_;  // ioctl socket in the namespace the port was opened in
  uint8_t* ring_ = nullptr;
  std::vector<uint8_t*> slots_;  // start of each ring frame
  size_t ring_bytes_ = 0;
  uint32_t frame_size_ = 0;
  uint32_t frame_nr_ = 0;
  uint32_t rx_head_ = 0;
  std::string name_;
  int ifindex_ = 0;
  bool vnet_ = false;
  bool receive_ = true;
  PortCapabilities caps_;

  // Transmit state, guarded by tx_mu_.
  std::mutex tx_mu_;
  size_t tx_n_ = 0;
  uint64_t tx_bytes_pending_[kTxBatch] = {};
  mmsghdr tx_msgs_[kTxBatch] = {};
  iovec tx_iov_[kTxBatch][2] = {};
  VnetHdr tx_vnet_[kTxBatch] = {};
  std::unique_ptr<Packet> tx_scratch_;  // software segmentation (vnet off only)
};

}  // namespace flowlab

// KernelPort: a switch port served by the kernel fast path. Transmits on the
// interface through a transmit-only AF_PACKET socket (no receive ring: the TC
// program sees every received packet first) and receives only the misses the
// program redirects to the port's upcall device, a TAP `flup<ifindex>` this
// port creates (non-persistent: it disappears with the port, even on a crash;
// IPv6 off so the host stack never sends into it) and reads with the
// virtio-net header, so GSO super-frames and partial checksums come up whole.
//
// Counters: rx/tx of the slow path, plus what the switch folds in for kernel
// hits (add_fast_path_rx / add_fast_path_tx).
#pragma once

#include <memory>
#include <string>

#include "port/af_packet_port.h"
#include "port/tap_port.h"

namespace flowlab::kernel {

class KernelPort final : public Port {
 public:
  static Result<std::unique_ptr<KernelPort>> open(std::string_view ifname);

  std::string_view name() const override { return tx_->name(); }
  int ifindex() const override { return tx_->ifindex(); }
  MacAddr mac() const override { return tx_->mac(); }
  uint32_t mtu() const override { return tx_->mtu(); }
  bool link_up() const override { return tx_->link_up(); }
  uint32_t speed_mbps() const override { return tx_->speed_mbps(); }
  int poll_fd() const override { return upcall_->poll_fd(); }
  PortCapabilities capabilities() const override { return tx_->capabilities(); }
  size_t rx_batch(PacketBatch& batch, size_t max) override;
  size_t tx_batch(PacketBatch& batch) override;

  int upcall_ifindex() const { return upcall_->ifindex(); }
  // A veth whose peer is in another network namespace: the fast path can hand
  // packets straight to the peer's ingress (bpf_redirect_peer).
  bool veth_peer_elsewhere() const { return veth_peer_elsewhere_; }
  std::string_view upcall_name() const { return upcall_->name(); }
  void add_fast_path_rx(uint64_t pkts, uint64_t bytes) { counters_.add_rx(pkts, bytes); }
  void add_fast_path_tx(uint64_t pkts, uint64_t bytes) { counters_.add_tx(pkts, bytes); }

 private:
  KernelPort() = default;
  std::unique_ptr<AfPacketPort> tx_;
  std::unique_ptr<TapPort> upcall_;
  bool veth_peer_elsewhere_ = false;
};

}  // namespace flowlab::kernel

// KernelPort: a switch port served by the kernel fast path. Transmits on the
// interface through a transmit-only AF_PACKET socket (no receive ring: the TC
// program sees every received packet first). It receives nothing itself
// (poll_fd() -1): the program's misses of all the switch's ports come up
// through the switch's one upcall device (upcall_device.h), tagged with the
// port, and the forwarding thread that reads them counts them here
// (add_upcall_rx).
//
// Counters: rx/tx of the slow path, plus what the switch folds in for kernel
// hits (add_fast_path_rx / add_fast_path_tx).
#pragma once

#include <memory>
#include <string>

#include "port/af_packet_port.h"

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
  int poll_fd() const override { return -1; }
  PortCapabilities capabilities() const override { return tx_->capabilities(); }
  size_t rx_batch(PacketBatch& batch, size_t max) override;
  size_t tx_batch(PacketBatch& batch) override;

  // A veth whose peer is in another network namespace: the fast path can hand
  // packets straight to the peer's ingress (bpf_redirect_peer).
  bool veth_peer_elsewhere() const { return veth_peer_elsewhere_; }
  void add_upcall_rx(uint64_t bytes) { counters_.add_rx(1, bytes); }
  void add_fast_path_rx(uint64_t pkts, uint64_t bytes) { counters_.add_rx(pkts, bytes); }
  void add_fast_path_tx(uint64_t pkts, uint64_t bytes) { counters_.add_tx(pkts, bytes); }

 private:
  KernelPort() = default;
  std::unique_ptr<AfPacketPort> tx_;
  bool veth_peer_elsewhere_ = false;
};

}  // namespace flowlab::kernel

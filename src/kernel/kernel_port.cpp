// KernelPort (see kernel_port.h).
#include "kernel/kernel_port.h"

#include <cstdio>

#include "core/log.h"
#include "port/netdev.h"

namespace flowlab::kernel {

Result<std::unique_ptr<KernelPort>> KernelPort::open(std::string_view ifname) {
  std::unique_ptr<KernelPort> p(new KernelPort());
  PortOptions tx_opts;
  tx_opts.receive = false;
  FLOWLAB_ASSIGN_OR_RETURN(p->tx_, AfPacketPort::open(ifname, tx_opts));
  std::string up = fmt::format("flup{}", p->tx_->ifindex());
  if (netdev::exists(up))
    return fail("{}: upcall device {} already exists (another switch on this port?)", ifname, up);
  PortOptions up_opts;
  up_opts.tap_up = false;
  auto tap = TapPort::open(up, up_opts);
  if (!tap.ok()) return fail("{}: cannot create the upcall device {}: {}", ifname, up, tap.error().message);
  p->upcall_ = std::move(*tap);
  // The host stack must never transmit into the upcall device: no IPv6 (no
  // router solicitations, MLD reports), no address.
  std::string sysctl = fmt::format("/proc/sys/net/ipv6/conf/{}/disable_ipv6", up);
  if (std::FILE* f = std::fopen(sysctl.c_str(), "w")) {
    std::fputs("1", f);
    std::fclose(f);
  }
  FLOWLAB_TRY(netdev::set_up(up, true));
  return p;
}

size_t KernelPort::rx_batch(PacketBatch& batch, size_t max) {
  size_t n = upcall_->rx_batch(batch, max);
  uint64_t bytes = 0;
  for (size_t i = 0; i < n; ++i) {
    batch.pkts[i]->in_port = port_no_;
    bytes += batch.pkts[i]->size();
  }
  counters_.add_rx(n, bytes);
  return n;
}

size_t KernelPort::tx_batch(PacketBatch& batch) {
  PortStats before = tx_->stats();
  size_t n = tx_->tx_batch(batch);
  PortStats after = tx_->stats();
  counters_.add_tx(after.tx_packets - before.tx_packets, after.tx_bytes - before.tx_bytes);
  counters_.add_tx_dropped(after.tx_dropped - before.tx_dropped);
  counters_.add_tx_errors(after.tx_errors - before.tx_errors);
  return n;
}

}  // namespace flowlab::kernel

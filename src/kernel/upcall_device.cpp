// UpcallDevice (see upcall_device.h).
#include "kernel/upcall_device.h"

#include <cstdio>
#include <cstring>

#include "core/log.h"
#include "kernel/fast_path_abi.h"
#include "port/netdev.h"

namespace flowlab::kernel {

Result<std::unique_ptr<UpcallDevice>> UpcallDevice::open(int first_ifindex, size_t queues) {
  std::string name = fmt::format("flup{}", first_ifindex);
  if (netdev::exists(name))
    return fail("upcall device {} already exists (another switch on ifindex {}?)", name, first_ifindex);
  std::unique_ptr<UpcallDevice> d(new UpcallDevice());
  PortOptions opts;
  opts.tap_up = false;
  for (size_t i = 0; i < std::max<size_t>(1, queues); ++i) {
    auto tap = queues > 1 ? TapPort::open_queue(name, opts) : TapPort::open(name, opts);
    if (!tap.ok()) return fail("cannot create the upcall device {}: {}", name, tap.error().message);
    d->queues_.push_back(std::move(*tap));
  }
  // The host stack must never transmit into the upcall device: no IPv6 (no
  // router solicitations, MLD reports), no address.
  std::string sysctl = fmt::format("/proc/sys/net/ipv6/conf/{}/disable_ipv6", name);
  if (std::FILE* f = std::fopen(sysctl.c_str(), "w")) {
    std::fputs("1", f);
    std::fclose(f);
  }
  FLOWLAB_TRY(netdev::set_up(name, true));
  log::debug("kernel", "upcall device {} (ifindex {}, {} queue(s))", name, d->ifindex(), d->queues_.size());
  return d;
}

int UpcallDevice::pop_port_tag(Packet& pkt) {
  constexpr size_t kMacs = 12, kTag = 4;
  uint8_t* p = pkt.data();
  if (pkt.size() < kMacs + kTag + 2 || p[kMacs] != (FL_UPCALL_TPID >> 8) ||
      p[kMacs + 1] != (FL_UPCALL_TPID & 0xff))
    return -1;
  int tag = ((p[kMacs + 2] << 8) | p[kMacs + 3]) & FL_MAX_PORT_TAG;
  std::memmove(p + kTag, p, kMacs);
  pkt.pull_front(kTag);
  // The kernel counted the tag in the checksum start (virtio_net_hdr_from_skb's
  // vlan_hlen); the header length is a hint of the untagged skb's linear
  // part, kept within the frame.
  OffloadInfo& o = pkt.offload;
  if (o.flags & OffloadInfo::kNeedsCsum)
    o.csum_start = uint16_t(o.csum_start >= kTag ? o.csum_start - kTag : 0);
  if (o.hdr_len > pkt.size()) o.hdr_len = uint16_t(pkt.size());
  return tag;
}

}  // namespace flowlab::kernel

// TapPort: /dev/net/tun in TAP mode with the virtio-net header (see tap_port.h).
//
// Offloads: TUNSETOFFLOAD(CSUM|TSO4|TSO6|TSO_ECN[|USO4|USO6]) tells the kernel
// that we accept partial checksums and GSO frames, which turns those features
// on for the tap device: traffic the host sends into the tap reaches us as
// super-frames. Frames we write may carry any virtio-net GSO type; the kernel
// segments them if the receiving path needs it.
#include "port/tap_port.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "port/tx_fallback.h"

namespace flowlab {

Result<std::unique_ptr<TapPort>> TapPort::open(std::string_view tapname, const PortOptions& opts) {
  std::unique_ptr<TapPort> p(new TapPort());  // private constructor
  FLOWLAB_TRY(p->setup(tapname, opts, false));
  return p;
}

Result<std::unique_ptr<TapPort>> TapPort::open_queue(std::string_view tapname, const PortOptions& opts) {
  std::unique_ptr<TapPort> p(new TapPort());
  FLOWLAB_TRY(p->setup(tapname, opts, true));
  return p;
}

Status TapPort::setup(std::string_view tapname, const PortOptions& opts, bool multi_queue) {
  FLOWLAB_TRY(netdev::check_name(tapname));
  name_ = std::string(tapname);
  FLOWLAB_ASSIGN_OR_RETURN(ctl_, netdev::control_socket());
  bool existed = netdev::exists(tapname, ctl_.get());
  if (!existed && !opts.create_tap) return fail("tap interface {} does not exist", tapname);

  int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EPERM || errno == EACCES)
      return fail("cannot open /dev/net/tun for {}: needs root (CAP_NET_ADMIN)", tapname);
    return fail("cannot open /dev/net/tun for {}: {}", tapname, std::strerror(errno));
  }
  fd_.reset(fd);
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, tapname.data(), tapname.size());
  ifr.ifr_flags =
      IFF_TAP | IFF_NO_PI | (opts.vnet_hdr ? IFF_VNET_HDR : 0) | (multi_queue ? IFF_MULTI_QUEUE : 0);
  if (::ioctl(fd, TUNSETIFF, &ifr) < 0) {
    if (errno == EBUSY) return fail("tap {} is busy (already attached, or not a tap device)", tapname);
    if (errno == EINVAL && existed) return fail("interface {} exists but is not a tap device", tapname);
    return fail("TUNSETIFF {} failed: {}", tapname, std::strerror(errno));
  }
  created_ = !existed;
  if (opts.vnet_hdr) {
    int sz = sizeof(VnetHdr);
    if (::ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0)
      return fail("TUNSETVNETHDRSZ on {} failed: {}", tapname, std::strerror(errno));
    unsigned base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN;
#ifdef TUN_F_USO4
    if (::ioctl(fd, TUNSETOFFLOAD, base | TUN_F_USO4 | TUN_F_USO6) == 0) {
      caps_ = PortCapabilities::all();
    } else
#endif
        if (::ioctl(fd, TUNSETOFFLOAD, base) == 0) {
      caps_ = PortCapabilities::all();
    } else {
      log::warn("port", "{}: TUNSETOFFLOAD failed ({}); offloads off", tapname, std::strerror(errno));
      caps_ = PortCapabilities::all();  // writes with vnet metadata are still accepted
    }
  }
  FLOWLAB_ASSIGN_OR_RETURN(ifindex_, netdev::ifindex(tapname, ctl_.get()));
  if (created_ && opts.tap_up) {
    auto st = netdev::set_up(tapname, true, ctl_.get());
    if (!st.ok()) log::warn("port", "{}: cannot bring the new tap up: {}", tapname, st.error().message);
  }
  log::debug("port", "{}: TAP ifindex {} ({})", name_, ifindex_, created_ ? "created" : "attached");
  return ok_status();
}

MacAddr TapPort::mac() const {
  auto m = netdev::mac(name_, ctl_.get());
  return m.ok() ? *m : MacAddr{};
}
uint32_t TapPort::mtu() const {
  auto m = netdev::mtu(name_, ctl_.get());
  return m.ok() ? *m : 0;
}
bool TapPort::link_up() const {
  auto u = netdev::link_up(name_, ctl_.get());
  return u.ok() && *u;
}

size_t TapPort::rx_batch(PacketBatch& batch, size_t max) {
  size_t limit = std::min(max, batch.pkts.size());
  size_t n = 0;
  uint64_t bytes = 0;
  bool vnet = caps_.vnet_hdr;
  while (n < limit) {
    Packet& pkt = *batch.pkts[n];
    pkt.reset();
    VnetHdr vh{};
    iovec iov[2];
    int k = 0;
    if (vnet) iov[k++] = {&vh, sizeof vh};
    iov[k++] = {pkt.data(), pkt.tailroom()};
    ssize_t r = ::readv(fd_.get(), iov, k);
    if (r < 0) {
      if (errno != EAGAIN && errno != EINTR) counters_.add_rx_errors(1);
      break;
    }
    size_t len = size_t(r) - (vnet ? sizeof vh : 0);
    if (size_t(r) < (vnet ? sizeof vh : 0) || !pkt.set_size(len)) {
      counters_.add_rx_errors(1);
      continue;
    }
    pkt.offload = {vh.flags, vh.gso_type, vh.hdr_len, vh.gso_size, vh.csum_start, vh.csum_offset};
    pkt.in_port = port_no_;
    bytes += len;
    ++n;
  }
  batch.pkts.resize(n);
  counters_.add_rx(n, bytes);
  return n;
}

bool TapPort::write_frame(Packet& pkt) {
  VnetHdr vh{};
  iovec iov[2];
  int k = 0;
  if (caps_.vnet_hdr) {
    const OffloadInfo& o = pkt.offload;
    vh = {uint8_t(o.flags & OffloadInfo::kNeedsCsum), o.gso_type,   o.hdr_len,
          o.is_gso() ? o.gso_size : uint16_t(0),      o.csum_start, o.csum_offset};
    iov[k++] = {&vh, sizeof vh};
  }
  iov[k++] = {pkt.data(), pkt.size()};
  ssize_t r = ::writev(fd_.get(), iov, k);
  if (r < 0) {
    if (errno == EAGAIN || errno == EIO || errno == ENOBUFS)
      counters_.add_tx_dropped(1);  // EIO: the tap is down
    else
      counters_.add_tx_errors(1);
    return false;
  }
  counters_.add_tx(1, pkt.size());
  return true;
}

size_t TapPort::tx_batch(PacketBatch& batch) {
  std::lock_guard<std::mutex> lock(tx_mu_);
  size_t sent = 0;
  for (Packet* p : batch.pkts) {
    if (caps_.accepts(p->offload)) {
      sent += write_frame(*p);
      continue;
    }
    if (!tx_scratch_) tx_scratch_ = std::make_unique<Packet>();
    bool ok = port_detail::for_each_wire_frame(*p, caps_, *tx_scratch_, [&](Packet& f) {
      if (!caps_.vnet_hdr) f.offload.clear();
      sent += write_frame(f);
    });
    if (!ok) counters_.add_tx_errors(1);
  }
  return sent;
}

}  // namespace flowlab

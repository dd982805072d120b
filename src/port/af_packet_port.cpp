// AfPacketPort: AF_PACKET socket + TPACKET_V2 RX ring + PACKET_VNET_HDR.
//
// Design
// ------
// Socket. SOCK_RAW created with protocol 0 (receives nothing), configured, then
// bound to (ETH_P_ALL, ifindex) so no frame arrives before the ring exists.
// PACKET_VNET_HDR makes the kernel describe each frame with a virtio_net_hdr:
// veths hand over GSO super-frames (up to 64 KB) and CHECKSUM_PARTIAL frames
// as they are, and we hand them back the same way on transmit; no ethtool
// change anywhere. PACKET_IGNORE_OUTGOING drops frames this host transmits on
// the interface (including ours), PACKET_QDISC_BYPASS sends straight to the
// driver (veth has no queue anyway; the driver path still segments/checksums
// in software when the device lacks the feature). Promiscuous mode is a
// PACKET_MR_PROMISC membership, undone by the kernel when the socket closes.
//
// RX ring: TPACKET_V2, not V3. Both carry the vnet header (the kernel writes
// it just in front of the MAC header, at tp_mac - 10), so the choice is about
// latency: V3 packs frames into blocks and hands a block to user space only
// when it is full or its retire timer (tp_retire_blk_tov, whole milliseconds)
// fires, and poll() is signalled per block, not per frame (kernel commits
// f6fb8f100b80 "TPACKET_V3 flexible buffer implementation: read/poll is at a
// block level" and da413eec729d "signal poll when block is closed rather than
// every packet"). A ping or a lone TCP ACK would sit in an open block for up
// to the timeout, which ruins RTT and TCP ack clocking through the switch. V2
// has a status word per slot, wakes per frame, and supports PACKET_COPY_THRESH
// (below). Its cost is fixed-size slots: every slot must hold a 64 KB frame.
// Slots: default frame size 69632 B (64 KB GSO frame + tpacket2_hdr +
// sockaddr_ll + vnet header + VLAN tags, TPACKET_ALIGNed), 15 frames per 1 MB
// block (order-8 pages, ~4 KB slack), 32 blocks: 480 slots, 32 MB per port.
// A frame that still does not fit (BIG TCP, odd configuration, or a smaller
// ring_frame_size option) is not truncated: PACKET_COPY_THRESH makes the kernel
// queue a full clone on the socket and flag the slot TP_STATUS_COPY; we then
// recvmsg() it (vnet header + frame) in order. If even that fails (receive
// buffer full) the truncated frame is counted as an rx drop, never forwarded.
// VLAN: the kernel strips the outer 802.1Q tag into tp_vlan_tci before
// AF_PACKET sees it; we re-insert it (and shift csum_start/hdr_len by 4).
//
// TX: sendmmsg() of up to 32 frames, each [vnet header][frame] (two iovecs),
// one syscall per batch. The kernel rebuilds the skb from the vnet header
// (GSO type/size, partial checksum), so a 64 KB frame leaves as one skb and
// TCP segmentation happens only where the receiving side needs it.
//
// Costs per frame: kernel copies the frame into the ring (1 copy), rx_batch
// copies it into the caller's Packet (1 copy; Packets own their buffers),
// sendmmsg copies it into a new skb (1 copy). For 64 KB frames the copies are
// ~3 x 5 us per 64 KB at memory bandwidth, i.e. well under a core at 10
// Gbit/s; syscalls are amortised over batches (poll only when the ring is
// empty, one sendmmsg per batch). No allocation per packet.
//
// Drops: the kernel flags the next slot TP_STATUS_LOSING after it dropped
// frames (ring full); we then read PACKET_STATISTICS (which resets it) and add
// tp_drops to rx_dropped. tx failures: ENOBUFS/EAGAIN/ENETDOWN -> tx_dropped,
// others -> tx_errors.
#include "port/af_packet_port.h"

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/log.h"
#include "port/tx_fallback.h"

namespace flowlab {
namespace {

constexpr uint8_t kVnetNeedsCsum = 1;  // VIRTIO_NET_HDR_F_NEEDS_CSUM (linux/virtio_net.h is not C++-clean)
constexpr uint32_t kDefaultFrameSize = 69632;
constexpr uint32_t kBlockSize = 1 << 20;
constexpr uint32_t kDefaultBlocks = 32;
constexpr int kSockBuf = 8 << 20;

Status set_opt(int fd, int level, int opt, int val, const char* what, std::string_view ifname) {
  if (::setsockopt(fd, level, opt, &val, sizeof val) < 0)
    return fail("{}: setsockopt {} failed: {}", ifname, what, std::strerror(errno));
  return ok_status();
}

}  // namespace

Result<std::unique_ptr<AfPacketPort>> AfPacketPort::open(std::string_view ifname, const PortOptions& opts) {
  std::unique_ptr<AfPacketPort> p(new AfPacketPort());  // private constructor
  FLOWLAB_TRY(p->setup(ifname, opts));
  return p;
}

Status AfPacketPort::setup(std::string_view ifname, const PortOptions& opts) {
  FLOWLAB_TRY(netdev::check_name(ifname));
  name_ = std::string(ifname);
  FLOWLAB_ASSIGN_OR_RETURN(ctl_, netdev::control_socket());
  FLOWLAB_ASSIGN_OR_RETURN(ifindex_, netdev::ifindex(ifname, ctl_.get()));

  int fd = ::socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) {
    if (errno == EPERM || errno == EACCES)
      return fail("cannot open AF_PACKET socket for {}: needs root (CAP_NET_RAW)", ifname);
    return fail("cannot open AF_PACKET socket for {}: {}", ifname, std::strerror(errno));
  }
  fd_.reset(fd);

  vnet_ = opts.vnet_hdr;
  if (vnet_) FLOWLAB_TRY(set_opt(fd, SOL_PACKET, PACKET_VNET_HDR, 1, "PACKET_VNET_HDR", ifname));
  FLOWLAB_TRY(set_opt(fd, SOL_PACKET, PACKET_VERSION, TPACKET_V2, "PACKET_VERSION(TPACKET_V2)", ifname));
  // Either of these keeps our own transmissions out of the ring (qdisc bypass
  // skips the taps); IGNORE_OUTGOING (Linux 4.20) also hides the host's own.
  auto ign = set_opt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, "PACKET_IGNORE_OUTGOING", ifname);
  auto byp = set_opt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, 1, "PACKET_QDISC_BYPASS", ifname);
  if (!ign.ok() && !byp.ok()) return ign;
  if (!ign.ok()) log::warn("port", "{}", ign.error().message);
  if (!byp.ok()) log::warn("port", "{}", byp.error().message);
  FLOWLAB_TRY(set_opt(fd, SOL_PACKET, PACKET_COPY_THRESH, 1, "PACKET_COPY_THRESH", ifname));
  FLOWLAB_TRY(set_opt(fd, SOL_PACKET, PACKET_AUXDATA, 1, "PACKET_AUXDATA", ifname));
  // Large socket buffers: 32 x 64 KB frames in flight on transmit, clones on receive.
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &kSockBuf, sizeof kSockBuf) < 0)
    (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kSockBuf, sizeof kSockBuf);
  if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &kSockBuf, sizeof kSockBuf) < 0)
    (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kSockBuf, sizeof kSockBuf);

  receive_ = opts.receive;
  if (receive_) FLOWLAB_TRY(setup_ring(ifname, opts));

  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = receive_ ? htons(ETH_P_ALL) : 0;  // protocol 0: transmit only
  sll.sll_ifindex = ifindex_;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sll), sizeof sll) < 0)
    return fail("{}: bind failed: {}", ifname, std::strerror(errno));
  return finish_setup(ifname, opts);
}

Status AfPacketPort::setup_ring(std::string_view ifname, const PortOptions& opts) {
  int fd = fd_.get();
  frame_size_ = opts.ring_frame_size ? TPACKET_ALIGN(opts.ring_frame_size) : kDefaultFrameSize;
  if (frame_size_ < 2048 || frame_size_ > kBlockSize)
    return fail("{}: ring frame size {} out of range [2048, {}]", ifname, frame_size_, kBlockSize);
  uint32_t blocks = opts.ring_blocks ? opts.ring_blocks : kDefaultBlocks;
  tpacket_req req{};
  req.tp_block_size = kBlockSize;
  req.tp_block_nr = blocks;
  req.tp_frame_size = frame_size_;
  req.tp_frame_nr = (kBlockSize / frame_size_) * blocks;
  if (::setsockopt(fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) < 0)
    return fail("{}: cannot set up the receive ring ({} x {} B): {}", ifname, blocks, kBlockSize,
                std::strerror(errno));
  frame_nr_ = req.tp_frame_nr;
  ring_bytes_ = size_t(kBlockSize) * blocks;
  void* m = ::mmap(nullptr, ring_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  if (m == MAP_FAILED) {
    ring_bytes_ = 0;
    return fail("{}: mmap of the receive ring failed: {}", ifname, std::strerror(errno));
  }
  ring_ = static_cast<uint8_t*>(m);
  // Frames never straddle blocks: slot i is in block i / per_block.
  uint32_t per_block = kBlockSize / frame_size_;
  slots_.resize(frame_nr_);
  for (uint32_t i = 0; i < frame_nr_; ++i)
    slots_[i] = ring_ + size_t(i / per_block) * kBlockSize + size_t(i % per_block) * frame_size_;
  return ok_status();
}

Status AfPacketPort::finish_setup(std::string_view ifname, const PortOptions& opts) {
  int fd = fd_.get();
  if (opts.promiscuous) {
    packet_mreq mr{};
    mr.mr_ifindex = ifindex_;
    mr.mr_type = PACKET_MR_PROMISC;
    if (::setsockopt(fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof mr) < 0)
      return fail("{}: cannot enable promiscuous mode: {}", ifname, std::strerror(errno));
  }

  caps_ = vnet_ ? PortCapabilities::all() : PortCapabilities::none();
  for (size_t i = 0; i < kTxBatch; ++i) {
    tx_msgs_[i].msg_hdr.msg_iov = tx_iov_[i];
    tx_iov_[i][0].iov_base = &tx_vnet_[i];
    tx_iov_[i][0].iov_len = sizeof(VnetHdr);
  }
  log::debug("port", "{}: AF_PACKET ifindex {} ring {} x {} B, vnet_hdr {}", name_, ifindex_, frame_nr_,
             frame_size_, vnet_);
  return ok_status();
}

AfPacketPort::~AfPacketPort() {
  if (ring_) ::munmap(ring_, ring_bytes_);
}

MacAddr AfPacketPort::mac() const {
  auto m = netdev::mac(name_, ctl_.get());
  return m.ok() ? *m : MacAddr{};
}
uint32_t AfPacketPort::mtu() const {
  auto m = netdev::mtu(name_, ctl_.get());
  return m.ok() ? *m : 0;
}
int AfPacketPort::take_error() {
  int err = 0;
  socklen_t len = sizeof err;
  if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

bool AfPacketPort::link_up() const {
  auto u = netdev::link_up(name_, ctl_.get());
  return u.ok() && *u;
}
uint32_t AfPacketPort::speed_mbps() const {
  auto s = netdev::speed_mbps(name_, ctl_.get());
  return s.ok() ? *s : 0;
}

void AfPacketPort::account_kernel_drops() {
  tpacket_stats st{};
  socklen_t len = sizeof st;
  if (::getsockopt(fd_.get(), SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
    counters_.add_rx_dropped(st.tp_drops);
}

// Receives the clone the kernel queued for a TP_STATUS_COPY slot. The outer
// VLAN tag comes as PACKET_AUXDATA; the frame is read 4 bytes in so the tag can
// be re-inserted without moving the payload.
bool AfPacketPort::receive_copied(Packet& pkt) {
  VnetHdr vh{};
  iovec iov[2];
  int k = 0;
  if (vnet_) iov[k++] = {&vh, sizeof vh};
  pkt.reset();
  if (pkt.tailroom() < 4) return false;
  iov[k++] = {pkt.data() + 4, pkt.tailroom() - 4};
  alignas(cmsghdr) char ctrl[CMSG_SPACE(sizeof(tpacket_auxdata))];
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = size_t(k);
  msg.msg_control = ctrl;
  msg.msg_controllen = sizeof ctrl;
  ssize_t n = ::recvmsg(fd_.get(), &msg, MSG_DONTWAIT | MSG_TRUNC);
  if (n < 0) return false;
  size_t hdr = vnet_ ? sizeof vh : 0;
  if (size_t(n) < hdr + 12 || (msg.msg_flags & MSG_TRUNC)) return false;
  size_t len = size_t(n) - hdr;
  const tpacket_auxdata* aux = nullptr;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_PACKET && c->cmsg_type == PACKET_AUXDATA)
      aux = reinterpret_cast<const tpacket_auxdata*>(CMSG_DATA(c));
  pkt.offload = {vh.flags, vh.gso_type, vh.hdr_len, vh.gso_size, vh.csum_start, vh.csum_offset};
  if (aux && (aux->tp_status & TP_STATUS_VLAN_VALID)) {
    if (!pkt.set_size(len + 4)) return false;
    uint8_t* d = pkt.data();
    std::memmove(d, d + 4, 12);
    uint16_t tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID) ? aux->tp_vlan_tpid : ETH_P_8021Q;
    d[12] = uint8_t(tpid >> 8);
    d[13] = uint8_t(tpid);
    d[14] = uint8_t(aux->tp_vlan_tci >> 8);
    d[15] = uint8_t(aux->tp_vlan_tci);
    if (pkt.offload.needs_csum()) pkt.offload.csum_start = uint16_t(pkt.offload.csum_start + 4);
    if (pkt.offload.hdr_len) pkt.offload.hdr_len = uint16_t(pkt.offload.hdr_len + 4);
  } else {
    if (!pkt.set_size(len + 4)) return false;
    pkt.pull_front(4);
  }
  return true;
}

bool AfPacketPort::receive_one(void* slot, uint32_t status, Packet& pkt) {
  auto* h = static_cast<tpacket2_hdr*>(slot);
  if (status & TP_STATUS_COPY) {
    if (!receive_copied(pkt)) return false;
  } else {
    if (h->tp_snaplen < h->tp_len) return false;  // truncated and no clone: never forward it
    const uint8_t* mac = static_cast<const uint8_t*>(slot) + h->tp_mac;
    size_t len = h->tp_snaplen;
    pkt.reset();
    bool vlan = (status & TP_STATUS_VLAN_VALID) && len >= 12;
    if (!pkt.set_size(len + (vlan ? 4 : 0))) return false;
    uint8_t* d = pkt.data();
    if (vlan) {
      uint16_t tpid = (status & TP_STATUS_VLAN_TPID_VALID) ? h->tp_vlan_tpid : ETH_P_8021Q;
      std::memcpy(d, mac, 12);
      d[12] = uint8_t(tpid >> 8);
      d[13] = uint8_t(tpid);
      d[14] = uint8_t(h->tp_vlan_tci >> 8);
      d[15] = uint8_t(h->tp_vlan_tci);
      std::memcpy(d + 16, mac + 12, len - 12);
    } else {
      std::memcpy(d, mac, len);
    }
    if (vnet_) {
      VnetHdr vh;
      std::memcpy(&vh, mac - sizeof vh, sizeof vh);
      pkt.offload = {vh.flags, vh.gso_type, vh.hdr_len, vh.gso_size, vh.csum_start, vh.csum_offset};
      if (vlan) {
        if (pkt.offload.needs_csum()) pkt.offload.csum_start = uint16_t(pkt.offload.csum_start + 4);
        if (pkt.offload.hdr_len) pkt.offload.hdr_len = uint16_t(pkt.offload.hdr_len + 4);
      }
    }
  }
  pkt.in_port = port_no_;
  return true;
}

size_t AfPacketPort::rx_batch(PacketBatch& batch, size_t max) {
  if (!receive_) {
    batch.pkts.clear();
    return 0;
  }
  size_t limit = std::min(max, batch.pkts.size());
  size_t n = 0;
  uint64_t bytes = 0;
  uint64_t bad = 0;
  while (n < limit) {
    uint8_t* slot = slots_[rx_head_];
    auto* h = reinterpret_cast<tpacket2_hdr*>(slot);
    uint32_t status = __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE);
    if (!(status & TP_STATUS_USER)) break;
    if (status & TP_STATUS_LOSING) account_kernel_drops();
    Packet& pkt = *batch.pkts[n];
    if (receive_one(slot, status, pkt)) {
      bytes += pkt.size();
      ++n;
    } else {
      ++bad;
    }
    __atomic_store_n(&h->tp_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
    rx_head_ = rx_head_ + 1 == frame_nr_ ? 0 : rx_head_ + 1;
  }
  batch.pkts.resize(n);
  counters_.add_rx(n, bytes);
  counters_.add_rx_dropped(bad);
  return n;
}

void AfPacketPort::queue_tx(Packet& pkt) {
  size_t i = tx_n_;
  iovec* iov = tx_iov_[i];
  msghdr& mh = tx_msgs_[i].msg_hdr;
  if (vnet_) {
    const OffloadInfo& o = pkt.offload;
    tx_vnet_[i] = {o.flags, o.gso_type, o.hdr_len, o.gso_size, o.csum_start, o.csum_offset};
    tx_vnet_[i].flags &= kVnetNeedsCsum;  // DATA_VALID is receive-only
    if (!o.is_gso()) tx_vnet_[i].gso_size = 0;
    iov[1] = {pkt.data(), pkt.size()};
    mh.msg_iov = iov;
    mh.msg_iovlen = 2;
  } else {
    iov[1] = {pkt.data(), pkt.size()};
    mh.msg_iov = iov + 1;
    mh.msg_iovlen = 1;
  }
  tx_bytes_pending_[i] = pkt.size();
  ++tx_n_;
  if (tx_n_ == kTxBatch) flush_tx();
}

void AfPacketPort::flush_tx() {
  size_t done = 0;
  int eagain_waits = 0;
  uint64_t pkts = 0, bytes = 0;
  while (done < tx_n_) {
    int r = ::sendmmsg(fd_.get(), tx_msgs_ + done, unsigned(tx_n_ - done), MSG_DONTWAIT);
    if (r > 0) {
      for (size_t i = done; i < done + size_t(r); ++i) bytes += tx_bytes_pending_[i];
      pkts += uint64_t(r);
      done += size_t(r);
      continue;
    }
    int e = errno;
    if ((e == EAGAIN || e == ENOBUFS) && eagain_waits < 4) {
      // Socket buffer full: wait briefly (bounded) for the device to drain.
      ++eagain_waits;
      pollfd pfd{fd_.get(), POLLOUT, 0};
      (void)::poll(&pfd, 1, 1);
      continue;
    }
    if (e == EAGAIN || e == ENOBUFS || e == ENETDOWN || e == ENXIO || e == EINTR)
      counters_.add_tx_dropped(1);
    else
      counters_.add_tx_errors(1);
    ++done;  // skip the frame that failed
  }
  counters_.add_tx(pkts, bytes);
  tx_n_ = 0;
}

size_t AfPacketPort::tx_batch(PacketBatch& batch) { return size_t(tx_batch_counted(batch).tx_packets); }

PortStats AfPacketPort::tx_batch_counted(PacketBatch& batch) {
  std::lock_guard<std::mutex> lock(tx_mu_);
  auto before = counters_.snapshot();
  for (Packet* p : batch.pkts) {
    if (vnet_ && caps_.accepts(p->offload)) {
      queue_tx(*p);
      continue;
    }
    if (!tx_scratch_) tx_scratch_ = std::make_unique<Packet>();
    bool ok = port_detail::for_each_wire_frame(*p, caps_, *tx_scratch_, [&](Packet& f) {
      if (!vnet_) f.offload.clear();
      queue_tx(f);
      if (&f == tx_scratch_.get()) flush_tx();  // the scratch is reused for the next segment
    });
    if (!ok) counters_.add_tx_errors(1);
  }
  flush_tx();
  auto after = counters_.snapshot();
  PortStats d;
  d.tx_packets = after.tx_packets - before.tx_packets;
  d.tx_bytes = after.tx_bytes - before.tx_bytes;
  d.tx_dropped = after.tx_dropped - before.tx_dropped;
  d.tx_errors = after.tx_errors - before.tx_errors;
  return d;
}

}  // namespace flowlab

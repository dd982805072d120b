// A TPACKET_V3 receive ring on one interface (see packet_ring.h).
#include "lab/capture/packet_ring.h"

#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>

namespace flowlab::lab {

namespace {

std::atomic_ref<uint32_t> block_status(uint8_t* block) {
  return std::atomic_ref<uint32_t>(reinterpret_cast<tpacket_block_desc*>(block)->hdr.bh1.block_status);
}

}  // namespace

Status drop_outgoing(int fd, const std::string& where) {
  sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, uint32_t(SKF_AD_OFF + SKF_AD_PKTTYPE)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, 0),
      BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
  };
  sock_fprog prog{static_cast<unsigned short>(sizeof code / sizeof code[0]), code};
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof prog) != 0)
    return fail("capture on {}: socket filter: {}", where, std::strerror(errno));
  return ok_status();
}

Result<PacketRing> PacketRing::open(const std::string& where, const std::string& ifname) {
  PacketRing r;
  auto err = [&](const char* what) {
    return fail("capture on {}: {}: {}", where, what, std::strerror(errno));
  };
  unsigned idx = if_nametoindex(ifname.c_str());
  if (!idx) return err("no such interface");
  // Protocol 0: nothing arrives before the ring and the filters are in place; bind() starts it.
  r.fd_ = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
  if (r.fd_ < 0) return err("packet socket");
  int one = 1;
  // Not on every kernel (4.20 on); the socket filter below does the same job, later.
  (void)setsockopt(r.fd_, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  FLOWLAB_TRY(drop_outgoing(r.fd_, where));
  int version = TPACKET_V3;
  if (setsockopt(r.fd_, SOL_PACKET, PACKET_VERSION, &version, sizeof version) != 0) return err("TPACKET_V3");
  tpacket_req3 req{};
  req.tp_block_size = kBlockBytes;
  req.tp_block_nr = kBlocks;
  req.tp_frame_size = TPACKET_ALIGNMENT << 7;  // nominal in V3: frames are packed
  req.tp_frame_nr = kBlockBytes / req.tp_frame_size * kBlocks;
  req.tp_retire_blk_tov = kBlockTimeoutMs;
  if (setsockopt(r.fd_, SOL_PACKET, PACKET_RX_RING, &req, sizeof req) != 0) return err("receive ring");
  r.map_bytes_ = size_t(kBlockBytes) * kBlocks;
  void* m = mmap(nullptr, r.map_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, r.fd_, 0);
  if (m == MAP_FAILED) {
    r.map_bytes_ = 0;
    return err("mapping the ring");
  }
  r.map_ = static_cast<uint8_t*>(m);
  sockaddr_ll addr{};
  addr.sll_family = AF_PACKET;
  addr.sll_protocol = htons(ETH_P_ALL);
  addr.sll_ifindex = int(idx);
  if (bind(r.fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return err("bind");
  return r;
}

PacketRing::PacketRing(PacketRing&& o) noexcept { *this = std::move(o); }

PacketRing& PacketRing::operator=(PacketRing&& o) noexcept {
  if (this != &o) {
    close_all();
    fd_ = std::exchange(o.fd_, -1);
    map_ = std::exchange(o.map_, nullptr);
    map_bytes_ = std::exchange(o.map_bytes_, 0);
    block_ = std::exchange(o.block_, 0);
    current_ = std::exchange(o.current_, nullptr);
    frame_ = std::exchange(o.frame_, nullptr);
    frames_left_ = std::exchange(o.frames_left_, 0);
  }
  return *this;
}

PacketRing::~PacketRing() { close_all(); }

void PacketRing::close_all() {
  if (map_) munmap(map_, map_bytes_);
  if (fd_ >= 0) close(fd_);
  map_ = nullptr;
  fd_ = -1;
}

bool PacketRing::next_block() {
  if (current_) return true;
  uint8_t* b = map_ + size_t(block_) * kBlockBytes;
  if (!(block_status(b).load(std::memory_order_acquire) & TP_STATUS_USER)) return false;
  auto* desc = reinterpret_cast<tpacket_block_desc*>(b);
  current_ = b;
  frame_ = b + desc->hdr.bh1.offset_to_first_pkt;
  frames_left_ = desc->hdr.bh1.num_pkts;
  return true;
}

bool PacketRing::next_frame(RingFrame* f) {
  if (!current_ || !frames_left_) return false;
  auto* h = reinterpret_cast<const tpacket3_hdr*>(frame_);
  f->data = frame_ + h->tp_mac;
  f->caplen = h->tp_snaplen;
  f->len = h->tp_len;
  f->sec = h->tp_sec;
  f->nsec = h->tp_nsec;
  f->has_vlan = (h->tp_status & TP_STATUS_VLAN_VALID) != 0;
  f->vlan_tci = uint16_t(h->hv1.tp_vlan_tci);
  f->vlan_tpid =
      (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? uint16_t(h->hv1.tp_vlan_tpid) : uint16_t(ETH_P_8021Q);
  frame_ += h->tp_next_offset;
  --frames_left_;
  return true;
}

void PacketRing::release_block() {
  if (!current_) return;
  block_status(current_).store(TP_STATUS_KERNEL, std::memory_order_release);
  current_ = nullptr;
  frame_ = nullptr;
  frames_left_ = 0;
  block_ = (block_ + 1) % kBlocks;
}

uint64_t PacketRing::take_drops() {
  tpacket_stats_v3 st{};
  socklen_t n = sizeof st;
  if (fd_ < 0 || getsockopt(fd_, SOL_PACKET, PACKET_STATISTICS, &st, &n) != 0) return 0;
  return st.tp_drops;
}

}  // namespace flowlab::lab

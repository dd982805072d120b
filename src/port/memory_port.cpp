// MemoryPort: queues and an eventfd standing in for a device (see memory_port.h).
#include "port/memory_port.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include "port/tx_fallback.h"

namespace flowlab {

MemoryPort::MemoryPort(std::string name, PortCapabilities caps, MacAddr mac, uint32_t mtu)
    : name_(std::move(name)),
      mac_(mac),
      mtu_(mtu),
      event_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      caps_(caps) {}

void MemoryPort::signal() {
  uint64_t one = 1;
  (void)!::write(event_.get(), &one, sizeof one);
}
void MemoryPort::unsignal() {
  uint64_t v;
  (void)!::read(event_.get(), &v, sizeof v);
}

void MemoryPort::inject(const uint8_t* data, size_t len, const OffloadInfo& offload) {
  std::lock_guard<std::mutex> lock(mu_);
  if (rx_.size() >= rx_limit_) {
    counters_.add_rx_dropped(1);
    return;
  }
  rx_.push_back(Frame{std::vector<uint8_t>(data, data + len), offload});
  signal();
}

std::vector<MemoryPort::Frame> MemoryPort::take_tx() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Frame> out;
  out.swap(tx_);
  return out;
}

size_t MemoryPort::rx_pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rx_.size();
}
size_t MemoryPort::tx_pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  return tx_.size();
}
void MemoryPort::set_capabilities(PortCapabilities caps) {
  std::lock_guard<std::mutex> lock(mu_);
  caps_ = caps;
}
void MemoryPort::set_rx_limit(size_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  rx_limit_ = n;
}
PortCapabilities MemoryPort::capabilities() const {
  std::lock_guard<std::mutex> lock(mu_);
  return caps_;
}

size_t MemoryPort::rx_batch(PacketBatch& batch, size_t max) {
  size_t limit = std::min(max, batch.pkts.size());
  size_t n = 0;
  uint64_t bytes = 0;
  uint64_t dropped = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (n < limit && !rx_.empty()) {
      Frame& f = rx_.front();
      Packet& pkt = *batch.pkts[n];
      if (pkt.assign(f.data.data(), f.data.size())) {
        pkt.offload = f.offload;
        pkt.in_port = port_no_;
        bytes += f.data.size();
        ++n;
      } else {
        ++dropped;
      }
      rx_.pop_front();
    }
    if (rx_.empty()) unsignal();
  }
  batch.pkts.resize(n);
  counters_.add_rx(n, bytes);
  counters_.add_rx_dropped(dropped);
  return n;
}

size_t MemoryPort::tx_batch(PacketBatch& batch) {
  tx_calls_.fetch_add(1);
  if (!link_up()) {
    counters_.add_tx_dropped(batch.size());
    return 0;
  }
  std::lock_guard<std::mutex> lock(mu_);
  size_t sent = 0;
  uint64_t bytes = 0;
  auto emit = [&](Packet& f) {
    OffloadInfo o = caps_.vnet_hdr ? f.offload : OffloadInfo{};
    tx_.push_back(Frame{std::vector<uint8_t>(f.data(), f.data() + f.size()), o});
    bytes += f.size();
    ++sent;
  };
  for (Packet* p : batch.pkts) {
    if (caps_.accepts(p->offload)) {
      emit(*p);
      continue;
    }
    if (!scratch_) scratch_ = std::make_unique<Packet>();
    if (!port_detail::for_each_wire_frame(*p, caps_, *scratch_, emit)) counters_.add_tx_errors(1);
  }
  counters_.add_tx(sent, bytes);
  return sent;
}

}  // namespace flowlab

// MemoryPort: an in-memory port for unit tests of the switch and datapath.
//
// The test injects frames (they come out of rx_batch, in order) and takes the
// frames the code under test transmitted. capabilities() is configurable: with
// PortCapabilities::none() tx_batch applies the same software fallback as the
// real ports (checksums completed, GSO frames segmented), so tests can check
// what would reach the wire. poll_fd() is an eventfd, readable while frames wait.
// Thread-safe: inject/take from the test thread, rx/tx from forwarding threads.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "port/netdev.h"
#include "port/port.h"

namespace flowlab {

class MemoryPort final : public Port {
 public:
  struct Frame {
    std::vector<uint8_t> data;
    OffloadInfo offload;
  };

  explicit MemoryPort(std::string name, PortCapabilities caps = PortCapabilities::all(),
                      MacAddr mac = MacAddr{}, uint32_t mtu = 1500);
  ~MemoryPort() override = default;

  // Test side.
  void inject(const uint8_t* data, size_t len, const OffloadInfo& offload = {});
  void inject(const std::vector<uint8_t>& data, const OffloadInfo& offload = {}) {
    inject(data.data(), data.size(), offload);
  }
  std::vector<Frame> take_tx();                         // frames transmitted since the last call
  size_t tx_calls() const { return tx_calls_.load(); }  // tx_batch calls so far
  size_t rx_pending() const;
  size_t tx_pending() const;
  void set_link(bool up) { link_up_.store(up, std::memory_order_relaxed); }
  void set_capabilities(PortCapabilities caps);
  // Frames beyond this many waiting in rx are dropped (counted rx_dropped).
  void set_rx_limit(size_t n);

  // Port.
  std::string_view name() const override { return name_; }
  int ifindex() const override { return 0; }
  MacAddr mac() const override { return mac_; }
  uint32_t mtu() const override { return mtu_; }
  bool link_up() const override { return link_up_.load(std::memory_order_relaxed); }
  int poll_fd() const override { return event_.get(); }
  PortCapabilities capabilities() const override;
  size_t rx_batch(PacketBatch& batch, size_t max) override;
  size_t tx_batch(PacketBatch& batch) override;

 private:
  void signal();
  void unsignal();

  std::string name_;
  MacAddr mac_;
  uint32_t mtu_;
  std::atomic<bool> link_up_{true};
  std::atomic<size_t> tx_calls_{0};
  UniqueFd event_;
  mutable std::mutex mu_;
  PortCapabilities caps_;
  size_t rx_limit_ = 65536;
  std::deque<Frame> rx_;
  std::vector<Frame> tx_;
  std::unique_ptr<Packet> scratch_;
};

}  // namespace flowlab

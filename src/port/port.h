// Port: one switch port (a Linux interface, a TAP device, or an in-memory queue for
// tests) as the forwarding threads see it.
//
// Synopsis
//   auto p = open_port("veth-a");          // AF_PACKET port (AfPacketPort)
//   auto t = open_port("tap:tap0");        // TAP port (TapPort), created if missing
//   (*p)->set_port_no(1);                   // stamped into Packet::in_port on receive
//   poll((*p)->poll_fd(), POLLIN) ...       // readable when rx_batch may return packets
//   batch.pkts = {free packets...};         // caller-owned buffers
//   size_t n = (*p)->rx_batch(batch, 32);   // batch.pkts now holds the n received
//   (*q)->tx_batch(batch);                  // sends; packets stay the caller's
//
// Threading: rx_batch is called by one thread at a time; tx_batch is safe from
// several threads (serialised inside the port) and may run concurrently with
// rx_batch. Counters are relaxed atomics readable from any thread.
//
// Offloads: received packets carry the virtio-net metadata in Packet::offload
// (GSO super-frames up to 64 KB, partial checksums). tx_batch accepts ANY packet:
// metadata the port can take (capabilities()) is passed on, anything else is
// completed in software (checksum.h) or segmented (gso.h) inside tx_batch.
// tx_batch may complete a partial checksum in place (the frame stays equivalent).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "packet/addr.h"
#include "packet/packet.h"

namespace flowlab {

// What offload metadata a port can transmit as is (virtio-net header semantics).
struct PortCapabilities {
  bool vnet_hdr = false;  // takes metadata at all
  bool csum = false;      // kNeedsCsum (partial L4 checksum)
  bool tso4 = false;      // kGsoTcpv4
  bool tso6 = false;      // kGsoTcpv6
  bool tso_ecn = false;   // kGsoEcn bit
  bool ufo = false;       // kGsoUdp (IP-fragmentation UDP GSO)
  bool uso = false;       // kGsoUdpL4 (UDP segmentation)

  // True when a packet with this metadata can be handed to the device unchanged.
  bool accepts(const OffloadInfo& o) const;
  static PortCapabilities all();
  static PortCapabilities none() { return {}; }
};

// A snapshot of a port's counters.
struct PortStats {
  uint64_t rx_packets = 0, rx_bytes = 0, rx_dropped = 0, rx_errors = 0;
  uint64_t tx_packets = 0, tx_bytes = 0, tx_dropped = 0, tx_errors = 0;
};

// Per-port counters: written by the forwarding thread(s), read from anywhere.
// rx_* have a single writer (the rx thread); tx_* are written under the port's tx lock.
class PortCounters {
 public:
  void add_rx(uint64_t pkts, uint64_t bytes) {
    bump(rx_packets_, pkts);
    bump(rx_bytes_, bytes);
  }
  void add_tx(uint64_t pkts, uint64_t bytes) {
    bump(tx_packets_, pkts);
    bump(tx_bytes_, bytes);
  }
  void add_rx_dropped(uint64_t n) { bump(rx_dropped_, n); }
  void add_rx_errors(uint64_t n) { bump(rx_errors_, n); }
  void add_tx_dropped(uint64_t n) { bump(tx_dropped_, n); }
  void add_tx_errors(uint64_t n) { bump(tx_errors_, n); }
  PortStats snapshot() const;

 private:
  static void bump(std::atomic<uint64_t>& c, uint64_t n) {
    if (n) c.fetch_add(n, std::memory_order_relaxed);
  }
  std::atomic<uint64_t> rx_packets_{0}, rx_bytes_{0}, rx_dropped_{0}, rx_errors_{0};
  std::atomic<uint64_t> tx_packets_{0}, tx_bytes_{0}, tx_dropped_{0}, tx_errors_{0};
};

// Knobs for opening a port; the defaults are what the switch wants.
struct PortOptions {
  bool vnet_hdr = true;          // ask for / hand over offload metadata
  bool promiscuous = true;       // AF_PACKET: PACKET_MR_PROMISC membership
  bool create_tap = true;        // TAP: create the device if it does not exist
  uint32_t ring_blocks = 0;      // AF_PACKET RX ring size in blocks (0: default)
  uint32_t ring_frame_size = 0;  // AF_PACKET ring slot size in bytes (0: default, fits 64 KB)
  // AF_PACKET: false opens a transmit-only socket (bound to no protocol, no
  // ring, poll_fd() -1): the kernel fast path receives the port at TC ingress
  // and an ETH_P_ALL socket would see every packet before it.
  bool receive = true;
  bool tap_up = true;  // TAP: bring a created device up (false: the caller does)
};

class Port {
 public:
  Port() = default;
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;
  virtual ~Port() = default;

  virtual std::string_view name() const = 0;  // as given ("veth-a", "tap0", ...)
  virtual int ifindex() const = 0;            // 0 for in-memory ports
  virtual MacAddr mac() const = 0;
  virtual uint32_t mtu() const = 0;
  virtual bool link_up() const = 0;                  // current state (a syscall: control path)
  virtual uint32_t speed_mbps() const { return 0; }  // 0: unknown
  virtual int poll_fd() const = 0;                   // POLLIN when rx_batch may have packets
  // poll_fd reported an error (EPOLLERR): read and clear it, return its errno
  // (0: none). A pending socket error is level-triggered: until it is read,
  // every poll returns at once, and the polling thread spins.
  virtual int take_error() { return 0; }
  virtual PortCapabilities capabilities() const = 0;

  // Non-blocking receive. On entry batch.pkts holds caller-owned, free Packets to
  // receive into (it uses the first min(max, batch.size()) of them); on return
  // batch.pkts holds exactly the n packets received (reset, filled, offload and
  // in_port set). Returns n (0: nothing waiting). Never blocks, never allocates.
  virtual size_t rx_batch(PacketBatch& batch, size_t max) = 0;

  // Send every packet of the batch (they stay the caller's; the batch is not
  // changed, packets may get their checksum completed in place). Returns how many
  // were accepted by the device; the rest are counted as tx drops/errors.
  virtual size_t tx_batch(PacketBatch& batch) = 0;
  size_t tx_one(Packet& pkt);  // tx_batch of one packet (packet-out, tests)

  // The OpenFlow port number stamped into Packet::in_port by rx_batch.
  void set_port_no(uint32_t n) { port_no_ = n; }
  uint32_t port_no() const { return port_no_; }

  const PortCounters& counters() const { return counters_; }
  PortStats stats() const { return counters_.snapshot(); }

 protected:
  PortCounters counters_;
  uint32_t port_no_ = 0;
};

// Opens a port from a switch --port spec: "tap:NAME" is a TAP port, anything
// else an existing interface opened with AF_PACKET. Errors name the interface
// and the cause ("interface veth9 does not exist", "needs root (CAP_NET_RAW)").
Result<std::unique_ptr<Port>> open_port(std::string_view spec, const PortOptions& opts = {});

}  // namespace flowlab

// ForwardingThread: one run-to-completion forwarding loop of the switch.
//
// Design (thread model, invariants, costs)
// ----------------------------------------
// The switch runs N forwarding threads (--threads, default 1) plus one agent
// thread (asio: OpenFlow connections, timers). Every port is received by
// exactly one forwarding thread (port i -> thread i % N); any thread may
// transmit on any port (Port::tx_batch serialises inside the port).
//
// One loop iteration of a forwarding thread:
//   epoll_wait(its ports' rx fds + a stop eventfd, 1 s)
//   for each readable port, up to kBatchesPerWake times:
//     rx_batch(up to 32 packets into the thread's own receive buffers)
//     drop all if the port is PORT_DOWN / NO_RECV (counted)
//     standalone (fail-mode standalone, no controller): MAC learning + forward
//     otherwise Datapath::process_batch(ctx, batch, now), whose sinks call
//       output()    -> small frames: copy into the output port's staging batch
//                      (flushed when full); large frames (GSO super-frames)
//                      the port takes as they are: flush the staging batch,
//                      then send the frame itself (no copy)
//       packet_in() -> copy into this thread's SPSC ring to the agent
//     flush every staging batch with Port::tx_batch (one send per port per batch)
//   wake the agent once if anything was queued for the controller.
//   packet-in coalescing (below): maybe wait up to 100 us before the next round.
//
// With --datapath tc the thread reads its queue of the switch's upcall device
// instead of the kernel ports (TAP ports as above): only the kernel fast
// path's misses, of every kernel port, each
// tagged with its ingress port (popped, the frame counted on that port and
// dropped there if the port is PORT_DOWN / NO_RECV); around process_batch it
// captures their cache keys and installs what the pipeline decided
// (kernel_datapath.h). A batch from the device mixes ports.
//
// Packet-in coalescing
// Under a flood of table misses (every packet through a hub controller) the
// cost per packet-in was the wake-ups, not the work: the thread slept in
// epoll_wait and was woken for each frame or two, and so in turn were the
// agent (eventfd), the controller (its socket) and the agent again (the
// packet-outs); on this project's virtual machines a sleep and a wake-up cost
// more CPU than the pipeline. So, like a NIC's interrupt moderation: when a
// round queued packet-ins and they came faster than one per kCoalesceGapNs
// (the time since the last such round divided by their number), the thread
// sleeps SwitchOptions::packet_in_coalesce_us before its next epoll_wait,
// and the next round reads the several frames that came meanwhile, queues
// them together and wakes the agent once for them (one encode batch, one
// send to the controller, one read of its packet-outs, one sendmmsg). Rounds
// with no packet-in, a full batch (no wait needed), or packet-ins slower
// than that rate never wait: a ping or a TCP flow through the controller sees
// no added latency; under the flood a packet-in waits at most the period.
// The thread's timer slack is set to 5 us so the sleep is that long.
//
// Invariants
// - The forwarding thread never blocks on the agent or a controller: the
//   to-controller ring is bounded (SwitchOptions::to_controller_queue); when
//   full the packet is counted in to_controller_dropped and forgotten.
// - The thread never takes a lock shared with the agent. Flow-table changes
//   reach it as new datapath versions (pinned per batch by the datapath), port
//   config/liveness as relaxed atomics, standalone mode as one atomic flag.
// - Offload metadata (virtio-net GSO/checksum) travels with each packet from
//   rx to tx; Port::tx_batch completes checksums / segments in software only
//   for an output that cannot take the metadata.
// - Packets handed to the sinks are only valid during the call; we copy them
//   (the datapath may rewrite the packet for a later output action).
// Costs
// - Per batch: one epoll_wait at most, one rx call, one tx call per output
//   port used. Per small packet: the datapath lookup plus one memcpy of the
//   frame into the output staging buffer. Per large frame: the lookup and one
//   send call, no copy by us (the kernel copies it once on send).
// - Memory: 32 receive buffers per thread plus 32 staging buffers per output
//   port per thread, each up to 64 KB + headroom.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"
#include "datapath/datapath.h"
#include "switch/kernel_datapath.h"
#include "switch/mac_table.h"
#include "switch/spsc_ring.h"
#include "switch/switch_ports.h"
#include "switch/unique_fd.h"

namespace flowlab::kernel {
class KernelPort;
}

namespace flowlab::sw {

// One packet on its way to the controller.
struct ToController {
  dp::PacketInInfo info;
  Bytes data;           // whole frame as received/rewritten
  OffloadInfo offload;  // its virtio-net metadata (the agent completes/segments)
};

// State shared by all forwarding threads and the agent.
struct ForwardingShared {
  std::atomic<bool> standalone{false};  // act as a learning switch (no controller)
  MacTable macs;
  std::atomic<bool> agent_wake_pending{false};
  std::function<void()> wake_agent;    // thread-safe (posts to the agent's loop)
  int forwarding_nice = 0;             // SwitchOptions::forwarding_nice, applied by each thread
  uint64_t packet_in_coalesce_ns = 0;  // SwitchOptions::packet_in_coalesce_us (0: off)
  // --datapath tc (agent thread): a port's config or link changed (kernel
  // entries become stale), and fold kernel hits into the counters.
  std::function<void()> on_port_change;
  std::function<void()> sync_counters;
};

struct ForwardingCounters {
  std::atomic<uint64_t> rx_batches{0};
  std::atomic<uint64_t> rx_packets{0};
  std::atomic<uint64_t> to_controller_queued{0};
  std::atomic<uint64_t> to_controller_dropped{0};
  std::atomic<uint64_t> output_dropped{0};  // unknown port, NO_FWD, PORT_DOWN, LOCAL
  std::atomic<uint64_t> standalone_packets{0};
  std::atomic<uint64_t> port_errors{0};     // socket errors read after EPOLLERR (ENETDOWN on a link down)
  std::atomic<uint64_t> coalesce_waits{0};  // packet-in coalescing: rounds followed by a wait
};

class KernelDatapath;

class ForwardingThread final : public dp::OutputSink, public dp::ControllerSink {
 public:
  static constexpr size_t kBatchesPerWake = 16;
  static constexpr uint64_t kCoalesceGapNs = 50'000;  // packet-ins closer than this: coalesce

  ForwardingThread(unsigned index, dp::Datapath& dp, SwitchPorts& ports, std::vector<size_t> rx_ports,
                   ForwardingShared& shared, size_t to_controller_capacity);
  ~ForwardingThread() override;
  ForwardingThread(const ForwardingThread&) = delete;
  ForwardingThread& operator=(const ForwardingThread&) = delete;

  Status start();
  void stop();  // idempotent; joins

  // Runs one poll round without a thread (unit tests): receives what is
  // waiting on this thread's ports and forwards it. Returns packets received.
  size_t poll_once(int timeout_ms);

  // --datapath tc: the packets this thread receives are the kernel's misses;
  // what the pipeline decides for them is installed in the kernel cache.
  void set_kernel_datapath(KernelDatapath* kd) { kernel_ = kd; }
  // --datapath tc: this thread's queue of the switch's upcall device (before
  // start(); the thread reads it, and its ports that have an fd: TAP ports).
  void set_upcall_queue(Port* queue);

  // Packet-in coalescing (above), called after each round: whether the
  // thread waits ForwardingShared::packet_in_coalesce_ns before the next one,
  // given the frames the round received and when it ended (counted in
  // coalesce_waits). run() calls it; tests call it with made-up times.
  bool coalesce_wait(size_t received, uint64_t now_ns);

  // The to-controller queue is bounded in packets (its capacity) and in
  // bytes: at most kToControllerBytes of frames wait (16,384 64 KB
  // super-frames would be 1 GB). The agent takes packets with
  // pop_to_controller(), which returns their bytes to the bound.
  static constexpr uint64_t kToControllerBytes = uint64_t(64) << 20;
  std::optional<ToController> pop_to_controller();
  size_t to_controller_waiting() const { return ring_.size_approx(); }
  const ForwardingCounters& counters() const { return counters_; }
  unsigned index() const { return index_; }

  // dp::OutputSink / dp::ControllerSink (called from process_batch on this thread).
  void output(const Packet& pkt, uint32_t port_no, uint32_t queue_id) override;
  void packet_in(const dp::PacketInInfo& info, const Packet& pkt) override;

 private:
  // Frames from this size on are sent directly when the port takes their metadata.
  static constexpr size_t kDirectTxBytes = 2048;

  struct Staging {
    SwitchPort* port = nullptr;
    PortCapabilities caps;
    std::vector<std::unique_ptr<Packet>> bufs;
    PacketBatch batch;
  };

  void run();
  Status setup_epoll();
  size_t receive_from(size_t port_index);
  size_t receive_upcalls();
  void process(PacketBatch& batch);
  void forward_standalone(PacketBatch& batch);
  Staging* staging_for(uint32_t port_no);
  void flush_all();
  void flush(Staging& s);
  void wake_agent_if_needed();

  unsigned index_;
  dp::Datapath& dp_;
  SwitchPorts& ports_;
  std::vector<size_t> rx_ports_;
  ForwardingShared& shared_;
  SpscRing<ToController> ring_;
  uint64_t ring_pushed_bytes_ = 0;              // this thread's only
  std::atomic<uint64_t> ring_popped_bytes_{0};  // the agent's, read here
  ForwardingCounters counters_;
  std::unique_ptr<dp::ForwardingContext> ctx_;

  std::vector<std::unique_ptr<Packet>> rx_bufs_;
  PacketBatch rx_batch_;
  std::vector<Staging> staging_;           // one per switch port (index = port index)
  std::vector<int32_t> port_index_by_no_;  // OpenFlow number -> port index, -1 if none
  int32_t local_index_ = -1;               // index of the LOCAL port, -1 if none
  std::vector<Staging*> dirty_;            // staging batches holding packets
  bool queued_to_controller_ = false;
  uint64_t pins_this_round_ = 0;    // packet-ins queued since the last coalesce decision
  uint64_t last_pin_round_ns_ = 0;  // when the last round that queued packet-ins ended
  KernelDatapath* kernel_ = nullptr;
  Port* upcall_ = nullptr;
  std::vector<kernel::KernelPort*> kports_;  // by port index (nullptr: not a kernel port)
  std::vector<KernelDatapath::Pending> pending_;

  UniqueFd epoll_fd_;
  UniqueFd stop_fd_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace flowlab::sw

// ForwardingThread (see the design comment in forwarding.h).
#include "switch/forwarding.h"

#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "core/clock.h"
#include "core/log.h"
#include "kernel/kernel_port.h"
#include "kernel/upcall_device.h"

namespace flowlab::sw {
namespace {
constexpr uint64_t kStopKey = ~uint64_t(0);
constexpr uint64_t kUpcallKey = ~uint64_t(1);
}  // namespace

ForwardingThread::ForwardingThread(unsigned index, dp::Datapath& dp, SwitchPorts& ports,
                                   std::vector<size_t> rx_ports, ForwardingShared& shared,
                                   size_t to_controller_capacity)
    : index_(index),
      dp_(dp),
      ports_(ports),
      rx_ports_(std::move(rx_ports)),
      shared_(shared),
      ring_(to_controller_capacity) {
  ctx_ = std::make_unique<dp::ForwardingContext>(dp_, *this, *this);
  for (size_t i = 0; i < PacketBatch::kMax; ++i) rx_bufs_.push_back(std::make_unique<Packet>());
  uint32_t max_no = 0;
  for (size_t i = 0; i < ports_.size(); ++i)
    if (ports_.at(i).port_no <= of::port::kMax) max_no = std::max(max_no, ports_.at(i).port_no);
  port_index_by_no_.assign(max_no + 1, -1);
  staging_.resize(ports_.size());
  for (size_t i = 0; i < ports_.size(); ++i) {
    uint32_t no = ports_.at(i).port_no;
    if (no == of::port::kLocal)
      local_index_ = int32_t(i);
    else
      port_index_by_no_[no] = int32_t(i);
    staging_[i].port = &ports_.at(i);
    staging_[i].caps = ports_.at(i).port->capabilities();
  }
}

ForwardingThread::~ForwardingThread() { stop(); }

Status ForwardingThread::setup_epoll() {
  if (epoll_fd_.valid()) return ok_status();
  epoll_fd_.reset(epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_fd_.valid())
    return fail("forwarding thread {}: epoll_create1: {}", index_, std::strerror(errno));
  stop_fd_.reset(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!stop_fd_.valid()) return fail("forwarding thread {}: eventfd: {}", index_, std::strerror(errno));
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.u64 = kStopKey;
  if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, stop_fd_.get(), &ev) != 0)
    return fail("forwarding thread {}: epoll_ctl: {}", index_, std::strerror(errno));
  if (upcall_) {
    ev.events = EPOLLIN;
    ev.data.u64 = kUpcallKey;
    if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, upcall_->poll_fd(), &ev) != 0)
      return fail("forwarding thread {}: cannot poll the upcall device {}: {}", index_, upcall_->name(),
                  std::strerror(errno));
  }
  // Kernel ports have no fd (their misses come through the upcall device);
  // TAP ports of a tc switch are received here as on af-packet.
  for (size_t pi : rx_ports_) {
    int fd = ports_.at(pi).port->poll_fd();
    if (fd < 0) continue;
    ev.events = EPOLLIN;
    ev.data.u64 = pi;
    if (epoll_ctl(epoll_fd_.get(), EPOLL_CTL_ADD, fd, &ev) != 0)
      return fail("forwarding thread {}: cannot poll port {}: {}", index_, ports_.at(pi).port->name(),
                  std::strerror(errno));
  }
  return ok_status();
}

Status ForwardingThread::start() {
  FLOWLAB_TRY(setup_epoll());
  stopping_.store(false);
  thread_ = std::thread([this] { run(); });
  return ok_status();
}

void ForwardingThread::stop() {
  stopping_.store(true);
  if (stop_fd_.valid()) {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(stop_fd_.get(), &one, sizeof one);
  }
  if (thread_.joinable()) thread_.join();
}

void ForwardingThread::run() {
  log::debug("switch", "forwarding thread {} started with {} port(s)", index_, rx_ports_.size());
  // Named for top -H, perf and /proc/PID/task/*/comm (15 characters at most).
  ::pthread_setname_np(::pthread_self(), fmt::format("flowlab-fwd{}", index_ % 1000).c_str());
  // Wakeup latency is the switch's forwarding latency: on a busy machine an
  // ordinary-priority thread waits behind other runnable tasks for every
  // frame (a Linux bridge forwards in softirq context and never waits). A
  // negative nice value lets the thread preempt them when a frame arrives; it
  // sleeps in epoll_wait otherwise, so it takes no more CPU than it uses.
  if (int nice = shared_.forwarding_nice; nice != 0) {
    if (::setpriority(PRIO_PROCESS, id_t(::gettid()), nice) != 0)
      log::debug("switch", "forwarding thread {}: cannot set nice {}: {} (needs CAP_SYS_NICE)", index_, nice,
                 std::strerror(errno));
  }
  // The coalescing wait is short: the default 50 us slack would double it.
  if (shared_.packet_in_coalesce_ns) ::prctl(PR_SET_TIMERSLACK, 5000UL);
  // stop() wakes the wait through the eventfd: the timeout is only a backstop (at
  // 100 ms a lab's hundred idle switches woke a thousand times a second).
  const uint64_t period = shared_.packet_in_coalesce_ns;
  const timespec wait{time_t(period / 1'000'000'000), long(period % 1'000'000'000)};
  while (!stopping_.load(std::memory_order_relaxed)) {
    size_t n = poll_once(1000);
    if (pins_this_round_ && coalesce_wait(n, monotonic_ns())) ::nanosleep(&wait, nullptr);
  }
  log::debug("switch", "forwarding thread {} stopped", index_);
}

size_t ForwardingThread::poll_once(int timeout_ms) {
  if (!setup_epoll().ok()) return 0;
  epoll_event evs[16];
  int n = epoll_wait(epoll_fd_.get(), evs, 16, timeout_ms);
  size_t total = 0;
  for (int i = 0; i < n; ++i) {
    if (evs[i].data.u64 == kStopKey) continue;
    if (evs[i].data.u64 == kUpcallKey) {
      total += receive_upcalls();
      continue;
    }
    const size_t pi = size_t(evs[i].data.u64);
    // An AF_PACKET socket gets ENETDOWN when its link goes down; unread, it
    // would wake every epoll_wait at once (this thread spun at 100 % CPU after
    // one flap, and starved the agent on a busy machine).
    if (evs[i].events & EPOLLERR) {
      int e = ports_.at(pi).port->take_error();
      counters_.port_errors.fetch_add(1, std::memory_order_relaxed);
      if (e)
        log::debug("switch", "forwarding thread {}: port {}: {}", index_, ports_.at(pi).port->name(),
                   std::strerror(e));
    }
    total += receive_from(pi);
  }
  wake_agent_if_needed();
  return total;
}

size_t ForwardingThread::receive_from(size_t pi) {
  SwitchPort& sp = ports_.at(pi);
  size_t total = 0;
  for (size_t round = 0; round < kBatchesPerWake; ++round) {
    rx_batch_.clear();
    for (auto& b : rx_bufs_) rx_batch_.pkts.push_back(b.get());
    size_t n = sp.port->rx_batch(rx_batch_, PacketBatch::kMax);
    if (n == 0) break;
    total += n;
    counters_.rx_batches.fetch_add(1, std::memory_order_relaxed);
    counters_.rx_packets.fetch_add(n, std::memory_order_relaxed);
    uint32_t cfg = sp.config.load(std::memory_order_relaxed);
    if (cfg & (of::port_config::kNoRecv | of::port_config::kPortDown))
      sp.config_drops.fetch_add(n, std::memory_order_relaxed);
    else
      process(rx_batch_);
    if (n < PacketBatch::kMax) break;
  }
  return total;
}

void ForwardingThread::set_upcall_queue(Port* queue) {
  upcall_ = queue;
  kports_.assign(ports_.size(), nullptr);
  for (size_t i = 0; i < ports_.size(); ++i)
    kports_[i] = dynamic_cast<kernel::KernelPort*>(ports_.at(i).port.get());
}

size_t ForwardingThread::receive_upcalls() {
  size_t total = 0;
  for (size_t round = 0; round < kBatchesPerWake; ++round) {
    rx_batch_.clear();
    for (auto& b : rx_bufs_) rx_batch_.pkts.push_back(b.get());
    size_t n = upcall_->rx_batch(rx_batch_, PacketBatch::kMax);
    if (n == 0) break;
    total += n;
    counters_.rx_batches.fetch_add(1, std::memory_order_relaxed);
    counters_.rx_packets.fetch_add(n, std::memory_order_relaxed);
    // Each frame's outer tag is its ingress port's index.
    size_t kept = 0;
    for (size_t i = 0; i < n; ++i) {
      Packet* p = rx_batch_.pkts[i];
      int tag = kernel::UpcallDevice::pop_port_tag(*p);
      if (tag < 0 || size_t(tag) >= kports_.size() || !kports_[size_t(tag)]) {
        counters_.port_errors.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      SwitchPort& sp = ports_.at(size_t(tag));
      kports_[size_t(tag)]->add_upcall_rx(p->size());
      if (sp.config.load(std::memory_order_relaxed) &
          (of::port_config::kNoRecv | of::port_config::kPortDown)) {
        sp.config_drops.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      p->in_port = sp.port_no;
      rx_batch_.pkts[kept++] = p;
    }
    rx_batch_.pkts.resize(kept);
    if (kept) process(rx_batch_);
    if (n < PacketBatch::kMax) break;
  }
  return total;
}

void ForwardingThread::process(PacketBatch& batch) {
  if (shared_.standalone.load(std::memory_order_relaxed)) {
    forward_standalone(batch);
  } else if (kernel_) {
    // Epoch first, then the snapshot (pinned in process_batch): see kernel_datapath.h.
    const uint64_t epoch = kernel_->epoch();
    kernel_->prepare(batch, pending_);
    dp_.process_batch(*ctx_, batch, monotonic_ns());
    kernel_->learn(*ctx_, pending_, epoch);
  } else {
    dp_.process_batch(*ctx_, batch, monotonic_ns());
  }
  flush_all();
}

// Learning bridge: learn source MAC -> in_port, send to the learned port or flood.
void ForwardingThread::forward_standalone(PacketBatch& batch) {
  for (Packet* p : batch.pkts) {
    if (p->size() < 14) continue;
    counters_.standalone_packets.fetch_add(1, std::memory_order_relaxed);
    const uint8_t* d = p->data();
    uint64_t dst = load_be32(d) * 0x10000ull + load_be16(d + 4);
    uint64_t src = load_be32(d + 6) * 0x10000ull + load_be16(d + 10);
    shared_.macs.learn(src, p->in_port);
    uint32_t out = (dst >> 40) & 1 ? MacTable::kUnknown : shared_.macs.lookup(dst);
    if (out != MacTable::kUnknown) {
      if (out != p->in_port) output(*p, out, 0);
      continue;
    }
    for (size_t i = 0; i < ports_.size(); ++i) {
      uint32_t no = ports_.at(i).port_no;
      if (no != p->in_port) output(*p, no, 0);
    }
  }
}

ForwardingThread::Staging* ForwardingThread::staging_for(uint32_t port_no) {
  int32_t i = port_no < port_index_by_no_.size() ? port_index_by_no_[port_no]
              : port_no == of::port::kLocal      ? local_index_
                                                 : -1;
  return i < 0 ? nullptr : &staging_[size_t(i)];
}

void ForwardingThread::output(const Packet& pkt, uint32_t port_no, uint32_t) {
  Staging* s = staging_for(port_no);
  if (!s) {
    counters_.output_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (s->port->config.load(std::memory_order_relaxed) &
      (of::port_config::kNoFwd | of::port_config::kPortDown)) {
    s->port->config_drops.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (pkt.size() >= kDirectTxBytes && s->caps.accepts(pkt.offload)) {
    // The port sends it unchanged (no software fallback touches it), so the
    // datapath's packet goes out as is; staged frames first to keep the order.
    flush(*s);
    s->port->port->tx_one(const_cast<Packet&>(pkt));
    return;
  }
  if (s->batch.full()) flush(*s);
  size_t k = s->batch.size();
  if (k == s->bufs.size()) s->bufs.push_back(std::make_unique<Packet>());  // warm-up only
  Packet& dst = *s->bufs[k];
  if (!dst.assign(pkt.data(), pkt.size())) {
    counters_.output_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  dst.offload = pkt.offload;
  dst.in_port = pkt.in_port;
  if (k == 0) dirty_.push_back(s);
  s->batch.pkts.push_back(&dst);
}

void ForwardingThread::flush(Staging& s) {
  if (s.batch.size() == 0) return;
  s.port->port->tx_batch(s.batch);  // the port counts what it could not send
  s.batch.clear();
}

void ForwardingThread::flush_all() {
  for (Staging* s : dirty_) flush(*s);
  dirty_.clear();
}

void ForwardingThread::packet_in(const dp::PacketInInfo& info, const Packet& pkt) {
  const SwitchPort* sp = ports_.find(info.in_port);
  // NO_PACKET_IN silences table misses from the port, as in OVS; a flow that
  // sends to the controller on purpose (os-ken's STP BPDU flow on a port it
  // keeps blocked with NO_PACKET_IN) still gets its packets there.
  if (sp && info.reason == of::PacketInReason::kNoMatch &&
      (sp->config.load(std::memory_order_relaxed) & of::port_config::kNoPacketIn))
    return;
  const uint64_t waiting = ring_pushed_bytes_ - ring_popped_bytes_.load(std::memory_order_acquire);
  if (waiting + pkt.size() > kToControllerBytes) {
    counters_.to_controller_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ToController item;
  item.info = info;
  item.data.assign(pkt.data(), pkt.data() + pkt.size());
  item.offload = pkt.offload;
  if (ring_.try_push(item)) {
    ring_pushed_bytes_ += pkt.size();
    counters_.to_controller_queued.fetch_add(1, std::memory_order_relaxed);
    queued_to_controller_ = true;
    ++pins_this_round_;
  } else {
    counters_.to_controller_dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

std::optional<ToController> ForwardingThread::pop_to_controller() {
  auto item = ring_.try_pop();
  if (item) ring_popped_bytes_.fetch_add(item->data.size(), std::memory_order_release);
  return item;
}

// Packet-in coalescing (forwarding.h): after a round that queued packet-ins
// faster than one per kCoalesceGapNs, wait before the next epoll_wait.
bool ForwardingThread::coalesce_wait(size_t received, uint64_t now_ns) {
  const uint64_t pins = pins_this_round_;
  pins_this_round_ = 0;
  if (!shared_.packet_in_coalesce_ns || pins == 0) return false;
  const uint64_t gap = now_ns - last_pin_round_ns_;
  last_pin_round_ns_ = now_ns;
  // A full batch: more is waiting already, read it at once.
  if (received >= PacketBatch::kMax || gap >= pins * kCoalesceGapNs) return false;
  counters_.coalesce_waits.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ForwardingThread::wake_agent_if_needed() {
  if (!queued_to_controller_) return;
  queued_to_controller_ = false;
  // The fence pairs with the agent's after it clears the flag (Switch's drain):
  // either it sees what was pushed, or this sees the flag clear and posts.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!shared_.agent_wake_pending.exchange(true, std::memory_order_seq_cst) && shared_.wake_agent)
    shared_.wake_agent();
}

}  // namespace flowlab::sw

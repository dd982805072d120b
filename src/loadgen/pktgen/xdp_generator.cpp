// The xdp mode of the packet generator (see xdp_generator.h).
#include "loadgen/pktgen/xdp_generator.h"

#include <fmt/format.h>
#include <sched.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "loadgen/pktgen/frame_addresses.h"
#include "loadgen/pktgen/pacer.h"
#include "loadgen/pktgen/xdp_device.h"
#include "loadgen/pktgen/xdp_program.h"
#include "packet/builder.h"

namespace flowlab::loadgen {

namespace {

using Clock = std::chrono::steady_clock;

constexpr uint16_t kSrcPort = 49152;
constexpr uint32_t kBatch = 64;  // frames per kernel batch (the NAPI budget; at most 256)
constexpr int kMaxConsecutiveErrors = 100;

struct ThreadResult {
  uint64_t sent = 0, failed = 0;
  int first_errno = 0;
};

// The CPUs this process may run on, in order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof set, &set);  // this thread; unpinned is only slower
}

// One sender: test runs of the thread's share of the rate until `end`.
void send_loop(const XdpFlowProgram& prog, ByteSpan frame, int ifindex, double rate, int cpu,
               Clock::time_point start, Clock::time_point end, ThreadResult& r) {
  if (cpu >= 0) pin_to(cpu);
  Pacer pacer(rate, start);
  int errors = 0;
  for (;;) {
    if (rate > 0 ? pacer.next_due() >= end : Clock::now() >= end) break;
    uint32_t n = pacer.chunk();
    int e = prog.run_live(frame, ifindex, n, std::min(n, kBatch));
    if (e == 0) {
      r.sent += n;
      errors = 0;
    } else {
      r.failed += n;
      if (r.first_errno == 0) r.first_errno = e;
      if (++errors >= kMaxConsecutiveErrors) break;
    }
    pacer.sent(n);
    pacer.wait();
  }
}

std::string run_error(int e, const std::string& dev) {
  if (e == EINVAL)
    return fmt::format(
        "the kernel refused a live-frame run on {} (EINVAL): --mode xdp needs Linux 5.18 or later", dev);
  if (e == EPERM || e == EACCES)
    return fmt::format("running the XDP program: {} (--mode xdp needs root: CAP_BPF and CAP_NET_ADMIN)",
                       std::strerror(e));
  return fmt::format("running the XDP program on {}: {}", dev, std::strerror(e));
}

}  // namespace

Result<PacketGeneratorResult> run_xdp_generator(const PacketGeneratorOptions& o) {
  FLOWLAB_TRY(check_live_frames_kernel());
  FLOWLAB_ASSIGN_OR_RETURN(FrameAddresses a, resolve_frame_addresses({o.dst, o.dev, o.src_mac, o.dst_mac}));
  const Bytes frame = FrameBuilder()
                          .eth(a.dst_mac, a.src_mac)
                          .ipv4(a.src_ip, a.dst_ip)
                          .udp(kSrcPort, o.base_port)
                          .payload(o.payload, 0x5a)
                          .build();
  const XdpFlowSpec spec{o.base_port, o.flows, load_be16(frame.data() + kUdpCsumOffset)};
  FLOWLAB_ASSIGN_OR_RETURN(XdpFlowProgram prog, XdpFlowProgram::load(spec));
  const Status resident = prog.keep_resident();
  FLOWLAB_ASSIGN_OR_RETURN(SendingDevice dev, check_sending_device(a.dev, a.ifindex, frame.size()));

  FLOWLAB_ASSIGN_OR_RETURN(uint64_t dropped0, tx_dropped(dev.ifindex));
  if (int e = prog.run_live(frame, dev.ifindex, kBatch, kBatch); e != 0)
    return fail("{}", run_error(e, dev.name));
  FLOWLAB_ASSIGN_OR_RETURN(uint64_t dropped1, tx_dropped(dev.ifindex));
  if (dev.is_veth() && dropped1 - dropped0 >= kBatch) return fail("{}", veth_peer_without_napi(dev.name));

  std::vector<ThreadResult> per(o.threads);
  std::vector<int> cpus = allowed_cpus();
  const double rate_each = o.rate / o.threads;
  const auto t0 = Clock::now();
  const auto end = t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
  {
    std::vector<std::jthread> senders;
    for (uint32_t t = 0; t < o.threads; ++t) {
      int cpu = cpus.empty() ? -1 : cpus[t % cpus.size()];
      senders.emplace_back(
          [&, t, cpu] { send_loop(prog, frame, dev.ifindex, rate_each, cpu, t0, end, per[t]); });
    }
  }
  PacketGeneratorResult r;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  r.sent = kBatch;  // the probe
  int first_errno = 0;
  for (const ThreadResult& p : per) {
    r.sent += p.sent;
    r.failed += p.failed;
    if (!first_errno) first_errno = p.first_errno;
  }
  r.pps = double(r.sent) / r.seconds;
  if (r.sent == kBatch && r.failed > 0) return fail("{}", run_error(first_errno, dev.name));
  if (first_errno) r.note = fmt::format("{} frames not sent: {}", r.failed, run_error(first_errno, dev.name));
  if (!resident.ok()) {
    if (!r.note.empty()) r.note += "; ";
    r.note += resident.error().message + " (each test run waited for an RCU grace period)";
  }
  auto dropped2 = tx_dropped(dev.ifindex);
  if (dropped2.ok() && *dropped2 > dropped1) {
    if (!r.note.empty()) r.note += "; ";
    r.note +=
        fmt::format("{} of the frames sent were refused by {} (its tx_dropped{})", *dropped2 - dropped1,
                    dev.name, dev.is_veth() ? ": the peer's receive ring was full, see its rx_dropped" : "");
  }
  return r;
}

}  // namespace flowlab::loadgen

// PacketGenerator (see packet_generator.h).
#include "loadgen/pktgen/packet_generator.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "loadgen/pktgen/pacer.h"
#include "loadgen/pktgen/xdp_generator.h"

namespace flowlab::loadgen {

namespace {

// One sender: its own socket, flows starting at `first` so threads interleave;
// paced to its share of the rate (batches of up to 64 datagrams).
void send_loop(const PacketGeneratorOptions& o, const sockaddr_in& base, uint32_t first,
               std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end,
               PacketGeneratorResult& r) {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    ++r.failed;
    return;
  }
  constexpr size_t kBatch = 64;
  std::vector<uint8_t> payload(o.payload, 0x5a);
  std::vector<sockaddr_in> addrs(o.flows, base);
  for (uint32_t i = 0; i < o.flows; ++i) addrs[i].sin_port = htons(uint16_t(o.base_port + i));
  std::vector<iovec> iov(kBatch);
  std::vector<mmsghdr> msgs(kBatch);
  uint32_t next = first % o.flows;
  const double rate = o.rate / o.threads;
  Pacer pacer(rate, start);
  const size_t batch = std::min<size_t>(kBatch, pacer.chunk());
  for (uint64_t round = 0;; ++round) {
    if (rate > 0 ? pacer.next_due() >= end : (round & 63) == 0 && std::chrono::steady_clock::now() >= end)
      break;
    for (size_t i = 0; i < batch; ++i) {
      iov[i] = {payload.data(), payload.size()};
      msgs[i] = {};
      msgs[i].msg_hdr.msg_iov = &iov[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      msgs[i].msg_hdr.msg_name = &addrs[next];
      msgs[i].msg_hdr.msg_namelen = sizeof(sockaddr_in);
      next = next + 1 == o.flows ? 0 : next + 1;
    }
    int n = ::sendmmsg(fd, msgs.data(), unsigned(batch), 0);
    if (n > 0)
      r.sent += uint64_t(n);
    else
      ++r.failed;
    pacer.sent(batch);
    pacer.wait();
  }
  ::close(fd);
}

}  // namespace

Result<PacketGeneratorResult> run_packet_generator(const PacketGeneratorOptions& o) {
  if (o.flows == 0 || o.flows > 65535u - o.base_port) return fail("--flows {}: out of range", o.flows);
  if (o.payload > 65000) return fail("--size {}: too large", o.payload);
  if (!(o.seconds > 0)) return fail("--seconds must be > 0");
  if (o.threads == 0 || o.threads > 64) return fail("--threads {}: expected 1..64", o.threads);
  if (!(o.rate >= 0) || o.rate > 1e9)
    return fail("--rate {}: expected 0 (as fast as possible) .. 1e9", o.rate);
  if (o.mode == GeneratorMode::kXdp) {
    if (o.payload > 9000) return fail("--size {}: too large for --mode xdp", o.payload);
    return run_xdp_generator(o);
  }
  if (!o.dev.empty() || !o.src_mac.empty() || !o.dst_mac.empty())
    return fail("--dev, --src-mac and --dst-mac are for --mode xdp (udp mode sends through the IP stack)");
  sockaddr_in base{};
  base.sin_family = AF_INET;
  if (::inet_pton(AF_INET, o.dst.c_str(), &base.sin_addr) != 1)
    return fail("--dst {}: not an IPv4 address", o.dst);
  std::vector<PacketGeneratorResult> per(o.threads);
  const auto t0 = std::chrono::steady_clock::now();
  const auto end = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(o.seconds));
  {
    std::vector<std::jthread> senders;
    for (uint32_t t = 1; t < o.threads; ++t)
      senders.emplace_back([&o, &base, &per, t, t0, end] { send_loop(o, base, t * 17, t0, end, per[t]); });
    send_loop(o, base, 0, t0, end, per[0]);
  }
  PacketGeneratorResult r;
  for (const PacketGeneratorResult& p : per) {
    r.sent += p.sent;
    r.failed += p.failed;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.pps = double(r.sent) / r.seconds;
  return r;
}

}  // namespace flowlab::loadgen

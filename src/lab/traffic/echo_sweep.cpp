// echo_sweep: one echo per ordered host pair from raw ICMP sockets (see echo_sweep.h).
#include "lab/traffic/echo_sweep.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <linux/icmp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/traffic/pingall_hosts.h"
#include "lab/traffic/tcp_crr_socket.h"

namespace flowlab::lab {

uint16_t inet_checksum(const uint8_t* data, size_t len) {
  uint32_t sum = 0;
  for (size_t k = 0; k + 1 < len; k += 2) sum += uint32_t(data[k]) << 8 | data[k + 1];
  if (len % 2) sum += uint32_t(data[len - 1]) << 8;
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

std::vector<uint8_t> icmp_echo_request(uint16_t id, uint16_t seq, size_t payload) {
  std::vector<uint8_t> p(8 + payload);
  p[0] = ICMP_ECHO;
  p[4] = uint8_t(id >> 8), p[5] = uint8_t(id);
  p[6] = uint8_t(seq >> 8), p[7] = uint8_t(seq);
  for (size_t k = 0; k < payload; ++k) p[8 + k] = uint8_t(0x10 + k);  // ping's pattern
  uint16_t c = inet_checksum(p.data(), p.size());
  p[2] = uint8_t(c >> 8), p[3] = uint8_t(c);
  return p;
}

namespace {

using Clock = std::chrono::steady_clock;
// Through controllers: a switch sheds packet-ins beyond a window of unacknowledged
// bytes (switch/agent.h: 8 KB at least, ~50 packet-ins of an echo); an echo in flight
// is at most two packet-ins per switch (its request's and its reply's), so 16
// unanswered echoes stay inside the smallest window whatever the controller's speed.
constexpr size_t kControllerEchoesInFlight = 16;
// Half the kernel's per-CPU backlog (net.core.netdev_max_backlog, 1,000): the
// deliveries of the announcements sent in one millisecond.
constexpr size_t kBacklogDeliveries = 500;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// A raw ICMP socket in each host's namespace, reading echo replies only. One thread
// visits the namespaces in turn (setns changes only the calling thread; a socket
// stays in the namespace it was opened in), then ends.
Result<std::vector<crr::Fd>> echo_sockets(const std::vector<PingallHost>& hosts) {
  std::vector<crr::Fd> socks;
  std::string error;
  std::thread visitor([&] {
    for (const auto& h : hosts) {
      crr::Fd ns(::open(("/run/netns/" + h.ns).c_str(), O_RDONLY | O_CLOEXEC));
      if (ns.get() < 0 || setns(ns.get(), CLONE_NEWNET) != 0) {
        error = fmt::format("entering namespace {} of {}: {}", h.ns, h.name, std::strerror(errno));
        return;
      }
      crr::Fd s(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_ICMP));
      icmp_filter only_replies{~(1u << ICMP_ECHOREPLY)};
      int room = 1 << 20;
      if (s.get() < 0 || setsockopt(s.get(), SOL_RAW, ICMP_FILTER, &only_replies, sizeof only_replies) != 0 ||
          (setsockopt(s.get(), SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof room) != 0 &&
           setsockopt(s.get(), SOL_SOCKET, SO_RCVBUF, &room, sizeof room) != 0)) {
        error = fmt::format("a raw ICMP socket in {}: {} (root is needed)", h.ns, std::strerror(errno));
        return;
      }
      socks.push_back(std::move(s));
    }
  });
  visitor.join();
  if (!error.empty()) return fail("pingall: {}", error);
  return socks;
}

// One socket per host: more than the usual 1,024 descriptors past a thousand hosts.
void room_for_descriptors(size_t n) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur >= n + 256) return;
  r.rlim_cur = std::min<rlim_t>(r.rlim_max, n + 256);
  setrlimit(RLIMIT_NOFILE, &r);
}

struct Target {
  in_addr addr{};
};

// How fast the echoes go: at most `per_ms` a millisecond, and at most `in_flight`
// unanswered that are younger than `release_ms` (an echo older than that no longer
// holds the window back; it still counts if its reply comes before the timeout).
struct SweepPace {
  double per_ms = 100;
  size_t in_flight = 1024;
  double release_ms = 250;
};

class Sweep {
 public:
  Sweep(std::vector<crr::Fd> socks, std::vector<Target> targets, bool self_skipped)
      : socks_(std::move(socks)), targets_(std::move(targets)), self_skipped_(self_skipped) {
    out_.replies.assign(socks_.size(), std::vector<EchoReply>(targets_.size()));
    sent_at_.assign(socks_.size(), std::vector<Clock::time_point>(targets_.size()));
    for (const auto& s : socks_) fds_.push_back({s.get(), POLLIN, 0});
  }

  // The echoes in rounds (each host one echo a round), paced, then the replies until
  // all came or `timeout_ms` after the last echo.
  EchoSweep run(const SweepPace& pace, double timeout_ms, bool by_source) {
    const size_t n = socks_.size(), m = targets_.size();
    if (by_source) return run_by_source(pace, timeout_ms);
    const size_t rounds = self_skipped_ ? m : 1;
    auto t0 = Clock::now();
    for (size_t r = self_skipped_ ? 1 : 0; r < rounds && !interrupted(); ++r)
      for (size_t i = 0; i < n && !interrupted(); ++i) {
        for (;;) {
          release_older_than(pace.release_ms);
          bool rate_ok = double(order_.size()) < pace.per_ms * ms_since(t0) + pace.per_ms;
          if (rate_ok && in_flight_ < pace.in_flight) break;
          read_replies(rate_ok ? 1 : 0.5);
        }
        send(i, self_skipped_ ? (i + r) % m : 0);
        read_replies(0);
      }
    auto last = Clock::now();
    while (out_.received < out_.sent && !interrupted()) {
      double left = timeout_ms - ms_since(last);
      if (left <= 0) break;
      read_replies(std::min(left, 50.0));
    }
    out_.interrupted = interrupted();
    return std::move(out_);
  }

 private:
  // Each source's echoes, paced, then its replies until all came or `timeout_ms`
  // after its last echo; then the next source.
  EchoSweep run_by_source(const SweepPace& pace, double timeout_ms) {
    const size_t n = socks_.size(), m = targets_.size();
    for (size_t i = 0; i < n && !interrupted(); ++i) {
      auto t0 = Clock::now();
      size_t sent = 0;
      for (size_t j = 0; j < m && !interrupted(); ++j) {
        if (self_skipped_ && j == i) continue;
        while (double(sent) >= pace.per_ms * ms_since(t0) + pace.per_ms) read_replies(0.5);
        send(i, j);
        ++sent;
        read_replies(0);
      }
      auto last = Clock::now();
      while (!row_answered(i) && !interrupted()) {
        double left = timeout_ms - ms_since(last);
        if (left <= 0) break;
        read_replies(std::min(left, 50.0));
      }
    }
    out_.interrupted = interrupted();
    return std::move(out_);
  }

  bool row_answered(size_t i) const {
    for (const auto& r : out_.replies[i])
      if (r.sent && !r.received) return false;
    return true;
  }

  void send(size_t i, size_t j) {
    auto packet = icmp_echo_request(id(), uint16_t(j));
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr = targets_[j].addr;
    out_.replies[i][j].sent = true;
    ++out_.sent;
    sent_at_[i][j] = Clock::now();
    order_.emplace_back(i, j);
    ++in_flight_;
    // A send that fails (no route, a full queue) is a lost echo, as ping counts it.
    (void)sendto(socks_[i].get(), packet.data(), packet.size(), 0, reinterpret_cast<const sockaddr*>(&to),
                 sizeof to);
  }

  // The window's oldest echoes: answered ones leave it (counted at their reply),
  // unanswered ones once older than `ms`.
  void release_older_than(double ms) {
    auto now = Clock::now();
    for (; oldest_ < order_.size(); ++oldest_) {
      auto [i, j] = order_[oldest_];
      if (out_.replies[i][j].received) continue;
      if (std::chrono::duration<double, std::milli>(now - sent_at_[i][j]).count() < ms) break;
      --in_flight_;
    }
  }

  // Waits up to `wait_ms` for replies (0: only looks) and takes all that are there.
  void read_replies(double wait_ms) {
    int timeout = wait_ms <= 0 ? 0 : std::max(1, int(wait_ms));
    if (poll(fds_.data(), fds_.size(), timeout) <= 0) return;
    for (size_t i = 0; i < fds_.size(); ++i) {
      if (!(fds_[i].revents & POLLIN)) continue;
      uint8_t buf[1500];
      sockaddr_in from{};
      for (;;) {
        socklen_t len = sizeof from;
        ssize_t got = recvfrom(fds_[i].fd, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &len);
        if (got <= 0) break;
        take(i, buf, size_t(got), from.sin_addr);
      }
    }
  }

  // A datagram on host i's socket: its IP header, then ICMP.
  void take(size_t i, const uint8_t* p, size_t len, in_addr from) {
    if (len < 20) return;  // an IPv4 header at least
    size_t ihl = size_t(p[0] & 0x0f) * 4;
    if (len < ihl + 8 || p[ihl] != ICMP_ECHOREPLY) return;
    uint16_t rid = uint16_t(p[ihl + 4] << 8 | p[ihl + 5]), seq = uint16_t(p[ihl + 6] << 8 | p[ihl + 7]);
    if (rid != id() || seq >= targets_.size() || targets_[seq].addr.s_addr != from.s_addr) return;
    EchoReply& r = out_.replies[i][seq];
    if (!r.sent || r.received) return;  // a duplicate, or another sweep's
    r.received = true;
    auto took = Clock::now() - sent_at_[i][seq];
    r.rtt_ms = std::chrono::duration<double, std::milli>(took).count();
    ++out_.received;
    if (!released(i, seq)) --in_flight_;
  }

  // Whether echo (i, j), unanswered until now, had left the window by age.
  bool released(size_t i, size_t j) const {
    // order_ up to oldest_ has left the window; an echo's place in it is found by
    // its send time (sent_at_ grows along order_).
    if (oldest_ == 0) return false;
    auto [oi, oj] = order_[oldest_ - 1];
    return sent_at_[i][j] <= sent_at_[oi][oj];
  }

  static uint16_t id() { return uint16_t(getpid()); }

  std::vector<crr::Fd> socks_;
  std::vector<Target> targets_;
  bool self_skipped_;
  std::vector<pollfd> fds_;
  std::vector<std::vector<Clock::time_point>> sent_at_;
  std::vector<std::pair<size_t, size_t>> order_;  // the echoes in the order sent
  size_t oldest_ = 0;                             // order_[.. oldest_) has left the window
  size_t in_flight_ = 0;
  EchoSweep out_;
};

}  // namespace

Result<EchoSweep> echo_sweep(const std::vector<PingallHost>& hosts, const EchoSweepOptions& o) {
  const size_t n = hosts.size();
  if (n > 65535) return fail("pingall: {} hosts; an echo's sequence number names at most 65,535", n);
  std::vector<Target> targets(o.to.empty() ? n : 1);
  for (size_t k = 0; k < targets.size(); ++k) {
    const std::string& a = o.to.empty() ? hosts[k].addr : o.to;
    if (inet_pton(AF_INET, a.c_str(), &targets[k].addr) != 1)
      return fail("pingall: '{}' is not an IPv4 address{}", a, o.to.empty() ? " of " + hosts[k].name : "");
  }
  room_for_descriptors(n);
  FLOWLAB_ASSIGN_OR_RETURN(auto socks, echo_sockets(hosts));
  const PingallPacing pacing = pingall_pacing(n, 1, o.path);
  double timeout_ms = o.timeout_s > 0 ? o.timeout_s * 1000 : pacing.timeout_ms;
  SweepPace pace;
  if (o.path.controller_switches) {
    pace.per_ms = kPacketInBudget / 1000.0 / double(o.path.controller_switches);
    pace.in_flight = kControllerEchoesInFlight;
  }
  NeighbourTableRoom room(n * targets.size() + 1024);
  HostArpPatience arp(hosts, pacing.arp_retrans_ms);
  // The broadcasts of several hosts a millisecond fit the kernel's backlog and arrive
  // in a few ms on bridges; through controllers each is also a packet-in and a flood
  // (kept within a switch's smallest packet-in window) and takes a round trip more.
  size_t announce_per_ms = std::max<size_t>(1, kBacklogDeliveries / n);
  if (o.path.controller_switches) announce_per_ms = std::min(announce_per_ms, kControllerEchoesInFlight);
  HostsAnnounced announced(hosts, o.to.empty() && n >= kSweepAnnounceHosts, announce_per_ms,
                           o.path.controller_switches ? 0.1 : 0.02);
  return Sweep(std::move(socks), std::move(targets), o.to.empty()).run(pace, timeout_ms, o.by_source);
}

}  // namespace flowlab::lab

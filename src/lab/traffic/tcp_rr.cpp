// tcp-rr ping-pong client and server (see tcp_rr.h). Blocking sockets with
// SO_RCVTIMEO/SO_SNDTIMEO so no call waits past the timeout; TCP_NODELAY on both ends.
#include "lab/traffic/tcp_rr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/clock.h"
#include "lab/traffic/tcp_crr_socket.h"

namespace flowlab::lab {

namespace {

using crr::Fd;

void set_timeouts(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = time_t(seconds);
  tv.tv_usec = suseconds_t((seconds - double(tv.tv_sec)) * 1e6);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

// Reads/writes exactly n bytes; false on EOF, error or timeout.
bool read_full(int fd, char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

bool write_full(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::send(fd, p, n, MSG_NOSIGNAL);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= size_t(r);
  }
  return true;
}

}  // namespace

Status tcp_rr_server(int port, double timeout_s) {
  Fd ls(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (ls.get() < 0) return fail("socket: {}", std::strerror(errno));
  int one = 1;
  setsockopt(ls.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(ls.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return fail("bind :{}: {}", port, std::strerror(errno));
  if (listen(ls.get(), 4) != 0) return fail("listen: {}", std::strerror(errno));
  pollfd pfd{ls.get(), POLLIN, 0};
  if (poll(&pfd, 1, int(timeout_s * 1000)) <= 0) return fail("no client within {:.0f} s", timeout_s);
  Fd c(accept4(ls.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (c.get() < 0) return fail("accept: {}", std::strerror(errno));
  set_timeouts(c.get(), timeout_s);
  // The first 4 bytes carry the message size; then echo messages until EOF.
  uint32_t size_be = 0;
  if (!read_full(c.get(), reinterpret_cast<char*>(&size_be), 4)) return fail("client sent no header");
  size_t size = ntohl(size_be);
  if (size == 0 || size > 65536) return fail("bad message size {}", size);
  std::vector<char> buf(size);
  while (read_full(c.get(), buf.data(), size))
    if (!write_full(c.get(), buf.data(), size)) break;
  return ok_status();
}

Result<nlohmann::json> tcp_rr_client(const std::string& host, int port, int count, int size,
                                     double timeout_s) {
  if (size <= 0 || size > 65536 || count <= 0) return fail("count must be > 0 and size 1..65536");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) return fail("'{}' is not an IPv4 address", host);
  Fd s;
  // The server may still be starting: retry the connect for up to 3 s.
  uint64_t deadline = monotonic_ns() + 3'000'000'000ULL;
  for (;;) {
    s = Fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    set_timeouts(s.get(), timeout_s);
    if (connect(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) break;
    if (monotonic_ns() > deadline) return fail("connect {}:{}: {}", host, port, std::strerror(errno));
    usleep(50'000);
  }
  uint32_t size_be = htonl(uint32_t(size));
  if (!write_full(s.get(), reinterpret_cast<const char*>(&size_be), 4)) return fail("send header failed");
  std::vector<char> buf(size_t(size), 'x');
  std::vector<double> rtts;
  rtts.reserve(size_t(count));
  uint64_t start = monotonic_ns();
  uint64_t end_by = start + uint64_t(timeout_s * 1e9);
  for (int i = 0; i < count && monotonic_ns() < end_by; ++i) {
    uint64_t t0 = monotonic_ns();
    if (!write_full(s.get(), buf.data(), buf.size()) || !read_full(s.get(), buf.data(), buf.size()))
      return fail("transaction {} of {} failed: {}", i + 1, count,
                  errno ? std::strerror(errno) : "connection closed");
    rtts.push_back(double(monotonic_ns() - t0) / 1e3);
  }
  double total_s = double(monotonic_ns() - start) / 1e9;
  if (rtts.empty()) return fail("no transaction completed");
  std::vector<double> sorted = rtts;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double r : rtts) sum += r;
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, size_t(p * double(sorted.size())))]; };
  return nlohmann::json{
      {"count", rtts.size()},         {"size", size},
      {"rtt_min_us", sorted.front()}, {"rtt_avg_us", sum / double(rtts.size())},
      {"rtt_p50_us", pct(0.50)},      {"rtt_p99_us", pct(0.99)},
      {"rtt_max_us", sorted.back()},  {"transactions_per_s", double(rtts.size()) / total_s}};
}

}  // namespace flowlab::lab

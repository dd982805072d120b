// probe sender and receiver (see probe.h).
#include "lab/traffic/probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include "core/clock.h"

namespace flowlab::lab {

namespace {

constexpr uint32_t kMagic = 0x464c5052;  // "FLPR"
constexpr size_t kHeader = 16;           // magic, seq, send_ns

std::atomic<bool> g_stop{false};
void on_signal(int) { g_stop = true; }

class Socket {
 public:
  Socket() : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

void put32(char* p, uint32_t v) {
  v = htonl(v);
  std::memcpy(p, &v, 4);
}
uint32_t get32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return ntohl(v);
}
void put64(char* p, uint64_t v) {
  put32(p, uint32_t(v >> 32));
  put32(p + 4, uint32_t(v));
}
uint64_t get64(const char* p) { return uint64_t(get32(p)) << 32 | get32(p + 4); }

}  // namespace

Result<nlohmann::json> probe_send(const ProbeSendOptions& o) {
  if (o.size < int(kHeader) || o.size > 65000) return fail("size must be {}..65000 bytes", kHeader);
  if (o.interval_ns < 10'000 || o.interval_ns > 10'000'000'000ULL) return fail("interval must be 10us..10s");
  if (!(o.duration_s > 0) || o.duration_s > 3600) return fail("duration must be in (0, 3600] s");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(o.port));
  if (inet_pton(AF_INET, o.host.c_str(), &a.sin_addr) != 1)
    return fail("'{}' is not an IPv4 address", o.host);
  Socket s;
  if (s.get() < 0) return fail("socket: {}", std::strerror(errno));
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  uint64_t start = o.start_at_ns ? o.start_at_ns : monotonic_ns();
  uint64_t count = uint64_t(o.duration_s * 1e9) / o.interval_ns;
  std::vector<char> buf(size_t(o.size), 0);
  uint64_t errors = 0, max_late = 0, sent = 0;
  std::string first_error;
  for (uint64_t i = 0; i < count && !g_stop; ++i) {
    uint64_t due = start + i * o.interval_ns;
    timespec ts{time_t(due / 1'000'000'000), long(due % 1'000'000'000)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR && !g_stop) {
    }
    uint64_t now = monotonic_ns();
    max_late = std::max(max_late, now > due ? now - due : 0);
    put32(buf.data(), kMagic);
    put32(buf.data() + 4, uint32_t(i));
    put64(buf.data() + 8, now);
    ++sent;
    // Never block: a datagram the stack cannot take now (no route while a link is
    // down, a full socket while ARP resolves) is lost, and the schedule holds.
    if (sendto(s.get(), buf.data(), buf.size(), MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&a), sizeof a) <
        0) {
      if (errors++ == 0) first_error = std::strerror(errno);
    }
  }
  return nlohmann::json{
      {"start_ns", start},     {"interval_ns", o.interval_ns},    {"sent", sent},
      {"send_errors", errors}, {"first_send_error", first_error}, {"max_late_us", double(max_late) / 1e3}};
}

Status probe_receive(int port, const std::string& out_path, double max_s) {
  Socket s;
  if (s.get() < 0) return fail("socket: {}", std::strerror(errno));
  int buf = 8 << 20;
  setsockopt(s.get(), SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
  timeval tv{0, 100'000};
  setsockopt(s.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(s.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return fail("bind :{}: {}", port, std::strerror(errno));
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::fprintf(stderr, "probe receiver ready on :%d\n", port);
  uint64_t end = max_s > 0 ? monotonic_ns() + uint64_t(max_s * 1e9) : 0;
  nlohmann::json arr = nlohmann::json::array();
  char pkt[65536];
  uint64_t foreign = 0;
  while (!g_stop && (!end || monotonic_ns() < end)) {
    ssize_t n = recv(s.get(), pkt, sizeof pkt, 0);
    if (n < 0) continue;  // timeout or EINTR: look at the flags
    uint64_t now = monotonic_ns();
    if (size_t(n) < kHeader || get32(pkt) != kMagic) {
      ++foreign;
      continue;
    }
    arr.push_back({get32(pkt + 4), get64(pkt + 8), now});
  }
  std::ofstream f(out_path);
  if (!f) return fail("cannot write {}", out_path);
  f << nlohmann::json{{"arrivals", arr}, {"foreign", foreign}}.dump() << "\n";
  return ok_status();
}

Result<std::vector<ProbeArrival>> read_probe_arrivals(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("{}: the probe receiver wrote nothing", path);
  std::vector<ProbeArrival> out;
  try {
    nlohmann::json j;
    in >> j;
    for (const auto& e : j.at("arrivals"))
      out.push_back(ProbeArrival{e.at(0).get<uint32_t>(), e.at(1).get<uint64_t>(), e.at(2).get<uint64_t>()});
  } catch (const nlohmann::json::exception& e) {
    return fail("{}: {}", path, e.what());
  }
  return out;
}

}  // namespace flowlab::lab

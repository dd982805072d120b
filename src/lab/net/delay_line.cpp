// The delay line's loop (see delay_line.h). One thread, two AF_PACKET sockets,
// one FIFO per direction ordered by due time. ppoll sleeps until the next due
// frame or the next arrival; timer slack is set to 1 us so a 100 us delay holds.
#include "lab/net/delay_line.h"

#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "core/clock.h"

namespace flowlab::lab {

namespace {

constexpr size_t kFrameMax = 65536 + 10 + 64;  // GSO frame + vnet header + tags
constexpr int kRecvBurst = 64;

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};
void on_signal(int) { g_stop = true; }
void on_reload(int) { g_reload = true; }

struct Frame {
  uint64_t due_ns;
  std::vector<char> bytes;  // vnet header + frame
};

struct Counters {
  uint64_t frames = 0, bytes = 0, dropped_queue_full = 0, send_errors = 0;
  size_t max_queue = 0;
  uint64_t kernel_stamped = 0;  // frames whose arrival time came from the kernel
};

// How far behind its due time a frame leaves (wake-up, send through the veth):
// the hold is shortened by a low mark of it (not the average, so that a frame
// is almost never delivered before `delay`), so the link adds `delay`, not delay
// plus the line's own cost. At most a quarter of the delay.
constexpr int kLateShift = 4;  // EWMA weight 1/16

uint64_t realtime_ns() {
  timespec t{};
  clock_gettime(CLOCK_REALTIME, &t);
  return uint64_t(t.tv_sec) * 1'000'000'000ULL + uint64_t(t.tv_nsec);
}

struct Side {
  int fd = -1;
  std::string ifname;
  ~Side() {
    if (fd >= 0) close(fd);
  }
};

Status open_side(Side& s) {
  s.fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s.fd < 0) return fail("AF_PACKET socket: {}", std::strerror(errno));
  int one = 1, buf = 16 << 20;
  if (setsockopt(s.fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0)
    return fail("{}: PACKET_VNET_HDR: {}", s.ifname, std::strerror(errno));
  setsockopt(s.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one);
  // The kernel stamps each frame when the veth hands it over (CLOCK_REALTIME): the
  // hold counts from there, not from when this process got to read it.
  setsockopt(s.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  setsockopt(s.fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
  setsockopt(s.fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf);
  unsigned idx = if_nametoindex(s.ifname.c_str());
  if (idx == 0) return fail("no interface {}", s.ifname);
  sockaddr_ll sll{};
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = int(idx);
  if (bind(s.fd, reinterpret_cast<sockaddr*>(&sll), sizeof sll) != 0)
    return fail("{}: bind: {}", s.ifname, std::strerror(errno));
  return ok_status();
}

class Direction {
 public:
  Direction(const DelayLineDirection& p, uint64_t seed) : p_(p), rng_(seed) {}
  void set(const DelayLineDirection& p) { p_ = p; }

  // Reads what is waiting on `in`, stamping each frame with its due time.
  void receive(int in) {
    // One receive buffer, reused; each held frame gets a copy of its own size (a
    // 64 KB buffer per frame would zero 64 KB for every 66-byte ACK and keep that
    // much memory per frame held).
    buf_.resize(kFrameMax);
    for (int i = 0; i < kRecvBurst; ++i) {
      iovec iov{buf_.data(), buf_.size()};
      alignas(cmsghdr) char ctl[CMSG_SPACE(sizeof(timespec))];
      msghdr mh{};
      mh.msg_iov = &iov;
      mh.msg_iovlen = 1;
      mh.msg_control = ctl;
      mh.msg_controllen = sizeof ctl;
      ssize_t n = recvmsg(in, &mh, 0);
      if (n <= 0) return;
      uint64_t now = monotonic_ns();  // per frame: we may have been preempted since the poll
      uint64_t arrived = now;
      for (cmsghdr* c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
        timespec ts;
        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
        uint64_t stamp = uint64_t(ts.tv_sec) * 1'000'000'000ULL + uint64_t(ts.tv_nsec);
        uint64_t age = realtime_ns() - std::min(stamp, realtime_ns());
        if (age < 1'000'000'000ULL && age < now) {  // a sane stamp (not a clock step)
          arrived = now - age;
          ++c_.kernel_stamped;
        }
      }
      if (q_.size() >= size_t(p_.queue)) {
        ++c_.dropped_queue_full;
        continue;
      }
      int64_t d = int64_t(p_.delay_ns);
      if (p_.jitter_ns > 0) {
        std::uniform_int_distribution<int64_t> j(-int64_t(p_.jitter_ns), int64_t(p_.jitter_ns));
        d = std::max<int64_t>(0, d + j(rng_));
      }
      d -= int64_t(std::min<uint64_t>(late_floor_ns_, p_.delay_ns / 4));
      uint64_t due = std::max(arrived + uint64_t(std::max<int64_t>(d, 0)), last_due_);
      last_due_ = due;
      q_.push_back(Frame{due, std::vector<char>(buf_.begin(), buf_.begin() + n)});
      c_.max_queue = std::max(c_.max_queue, q_.size());
    }
  }
  // Sends every frame that is due; false when the socket is full (wait POLLOUT).
  bool send_due(int out, uint64_t now) {
    while (!q_.empty() && q_.front().due_ns <= now) {
      const auto& f = q_.front().bytes;
      ssize_t n = send(out, f.data(), f.size(), 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return false;
      if (n < 0) {
        ++c_.send_errors;  // ENOBUFS: the queue behind us (the link's rate) dropped it
      } else {
        ++c_.frames;
        c_.bytes += f.size() > 10 ? f.size() - 10 : 0;
        // Lateness of this frame (only while the line keeps up: a backlog is not latency).
        uint64_t late = monotonic_ns() - q_.front().due_ns;
        if (late < 1'000'000) {
          late_ns_ = late_ns_ - (late_ns_ >> kLateShift) + late;
          // The floor follows a lower lateness at once and a higher one slowly (1/256):
          // a frame leaves early only when it is less late than the floor, by little.
          late_floor_ns_ = late < late_floor_ns_ ? late : late_floor_ns_ + ((late - late_floor_ns_) >> 8);
        }
      }
      q_.pop_front();
    }
    return true;
  }
  // Nanoseconds until the next frame is due (0: now), or -1 when empty.
  int64_t wait_ns(uint64_t now) const {
    if (q_.empty()) return -1;
    return q_.front().due_ns > now ? int64_t(q_.front().due_ns - now) : 0;
  }
  nlohmann::json stats() const {
    return {{"frames", c_.frames},
            {"bytes", c_.bytes},
            {"dropped_queue_full", c_.dropped_queue_full},
            {"send_errors", c_.send_errors},
            {"max_queue", c_.max_queue},
            {"kernel_stamped", c_.kernel_stamped},
            {"own_latency_ns", late_ns_ >> kLateShift},
            {"own_latency_floor_ns", late_floor_ns_},
            {"delay_ns", p_.delay_ns},
            {"jitter_ns", p_.jitter_ns},
            {"queue", p_.queue}};
  }

 private:
  DelayLineDirection p_;
  std::mt19937_64 rng_;
  std::deque<Frame> q_;
  std::vector<char> buf_;
  uint64_t last_due_ = 0;
  uint64_t late_ns_ = 0;        // 16 x the average lateness (reported)
  uint64_t late_floor_ns_ = 0;  // a low mark of the lateness: what the hold is shortened by
  Counters c_;
};

}  // namespace

std::string to_arg(const DelayLineDirection& d) {
  return fmt::format("{},{},{}", d.delay_ns, d.jitter_ns, d.queue);
}

Result<DelayLineDirection> parse_delay_line_arg(const std::string& s) {
  DelayLineDirection d;
  unsigned long long delay = 0, jitter = 0;
  int queue = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "%llu,%llu,%d%c", &delay, &jitter, &queue, &tail) != 3 || queue < 1 ||
      jitter > delay)
    return fail("'{}': expected DELAY_NS,JITTER_NS,QUEUE (jitter <= delay, queue >= 1)", s);
  d.delay_ns = delay;
  d.jitter_ns = jitter;
  d.queue = queue;
  return d;
}

Result<std::pair<DelayLineDirection, DelayLineDirection>> read_delay_line_params(const std::string& path) {
  std::ifstream in(path);
  std::string ab, ba;
  if (!(in >> ab >> ba)) return fail("{}: expected two DELAY_NS,JITTER_NS,QUEUE fields", path);
  FLOWLAB_ASSIGN_OR_RETURN(auto x, parse_delay_line_arg(ab));
  FLOWLAB_ASSIGN_OR_RETURN(auto y, parse_delay_line_arg(ba));
  return std::pair{x, y};
}

Status run_delay_line(const std::string& if_a, const std::string& if_b, const DelayLineDirection& a_to_b,
                      const DelayLineDirection& b_to_a, const std::string& stats_path, double max_s,
                      const std::string& params_path) {
  Side a, b;
  a.ifname = if_a;
  b.ifname = if_b;
  FLOWLAB_TRY(open_side(a));
  FLOWLAB_TRY(open_side(b));
  std::fprintf(stderr, "delay line ready: %s <-> %s\n", if_a.c_str(), if_b.c_str());
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  std::signal(SIGUSR1, on_reload);
  prctl(PR_SET_TIMERSLACK, 1000UL);
  // A wire runs on time even on a loaded machine (netem would run in softirq):
  // the lowest real-time priority, if we may; otherwise we stay as we are.
  sched_param sp{};
  sp.sched_priority = 1;
  bool rt = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
  std::fprintf(stderr, "delay line: %s scheduling\n", rt ? "SCHED_FIFO 1" : "normal");
  std::random_device rd;
  Direction ab(a_to_b, rd()), ba(b_to_a, rd());
  uint64_t end = max_s > 0 ? monotonic_ns() + uint64_t(max_s * 1e9) : 0;
  bool ab_blocked = false, ba_blocked = false;
  while (!g_stop) {
    if (g_reload.exchange(false) && !params_path.empty()) {
      auto p = read_delay_line_params(params_path);
      if (p.ok()) {
        ab.set(p->first);
        ba.set(p->second);
        std::fprintf(stderr, "delay line: new parameters %s %s\n", to_arg(p->first).c_str(),
                     to_arg(p->second).c_str());
      } else {
        std::fprintf(stderr, "delay line: %s\n", p.error().message.c_str());
      }
    }
    uint64_t now = monotonic_ns();
    if (end && now > end) break;
    ab_blocked = !ab.send_due(b.fd, now);
    ba_blocked = !ba.send_due(a.fd, now);
    int64_t w = 100'000'000;  // wake at least every 100 ms to see the stop flag
    for (int64_t x : {ab_blocked ? -1 : ab.wait_ns(now), ba_blocked ? -1 : ba.wait_ns(now)})
      if (x >= 0) w = std::min(w, x);
    pollfd fds[2] = {{a.fd, short(POLLIN | (ba_blocked ? POLLOUT : 0)), 0},
                     {b.fd, short(POLLIN | (ab_blocked ? POLLOUT : 0)), 0}};
    timespec ts{time_t(w / 1'000'000'000), long(w % 1'000'000'000)};
    int r = ppoll(fds, 2, &ts, nullptr);
    if (r < 0 && errno != EINTR) return fail("ppoll: {}", std::strerror(errno));
    if (fds[0].revents & POLLIN) ab.receive(a.fd);
    if (fds[1].revents & POLLIN) ba.receive(b.fd);
  }
  nlohmann::json j = {{"a", if_a}, {"b", if_b}, {"a_to_b", ab.stats()}, {"b_to_a", ba.stats()}};
  if (!stats_path.empty()) {
    std::ofstream f(stats_path);
    f << j.dump(2) << "\n";
  }
  return ok_status();
}

}  // namespace flowlab::lab

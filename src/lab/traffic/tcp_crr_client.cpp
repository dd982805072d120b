// tcp-crr client (see tcp_crr.h): one thread around epoll with non-blocking sockets,
// so one process keeps thousands of connections in flight and pacing, not a thread
// per connection, is what a run costs.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "lab/traffic/tcp_crr.h"
#include "lab/traffic/tcp_crr_socket.h"

namespace flowlab::lab {

namespace {

using crr::abort_close;
using crr::Fd;
using crr::kMaxSize;
using crr::raise_fd_limit;
using crr::set_nodelay;

constexpr uint64_t kScanNs = 10'000'000;  // timeouts are checked every 10 ms

enum class Failure { kRefused, kReset, kTimeout, kNoPort, kClosedEarly, kOther, kCount };
constexpr const char* kFailureNames[] = {"refused", "reset", "timeout", "no_port", "closed_early", "other"};

Failure classify(int err) {
  switch (err) {
    case ECONNREFUSED:
      return Failure::kRefused;
    case ECONNRESET:
    case EPIPE:
      return Failure::kReset;
    case ETIMEDOUT:
      return Failure::kTimeout;
    case EADDRNOTAVAIL:
      return Failure::kNoPort;
    default:
      return Failure::kOther;
  }
}

struct Conn {
  uint64_t due_ns = 0;  // latency runs from here
  size_t sent = 0;      // request bytes sent (header included)
  size_t got = 0;       // response bytes read
  bool connected = false;
};

class CrrClient {
 public:
  CrrClient(const CrrClientOptions& o, const sockaddr_in& addr) : o_(o), addr_(addr) {
    request_.resize(4 + size_t(o.size), 'x');
    uint32_t be = htonl(uint32_t(o.size));
    std::memcpy(request_.data(), &be, 4);
    scratch_.resize(size_t(o.size) + 1);
    window_ = o.parallel > 0 ? size_t(o.parallel) : o.rate > 0 ? 4096 : 1;
    conn_timeout_ns_ = uint64_t(o.conn_timeout_s * 1e9);
  }
  ~CrrClient() {
    for (auto& [fd, c] : conns_) abort_close(fd);
  }
  CrrClient(const CrrClient&) = delete;
  CrrClient& operator=(const CrrClient&) = delete;

  Result<nlohmann::json> run();

 private:
  void open_one(uint64_t due);
  void on_event(int fd, uint32_t events);
  void on_writable(int fd, Conn& c);
  void on_readable(int fd, Conn& c);
  void finish(int fd, const Conn& c, bool ok, Failure f = Failure::kOther, const std::string& what = {});
  void expire(uint64_t now);
  nlohmann::json report(uint64_t start, uint64_t end_offer) const;

  const CrrClientOptions& o_;
  sockaddr_in addr_;
  Fd ep_;
  std::string request_, scratch_;
  size_t window_ = 1;
  uint64_t conn_timeout_ns_ = 0;
  std::unordered_map<int, Conn> conns_;
  int64_t attempted_ = 0, completed_ = 0, failed_ = 0, not_started_ = 0;
  uint64_t failures_[size_t(Failure::kCount)] = {};
  std::string first_error_;
  std::vector<double> latency_us_;
  std::vector<uint64_t> done_ns_;
  size_t max_in_flight_ = 0;
};

void CrrClient::open_one(uint64_t due) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  Conn c;
  c.due_ns = due;
  if (fd < 0) {
    ++failed_;
    ++failures_[size_t(Failure::kOther)];
    if (first_error_.empty()) first_error_ = fmt::format("socket: {}", std::strerror(errno));
    return;
  }
  set_nodelay(fd);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&addr_), sizeof addr_) != 0 && errno != EINPROGRESS) {
    int err = errno;
    finish(fd, c, false, classify(err), std::strerror(err));
    return;
  }
  epoll_event ev{};
  ev.events = EPOLLOUT;
  ev.data.fd = fd;
  epoll_ctl(ep_.get(), EPOLL_CTL_ADD, fd, &ev);
  conns_.emplace(fd, c);
  max_in_flight_ = std::max(max_in_flight_, conns_.size());
}

void CrrClient::finish(int fd, const Conn& c, bool ok, Failure f, const std::string& what) {
  if (ok) {
    uint64_t now = monotonic_ns();
    ++completed_;
    latency_us_.push_back(double(now - c.due_ns) / 1e3);
    done_ns_.push_back(now);
    ::close(fd);  // the server closed first: this FIN ends it, no TIME_WAIT here
  } else {
    ++failed_;
    ++failures_[size_t(f)];
    if (first_error_.empty())
      first_error_ =
          fmt::format("connect {}:{}: {}", o_.host, o_.port, what.empty() ? kFailureNames[size_t(f)] : what);
    abort_close(fd);
  }
  conns_.erase(fd);
}

void CrrClient::on_writable(int fd, Conn& c) {
  if (!c.connected) {
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return finish(fd, c, false, classify(err), std::strerror(err));
    c.connected = true;
  }
  while (c.sent < request_.size()) {
    ssize_t w = ::send(fd, request_.data() + c.sent, request_.size() - c.sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) return;  // EPOLLOUT again when there is room
    if (w < 0) return finish(fd, c, false, classify(errno), std::strerror(errno));
    c.sent += size_t(w);
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = fd;
  epoll_ctl(ep_.get(), EPOLL_CTL_MOD, fd, &ev);
}

void CrrClient::on_readable(int fd, Conn& c) {
  for (;;) {
    ssize_t r = ::read(fd, scratch_.data(), scratch_.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return;
    if (r < 0) return finish(fd, c, false, classify(errno), std::strerror(errno));
    if (r == 0) {
      if (c.got == size_t(o_.size)) return finish(fd, c, true);
      return finish(fd, c, false, Failure::kClosedEarly,
                    fmt::format("closed after {} of {} response bytes", c.got, o_.size));
    }
    c.got += size_t(r);
    if (c.got > size_t(o_.size))
      return finish(fd, c, false, Failure::kOther, fmt::format("more than {} response bytes", o_.size));
  }
}

void CrrClient::on_event(int fd, uint32_t events) {
  auto it = conns_.find(fd);
  if (it == conns_.end()) return;
  Conn& c = it->second;
  if (!c.connected || c.sent < request_.size()) {
    if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) on_writable(fd, c);
    return;
  }
  if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) on_readable(fd, c);
}

void CrrClient::expire(uint64_t now) {
  std::vector<int> late;
  for (const auto& [fd, c] : conns_)
    if (now - std::min(now, c.due_ns) > conn_timeout_ns_) late.push_back(fd);
  for (int fd : late)
    finish(fd, conns_.at(fd), false, Failure::kTimeout,
           fmt::format("no answer within {:g} s", o_.conn_timeout_s));
}

Result<nlohmann::json> CrrClient::run() {
  raise_fd_limit();
  ep_ = Fd(epoll_create1(EPOLL_CLOEXEC));
  if (ep_.get() < 0) return fail("epoll: {}", std::strerror(errno));
  const bool rate_mode = o_.rate > 0;
  const uint64_t start = monotonic_ns();
  const uint64_t end_offer = o_.duration_s > 0 ? start + uint64_t(o_.duration_s * 1e9) : UINT64_MAX;
  const double interval_ns = rate_mode ? 1e9 / o_.rate : 0;
  uint64_t next_due = start, next_scan = start + kScanNs;
  std::vector<epoll_event> events(256);
  // Rate mode offers every connection due before the window ends; max mode opens
  // connections until then.
  auto more = [&] { return o_.count == 0 || attempted_ < o_.count; };
  for (;;) {
    // Nothing listens: no use offering more.
    if (completed_ == 0 && failures_[size_t(Failure::kRefused)] > 0) break;
    uint64_t now = monotonic_ns();
    auto offering = [&] { return more() && (rate_mode ? next_due < end_offer : now < end_offer); };
    if (rate_mode) {
      while (offering() && next_due <= now) {
        if (conns_.size() < window_)
          open_one(next_due);
        else
          ++not_started_;
        ++attempted_;
        next_due = start + uint64_t(double(attempted_) * interval_ns);
      }
    } else {
      while (offering() && conns_.size() < window_) {
        open_one(now);
        ++attempted_;
        if (completed_ == 0 && failures_[size_t(Failure::kRefused)] > 0) break;
      }
    }
    if (!offering() && conns_.empty()) break;
    uint64_t wake = next_scan;
    if (rate_mode && offering()) wake = std::min(wake, next_due);
    int timeout_ms = wake > now ? int((wake - now + 999'999) / 1'000'000) : 0;
    int n = epoll_wait(ep_.get(), events.data(), int(events.size()), timeout_ms);
    if (n < 0 && errno != EINTR) return fail("epoll_wait: {}", std::strerror(errno));
    for (int i = 0; i < n; ++i) on_event(events[size_t(i)].data.fd, events[size_t(i)].events);
    now = monotonic_ns();
    if (now >= next_scan) {
      expire(now);
      next_scan = now + kScanNs;
    }
  }
  if (completed_ == 0) {
    if (attempted_ == 0) return fail("no connection attempted");
    return fail("{} ({} of {} connections failed)", first_error_, failed_, attempted_);
  }
  return report(start, end_offer);
}

nlohmann::json CrrClient::report(uint64_t start, uint64_t end_offer) const {
  // Completed within the offered window per second of it; a count run's window ends
  // with its last connection.
  uint64_t last = *std::max_element(done_ns_.begin(), done_ns_.end());
  uint64_t window_end = end_offer == UINT64_MAX ? last : end_offer;
  auto in_window =
      std::count_if(done_ns_.begin(), done_ns_.end(), [&](uint64_t t) { return t <= window_end; });
  double window_s = std::max(1e-9, double(window_end - start) / 1e9);
  std::vector<double> sorted = latency_us_;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double l : sorted) sum += l;
  auto pct = [&](double p) { return sorted[std::min(sorted.size() - 1, size_t(p * double(sorted.size())))]; };
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);  // the generator's own cost, to tell it from the path's
  double cpu_s = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  nlohmann::json failures;
  for (size_t i = 0; i < size_t(Failure::kCount); ++i) failures[kFailureNames[i]] = failures_[i];
  return nlohmann::json{{"mode", o_.rate > 0 ? "rate" : "max"},
                        {"offered_per_s", o_.rate > 0 ? nlohmann::json(o_.rate) : nlohmann::json()},
                        {"parallel", window_},
                        {"size", o_.size},
                        {"duration_s", window_s},
                        {"attempted", attempted_},
                        {"completed", completed_},
                        {"failed", failed_},
                        {"failures", failures},
                        {"not_started", not_started_},
                        {"connections_per_s", double(in_window) / window_s},
                        {"latency_min_us", sorted.front()},
                        {"latency_avg_us", sum / double(sorted.size())},
                        {"latency_p50_us", pct(0.50)},
                        {"latency_p90_us", pct(0.90)},
                        {"latency_p99_us", pct(0.99)},
                        {"latency_max_us", sorted.back()},
                        {"max_in_flight", max_in_flight_},
                        {"cpu_s", cpu_s},
                        {"first_error", first_error_}};
}

}  // namespace

Status check_crr_client_options(const CrrClientOptions& o) {
  in_addr a{};
  if (inet_pton(AF_INET, o.host.c_str(), &a) != 1) return fail("--host '{}' is not an IPv4 address", o.host);
  if (o.port < 1 || o.port > 65535) return fail("--port {}: give 1..65535", o.port);
  if (!(o.rate >= 0) || !std::isfinite(o.rate))
    return fail("--rate must be a positive number of connections/s");
  if (o.duration_s < 0 || !std::isfinite(o.duration_s)) return fail("--duration must be > 0 seconds");
  if (o.count < 0) return fail("--count must be > 0");
  if (o.duration_s == 0 && o.count == 0) return fail("give --duration S or --count N");
  if (o.size < 1 || o.size > kMaxSize) return fail("--size {}: give 1..{} bytes", o.size, kMaxSize);
  if (o.parallel < 0 || o.parallel > 100000) return fail("--parallel {}: give 1..100000", o.parallel);
  if (!(o.conn_timeout_s > 0)) return fail("--conn-timeout must be > 0 seconds");
  return ok_status();
}

Result<nlohmann::json> tcp_crr_client(const CrrClientOptions& o) {
  FLOWLAB_TRY(check_crr_client_options(o));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(o.port));
  inet_pton(AF_INET, o.host.c_str(), &a.sin_addr);
  CrrClient client(o, a);
  return client.run();
}

}  // namespace flowlab::lab

// tcp-crr server (see tcp_crr.h): one thread around epoll; answers each request and
// closes first; SIGINT/SIGTERM arrive through a signalfd so the summary is printed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

struct ServerConn {
  std::string in;   // header and request bytes so far
  size_t size = 0;  // request size once the header is in
  size_t sent = 0;  // response bytes sent
  bool answering = false;
};

class CrrServer {
 public:
  explicit CrrServer(const CrrServerOptions& o) : o_(o) {}
  ~CrrServer() {
    for (auto& [fd, c] : conns_) abort_close(fd);
    if (signals_blocked_) sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  CrrServer(const CrrServer&) = delete;
  CrrServer& operator=(const CrrServer&) = delete;

  Result<nlohmann::json> run();

 private:
  Status open();
  void accept_all();
  void on_readable(int fd, ServerConn& c);
  void answer(int fd, ServerConn& c);
  void drop(int fd, bool orderly);

  const CrrServerOptions& o_;
  Fd listen_, ep_, sig_;
  sigset_t old_mask_{};
  bool signals_blocked_ = false;
  std::unordered_map<int, ServerConn> conns_;
  std::string response_, scratch_ = std::string(kMaxSize + 4, '\0');
  int64_t served_ = 0, incomplete_ = 0, bad_ = 0;
  uint64_t last_accept_ = 0;
};

Status CrrServer::open() {
  raise_fd_limit();
  listen_ = Fd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (listen_.get() < 0) return fail("socket: {}", std::strerror(errno));
  int one = 1;
  setsockopt(listen_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(o_.port));
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  if (bind(listen_.get(), reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
    return fail("bind :{}: {}", o_.port, std::strerror(errno));
  if (listen(listen_.get(), SOMAXCONN) != 0) return fail("listen: {}", std::strerror(errno));
  // SIGINT/SIGTERM end the run through the loop, so the summary is still printed.
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGINT);
  sigaddset(&mask, SIGTERM);
  if (sigprocmask(SIG_BLOCK, &mask, &old_mask_) != 0) return fail("sigprocmask: {}", std::strerror(errno));
  signals_blocked_ = true;
  sig_ = Fd(signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK));
  ep_ = Fd(epoll_create1(EPOLL_CLOEXEC));
  if (sig_.get() < 0 || ep_.get() < 0) return fail("signalfd/epoll: {}", std::strerror(errno));
  for (int fd : {listen_.get(), sig_.get()}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_.get(), EPOLL_CTL_ADD, fd, &ev);
  }
  return ok_status();
}

void CrrServer::drop(int fd, bool orderly) {
  if (orderly)
    ::close(fd);  // FIN after the response: TIME_WAIT stays on this side
  else
    abort_close(fd);
  conns_.erase(fd);
}

void CrrServer::accept_all() {
  for (;;) {
    int fd = accept4(listen_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or EMFILE and the like: the client times out
    set_nodelay(fd);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = fd;
    epoll_ctl(ep_.get(), EPOLL_CTL_ADD, fd, &ev);
    conns_.emplace(fd, ServerConn{});
    last_accept_ = monotonic_ns();
  }
}

void CrrServer::answer(int fd, ServerConn& c) {
  c.answering = true;
  if (response_.size() < c.size) response_.resize(c.size, 'y');
  while (c.sent < c.size) {
    ssize_t w = ::send(fd, response_.data(), c.size - c.sent, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && errno == EAGAIN) {
      epoll_event ev{};
      ev.events = EPOLLOUT;
      ev.data.fd = fd;
      epoll_ctl(ep_.get(), EPOLL_CTL_MOD, fd, &ev);
      return;
    }
    if (w < 0) {
      ++incomplete_;
      return drop(fd, false);
    }
    c.sent += size_t(w);
  }
  ++served_;
  drop(fd, true);
}

void CrrServer::on_readable(int fd, ServerConn& c) {
  for (;;) {
    ssize_t r = ::read(fd, scratch_.data(), scratch_.size());
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == EAGAIN) return;
    if (r <= 0) {
      ++incomplete_;
      return drop(fd, false);
    }
    c.in.append(scratch_.data(), size_t(r));
    if (c.size == 0 && c.in.size() >= 4) {
      uint32_t be = 0;
      std::memcpy(&be, c.in.data(), 4);
      c.size = ntohl(be);
      if (c.size == 0 || c.size > size_t(kMaxSize)) {
        ++bad_;
        return drop(fd, false);
      }
    }
    if (c.size > 0 && c.in.size() > 4 + c.size) {
      ++bad_;
      return drop(fd, false);
    }
    if (c.size > 0 && c.in.size() == 4 + c.size) return answer(fd, c);
  }
}

Result<nlohmann::json> CrrServer::run() {
  FLOWLAB_TRY(open());
  last_accept_ = monotonic_ns();
  const uint64_t idle_ns = uint64_t(o_.timeout_s * 1e9);
  std::vector<epoll_event> events(256);
  bool stop = false;
  while (!stop && (o_.count == 0 || served_ < o_.count)) {
    uint64_t now = monotonic_ns();
    if (conns_.empty() && now - last_accept_ >= idle_ns) {
      if (served_ + incomplete_ + bad_ == 0) return fail("no client within {:g} s", o_.timeout_s);
      break;
    }
    int timeout_ms =
        int(std::min<uint64_t>(1000, (idle_ns - std::min(idle_ns, now - last_accept_)) / 1'000'000 + 1));
    int n = epoll_wait(ep_.get(), events.data(), int(events.size()), timeout_ms);
    if (n < 0 && errno != EINTR) return fail("epoll_wait: {}", std::strerror(errno));
    for (int i = 0; i < n && !stop; ++i) {
      int fd = events[size_t(i)].data.fd;
      if (fd == sig_.get())
        stop = true;
      else if (fd == listen_.get())
        accept_all();
      else if (auto it = conns_.find(fd); it != conns_.end()) {
        if (it->second.answering)
          answer(fd, it->second);
        else
          on_readable(fd, it->second);
      }
    }
  }
  return nlohmann::json{{"served", served_}, {"incomplete", incomplete_}, {"bad_requests", bad_}};
}

}  // namespace

Result<nlohmann::json> tcp_crr_server(const CrrServerOptions& o) {
  if (o.port < 1 || o.port > 65535) return fail("--port {}: give 1..65535", o.port);
  if (o.count < 0) return fail("--count must be >= 0");
  if (!(o.timeout_s > 0)) return fail("--timeout must be > 0 seconds");
  CrrServer server(o);
  return server.run();
}

}  // namespace flowlab::lab

// The relay to a remote controller (see controller_relay.h): one poll loop over the
// listening socket and every pair of connections; each direction keeps what the
// other end could not take yet and stops reading until it is written.
#include "lab/backend/controller_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <list>
#include <string>
#include <vector>

#include "lab/host/netns_visit.h"
#include "lab/host/process.h"
#include "switch/unique_fd.h"

namespace flowlab::lab {

using sw::UniqueFd;

namespace {

Result<sockaddr_in> ipv4(const std::string& host, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1) return fail("'{}' is not an IPv4 address", host);
  if (port < 1 || port > 65535) return fail("port {} is not 1..65535", port);
  return a;
}

// A non-blocking connect waited for up to `timeout_s`; the socket stays non-blocking.
Result<UniqueFd> connect_to(const std::string& host, int port, double timeout_s) {
  FLOWLAB_ASSIGN_OR_RETURN(auto a, ipv4(host, port));
  UniqueFd fd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return fail("socket: {}", std::strerror(errno));
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 && errno != EINPROGRESS)
    return fail("{}:{}: {}", host, port, std::strerror(errno));
  pollfd p{fd.get(), POLLOUT, 0};
  int n = poll(&p, 1, int(timeout_s * 1000));
  if (n == 0) return fail("{}:{}: no answer within {:.0f} s", host, port, timeout_s);
  int err = 0;
  socklen_t len = sizeof err;
  if (n < 0 || getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
  if (err) return fail("{}:{}: {}", host, port, std::strerror(err));
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

// host:port listening inside namespace `ns` (entered for the socket() call only:
// a socket stays in the namespace it was made in).
Result<UniqueFd> listen_in(const std::string& ns, const std::string& host, int port) {
  UniqueFd fd;
  int saved = 0;
  FLOWLAB_TRY(visit_netns("/run/netns/" + ns, [&] {
    fd = UniqueFd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    saved = errno;
  }));
  if (!fd.valid()) return fail("socket in {}: {}", ns, std::strerror(saved));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  FLOWLAB_ASSIGN_OR_RETURN(auto a, ipv4(host, port));
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || listen(fd.get(), 64) != 0)
    return fail("listening on {}:{} in {}: {}", host, port, ns, std::strerror(errno));
  return fd;
}

// One switch connection and its controller connection.
struct Pair {
  UniqueFd sw, ctl;
  std::string to_ctl, to_sw;  // read from one end, not yet written to the other
  bool closed = false;
  int id = 0;
};

// Reads what `from` has (signalled by `events`) into `buf`, then writes `buf` to `to`
// as far as it takes; false when `from` closed or either end failed.
bool pump(int from, short events, std::string& buf, int to) {
  if (events & (POLLIN | POLLHUP | POLLERR)) {
    char chunk[16384];
    ssize_t n = read(from, chunk, sizeof chunk);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) return false;
    if (n > 0) buf.append(chunk, size_t(n));
  }
  if (!buf.empty()) {
    ssize_t n = send(to, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (n < 0 && errno != EAGAIN && errno != EINTR) return false;
    if (n > 0) buf.erase(0, size_t(n));
  }
  return true;
}

}  // namespace

Status probe_tcp(const std::string& host, int port, double timeout_s) {
  FLOWLAB_ASSIGN_OR_RETURN(auto fd, connect_to(host, port, timeout_s));
  return ok_status();
}

Status run_controller_relay(const ControllerRelayOptions& o) {
  install_signal_handlers();
  FLOWLAB_ASSIGN_OR_RETURN(auto listener, listen_in(o.listen_ns, o.listen_host, o.listen_port));
  std::fprintf(stderr, "relay: %s:%d in %s -> %s:%d\n", o.listen_host.c_str(), o.listen_port,
               o.listen_ns.c_str(), o.to_host.c_str(), o.to_port);
  std::list<Pair> pairs;
  int next_id = 1;
  while (!interrupted()) {
    std::vector<pollfd> fds = {{listener.get(), POLLIN, 0}};
    for (const auto& p : pairs) {
      // Read an end only while nothing of it waits to go out the other way.
      auto events = [](const std::string& from_here, const std::string& to_here) {
        return short((from_here.empty() ? POLLIN : 0) | (to_here.empty() ? 0 : POLLOUT));
      };
      fds.push_back({p.sw.get(), events(p.to_ctl, p.to_sw), 0});
      fds.push_back({p.ctl.get(), events(p.to_sw, p.to_ctl), 0});
    }
    int n = poll(fds.data(), fds.size(), 200);
    if (n < 0 && errno != EINTR) return fail("poll: {}", std::strerror(errno));
    if (n <= 0) continue;
    size_t i = 1;
    for (auto& p : pairs) {
      short sw_ev = fds[i].revents, ctl_ev = fds[i + 1].revents;
      i += 2;
      if (!pump(p.sw.get(), sw_ev, p.to_ctl, p.ctl.get()) ||
          !pump(p.ctl.get(), ctl_ev, p.to_sw, p.sw.get())) {
        std::fprintf(stderr, "relay: connection %d closed\n", p.id);
        p.closed = true;
      }
    }
    pairs.remove_if([](const Pair& p) { return p.closed; });
    if (!(fds[0].revents & POLLIN)) continue;
    for (;;) {
      UniqueFd sw(accept4(listener.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
      if (!sw.valid()) break;
      auto ctl = connect_to(o.to_host, o.to_port, o.connect_timeout_s);
      if (!ctl.ok()) {  // the switch sees its connection closed and retries with backoff
        std::fprintf(stderr, "relay: controller unreachable: %s\n", ctl.error().message.c_str());
        continue;
      }
      int one = 1;
      setsockopt(sw.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::fprintf(stderr, "relay: connection %d: switch -> %s:%d\n", next_id, o.to_host.c_str(), o.to_port);
      pairs.push_back(Pair{std::move(sw), std::move(*ctl), {}, {}, false, next_id++});
    }
  }
  return ok_status();
}

}  // namespace flowlab::lab

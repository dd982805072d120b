// SyncClient: blocking OpenFlow request/reply over TCP with poll()-bounded waits.
#include "channel/sync_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <unordered_map>
#include <utility>

#include "channel/endpoint.h"
#include "openflow/codec.h"
#include "openflow/errors.h"
#include "openflow/of13/bundle.h"

namespace flowlab::channel {
namespace {

using Clock = std::chrono::steady_clock;

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left < 0 ? 0 : int(std::min<long long>(left, 1 << 30));
}

// Owns an fd until released.
struct FdGuard {
  int fd;
  ~FdGuard() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

Result<int> tcp_connect(const std::string& host, uint16_t port, Clock::time_point deadline,
                        const std::string& what) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string port_s = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), port_s.c_str(), &hints, &res);
  if (rc != 0) return fail("{}: cannot resolve '{}': {}", what, host, gai_strerror(rc));
  std::string last = "no address";
  for (addrinfo* ai = res; ai; ai = ai->ai_next) {
    FdGuard g{::socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol)};
    if (g.fd < 0) {
      last = std::strerror(errno);
      continue;
    }
    if (::connect(g.fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      if (errno != EINPROGRESS) {
        last = std::strerror(errno);
        continue;
      }
      pollfd p{g.fd, POLLOUT, 0};
      int n = ::poll(&p, 1, ms_until(deadline));
      if (n == 0) {
        last = "connection timed out";
        continue;
      }
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(g.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (n < 0 || err != 0) {
        last = std::strerror(n < 0 ? errno : err);
        continue;
      }
    }
    int one = 1;
    ::setsockopt(g.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ::freeaddrinfo(res);
    return g.release();
  }
  ::freeaddrinfo(res);
  return fail("{}: cannot connect: {}", what, last);
}

}  // namespace

SyncClient::SyncClient(SyncClient&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      timeout_(o.timeout_),
      framer_(std::move(o.framer_)),
      version_(o.version_),
      xid_(o.xid_),
      peer_(std::move(o.peer_)) {}

SyncClient& SyncClient::operator=(SyncClient&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    timeout_ = o.timeout_;
    framer_ = std::move(o.framer_);
    version_ = o.version_;
    xid_ = o.xid_;
    peer_ = std::move(o.peer_);
  }
  return *this;
}

SyncClient::~SyncClient() {
  if (fd_ >= 0) ::close(fd_);
}

Result<SyncClient> SyncClient::connect(std::string_view target, std::vector<uint8_t> versions,
                                       Duration timeout) {
  FLOWLAB_ASSIGN_OR_RETURN(Endpoint ep, parse_endpoint(target));
  if (ep.passive) return fail("{}: ofctl needs an active connection string (tcp:HOST:PORT)", target);
  if (ep.tls) return fail("{}: ssl: connections are not supported by ofctl yet; use tcp:", target);
  if (versions.empty()) return fail("no OpenFlow version to offer");
  auto deadline = Clock::now() + timeout;
  std::string what(target);
  FLOWLAB_ASSIGN_OR_RETURN(int fd, tcp_connect(ep.host, ep.port, deadline, what));
  SyncClient c(fd, timeout);
  c.peer_ = what;
  uint8_t highest = *std::max_element(versions.begin(), versions.end());
  uint32_t bitmap = 0;
  for (uint8_t v : versions) bitmap |= 1u << v;
  c.version_ = highest;
  auto hello = of::make_hello(highest, bitmap, c.next_xid());
  auto wire = of::encode_message(hello);
  if (!wire.ok()) return fail("{}: cannot encode hello: {}", what, wire.error().to_string());
  FLOWLAB_TRY(c.write_all(*wire));
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(of::Message m, c.read_message(deadline));
    if (!m.is<of::Hello>()) {
      if (m.is<of::ErrorMsg>()) return unexpected(c.error_reply(m));
      return fail("{}: expected OFPT_HELLO from the switch, got {}", what, of::to_string(m.type()));
    }
    uint8_t v = of::negotiate_version(bitmap, m);
    if (v == 0)
      return fail(
          "{}: version negotiation failed: the switch speaks OpenFlow wire version 0x{:02x}, we offered {}",
          what, m.version, versions.size() == 1 ? fmt::format("only 0x{:02x}", versions[0]) : "others");
    c.version_ = v;
    return c;
  }
}

Status SyncClient::write_all(const Bytes& b) {
  size_t off = 0;
  auto deadline = Clock::now() + timeout_;
  while (off < b.size()) {
    ssize_t n = ::send(fd_, b.data() + off, b.size() - off, MSG_NOSIGNAL);
    if (n > 0) {
      off += size_t(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, ms_until(deadline)) == 0) return fail("{}: timed out sending to the switch", peer_);
      continue;
    }
    return fail("{}: send failed: {}", peer_, std::strerror(errno));
  }
  return ok_status();
}

Result<of::Message> SyncClient::read_message(Clock::time_point deadline, bool* timed_out) {
  for (;;) {
    ByteSpan msg;
    switch (framer_.next(msg)) {
      case of::StreamFramer::State::kMessage: {
        auto m = of::decode_message(msg);
        if (!m.ok()) {
          std::string type = msg.size() >= 2 ? fmt::format("type {}", msg[1]) : "message";
          return fail("{}: cannot decode {} from the switch: {}", peer_, type, m.error().to_string());
        }
        return std::move(*m);
      }
      case of::StreamFramer::State::kError:
        return fail("{}: broken OpenFlow stream: {}", peer_, framer_.error().to_string());
      case of::StreamFramer::State::kNeedMore:
        break;
    }
    int wait = ms_until(deadline);
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, wait);
    if (n == 0) {
      if (timed_out) *timed_out = true;
      return fail("{}: timed out waiting for the switch ({} ms)", peer_, timeout_.count());
    }
    if (n < 0 && errno != EINTR) return fail("{}: poll failed: {}", peer_, std::strerror(errno));
    uint8_t buf[16384];
    ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r == 0) return fail("{}: connection closed by the switch", peer_);
    if (r < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
      return fail("{}: receive failed: {}", peer_, std::strerror(errno));
    }
    framer_.append(ByteSpan(buf, size_t(r)));
  }
}

Error SyncClient::error_reply(const of::Message& m) const {
  const auto& e = m.as<of::ErrorMsg>();
  if (of::BundleFailedCode bc{}; of::bundle_error_code(e, bc))
    return Error::format("{}: switch replied {} (bundle failed)", peer_, of::to_string(bc));
  if (e.type == 0xffff)
    return Error::format("{}: switch replied with an experimenter error (experimenter {:#x}, type {})", peer_,
                         e.experimenter, e.code);
  of::ErrorType t = static_cast<of::ErrorType>(e.type);
  uint16_t code = e.code;
  if (m.version == of::kOf10) of::error_from_of10(e.type, e.code, t, code);
  return Error::format("{}: switch replied OFPT_ERROR {} ({})", peer_, of::error_code_name(t, code),
                       of::to_string(t));
}

Result<uint32_t> SyncClient::send(of::Message msg) {
  msg.version = version_;
  if (msg.xid == 0) msg.xid = next_xid();
  auto wire = of::encode_message(msg);
  if (!wire.ok())
    return fail("cannot encode {} for OpenFlow wire version 0x{:02x}: {}", of::to_string(msg.type()),
                version_, wire.error().to_string());
  FLOWLAB_TRY(write_all(*wire));
  return msg.xid;
}

Result<of::Message> SyncClient::receive() {
  auto deadline = Clock::now() + timeout_;
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(of::Message m, read_message(deadline));
    if (m.is<of::EchoRequest>()) {
      of::Message reply = of::make_message(version_, m.xid, of::EchoReply{m.as<of::EchoRequest>().data});
      FLOWLAB_TRY(send(std::move(reply)));
      continue;
    }
    return m;
  }
}

Result<std::optional<of::Message>> SyncClient::receive_within(Duration wait) {
  const auto deadline = Clock::now() + wait;
  for (;;) {
    bool timed_out = false;
    auto m = read_message(deadline, &timed_out);
    if (!m.ok()) {
      if (timed_out) return std::optional<of::Message>{};
      return unexpected(std::move(m.error()));
    }
    if (m->is<of::EchoRequest>()) {
      FLOWLAB_TRY(send(of::make_message(version_, m->xid, of::EchoReply{m->as<of::EchoRequest>().data})));
      continue;
    }
    return std::optional<of::Message>(std::move(*m));
  }
}

Result<std::vector<of::Message>> SyncClient::transact(of::Message request) {
  FLOWLAB_ASSIGN_OR_RETURN(uint32_t xid, send(std::move(request)));
  std::vector<of::Message> replies;
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(of::Message m, receive());
    if (m.xid != xid) continue;  // asynchronous or stale message
    if (m.is<of::ErrorMsg>()) return unexpected(error_reply(m));
    bool more = m.is<of::MultipartReply>() && (m.as<of::MultipartReply>().flags & of::kMultipartMore);
    replies.push_back(std::move(m));
    if (!more) return replies;
  }
}

Status SyncClient::send_with_barrier(std::vector<of::Message> msgs) {
  std::vector<uint32_t> xids;
  for (auto& m : msgs) {
    FLOWLAB_ASSIGN_OR_RETURN(uint32_t x, send(std::move(m)));
    xids.push_back(x);
  }
  FLOWLAB_ASSIGN_OR_RETURN(uint32_t bxid, send(of::make_message(version_, 0, of::BarrierRequest{})));
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(of::Message m, receive());
    if (m.is<of::ErrorMsg>() && std::find(xids.begin(), xids.end(), m.xid) != xids.end()) {
      size_t index = size_t(std::find(xids.begin(), xids.end(), m.xid) - xids.begin());
      Error e = error_reply(m);
      if (xids.size() > 1) e.message += fmt::format(" (for message {} of {})", index + 1, xids.size());
      return unexpected(std::move(e));
    }
    if (m.xid == bxid && (m.is<of::BarrierReply>() || m.is<of::ErrorMsg>())) {
      if (m.is<of::ErrorMsg>()) return unexpected(error_reply(m));
      return ok_status();
    }
  }
}

Status SyncClient::stream_with_barriers(const NextMessage& next, size_t window) {
  return stream_wire_with_barriers(
      [&](Bytes& wire) -> Result<std::optional<uint32_t>> {
        FLOWLAB_ASSIGN_OR_RETURN(std::optional<of::Message> m, next());
        if (!m) return std::optional<uint32_t>();
        m->version = version_;
        if (m->xid == 0) m->xid = next_xid();
        if (auto st = of::encode_message_to(*m, wire); !st.ok())
          return fail("cannot encode {} for OpenFlow wire version 0x{:02x}: {}", of::to_string(m->type()),
                      version_, st.error().to_string());
        return std::optional<uint32_t>(m->xid);
      },
      window);
}

Status SyncClient::stream_wire_with_barriers(const NextWire& next, size_t window) {
  struct Window {
    uint32_t barrier_xid = 0;
    std::unordered_map<uint32_t, size_t> index;  // xid -> 1-based message number
  };
  std::deque<Window> open;
  size_t sent = 0;
  // Reads until the oldest open window's barrier reply; an error for any open message fails.
  auto settle_oldest = [&]() -> Status {
    for (;;) {
      FLOWLAB_ASSIGN_OR_RETURN(of::Message m, receive());
      if (m.is<of::ErrorMsg>()) {
        for (const Window& w : open)
          if (auto it = w.index.find(m.xid); it != w.index.end()) {
            Error e = error_reply(m);
            e.message += fmt::format(" (for message {})", it->second);
            return unexpected(std::move(e));
          }
      }
      if (m.xid == open.front().barrier_xid && (m.is<of::BarrierReply>() || m.is<of::ErrorMsg>())) {
        if (m.is<of::ErrorMsg>()) return unexpected(error_reply(m));
        open.pop_front();
        return ok_status();
      }
    }
  };
  bool done = false;
  Bytes wire;
  while (!done) {
    Window w;
    w.index.reserve(window);
    wire.clear();
    for (size_t i = 0; i < window; ++i) {
      FLOWLAB_ASSIGN_OR_RETURN(std::optional<uint32_t> xid, next(wire));
      if (!xid) {
        done = true;
        break;
      }
      w.index.emplace(*xid, ++sent);
    }
    if (w.index.empty()) break;
    of::Message barrier = of::make_message(version_, next_xid(), of::BarrierRequest{});
    w.barrier_xid = barrier.xid;
    if (auto st = of::encode_message_to(barrier, wire); !st.ok())
      return fail("cannot encode a barrier: {}", st.error().to_string());
    if (open.size() >= 2) FLOWLAB_TRY(settle_oldest());
    FLOWLAB_TRY(write_all(wire));
    open.push_back(std::move(w));
  }
  while (!open.empty()) FLOWLAB_TRY(settle_oldest());
  return ok_status();
}

}  // namespace flowlab::channel

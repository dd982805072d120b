// Link-change notifications from rtnetlink (see link_monitor.h).
#include "switch/link_monitor.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab::sw {

Result<std::unique_ptr<LinkMonitor>> LinkMonitor::open(asio::io_context& io, Watched watched,
                                                       std::function<void()> on_change) {
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
  if (fd < 0) return fail("rtnetlink socket: {}", std::strerror(errno));
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  sa.nl_groups = RTMGRP_LINK;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    int e = errno;
    ::close(fd);
    return fail("rtnetlink bind to RTMGRP_LINK: {}", std::strerror(e));
  }
  return std::unique_ptr<LinkMonitor>(new LinkMonitor(io, fd, std::move(watched), std::move(on_change)));
}

LinkMonitor::LinkMonitor(asio::io_context& io, int fd, Watched watched, std::function<void()> on_change)
    : sd_(io, fd), watched_(std::move(watched)), on_change_(std::move(on_change)) {}

bool LinkMonitor::concerns(const char* data, size_t len, const Watched& watched) {
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= len) {
    nlmsghdr h;
    std::memcpy(&h, data + off, sizeof h);
    if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off) return true;  // cut short: re-read to be sure
    if (h.nlmsg_type == RTM_NEWLINK || h.nlmsg_type == RTM_DELLINK) {
      if (h.nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg))) return true;
      ifinfomsg ifi;
      std::memcpy(&ifi, data + off + NLMSG_HDRLEN, sizeof ifi);
      if (watched(ifi.ifi_index)) return true;
    } else if (h.nlmsg_type == NLMSG_ERROR || h.nlmsg_type == NLMSG_OVERRUN) {
      return true;
    }
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
  return false;
}

LinkMonitor::~LinkMonitor() {
  asio::error_code ec;
  sd_.close(ec);
}

void LinkMonitor::start() { read(); }

void LinkMonitor::close() {
  asio::error_code ec;
  sd_.close(ec);
}

void LinkMonitor::read() {
  sd_.async_read_some(asio::buffer(buf_), [this](const asio::error_code& ec, size_t n) {
    // ENOBUFS (a burst of changes overflowed the socket) still means "something changed".
    if (ec == asio::error::operation_aborted || !sd_.is_open()) return;
    if (ec || concerns(buf_.data(), n, watched_)) on_change_();
    read();
  });
}

}  // namespace flowlab::sw

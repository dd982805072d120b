// Link-change notifications from rtnetlink (see link_monitor.h).
#include "switch/link_monitor.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab::sw {

Result<std::unique_ptr<LinkMonitor>> LinkMonitor::open(asio::io_context& io,
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
  return std::unique_ptr<LinkMonitor>(new LinkMonitor(io, fd, std::move(on_change)));
}

LinkMonitor::LinkMonitor(asio::io_context& io, int fd, std::function<void()> on_change)
    : sd_(io, fd), on_change_(std::move(on_change)) {}

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
  sd_.async_read_some(asio::buffer(buf_), [this](const asio::error_code& ec, size_t) {
    // ENOBUFS (a burst of changes overflowed the socket) still means "something changed".
    if (ec == asio::error::operation_aborted || !sd_.is_open()) return;
    on_change_();
    read();
  });
}

}  // namespace flowlab::sw

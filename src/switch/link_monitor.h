// LinkMonitor: wakes the switch the moment the kernel reports a link change
// (carrier lost or regained, admin up/down), so the port-status to the
// controller leaves within a millisecond instead of at the next poll.
//
// An rtnetlink socket subscribed to RTMGRP_LINK sits on the agent's
// io_context; a read whose RTM_NEWLINK/RTM_DELLINK messages name an interface
// `watched` says is the switch's (or that overflowed: ENOBUFS) calls on_change
// once, and the switch re-reads its ports' state. Other interfaces' changes
// are dropped here: a hundred switches of a lab share one namespace, and each
// re-reading every port for every other switch's link made a lab's start
// quadratic. The periodic poll stays as the fallback (e.g. when netlink is
// unavailable).
#pragma once

#include <array>
#include <asio/io_context.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <functional>
#include <memory>

#include "core/result.h"

namespace flowlab::sw {

class LinkMonitor {
 public:
  using Watched = std::function<bool(int ifindex)>;
  static Result<std::unique_ptr<LinkMonitor>> open(asio::io_context& io, Watched watched,
                                                   std::function<void()> on_change);
  // Whether the messages in `data` (one read of the socket) name an interface
  // `watched` says is ours. Pure; a truncated message counts as ours.
  static bool concerns(const char* data, size_t len, const Watched& watched);
  ~LinkMonitor();
  LinkMonitor(const LinkMonitor&) = delete;
  LinkMonitor& operator=(const LinkMonitor&) = delete;

  void start();
  void close();  // on the io_context's thread

 private:
  LinkMonitor(asio::io_context& io, int fd, Watched watched, std::function<void()> on_change);
  void read();

  asio::posix::stream_descriptor sd_;
  Watched watched_;
  std::function<void()> on_change_;
  std::array<char, 8192> buf_{};
};

}  // namespace flowlab::sw

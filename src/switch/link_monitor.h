// LinkMonitor: wakes the switch the moment the kernel reports a link change
// (carrier lost or regained, admin up/down), so the port-status to the
// controller leaves within a millisecond instead of at the next poll.
//
// An rtnetlink socket subscribed to RTMGRP_LINK sits on the agent's
// io_context; every RTM_NEWLINK/RTM_DELLINK datagram (for any interface: the
// switch re-reads its own ports' state, which is cheap) calls on_change. The
// periodic poll stays as the fallback (e.g. when netlink is unavailable).
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
  static Result<std::unique_ptr<LinkMonitor>> open(asio::io_context& io, std::function<void()> on_change);
  ~LinkMonitor();
  LinkMonitor(const LinkMonitor&) = delete;
  LinkMonitor& operator=(const LinkMonitor&) = delete;

  void start();
  void close();  // on the io_context's thread

 private:
  LinkMonitor(asio::io_context& io, int fd, std::function<void()> on_change);
  void read();

  asio::posix::stream_descriptor sd_;
  std::function<void()> on_change_;
  std::array<char, 8192> buf_{};
};

}  // namespace flowlab::sw

// LinkMonitor: wakes a switch the moment the kernel reports a change of one of
// its links (carrier lost or regained, admin up/down, the device gone), so the
// port-status to the controller leaves within a millisecond instead of at the
// next poll.
//
// One rtnetlink socket subscribed to RTMGRP_LINK and one thread read it for the
// whole process (its network namespace); each switch subscribes with its ports'
// interface indexes and is notified only for those. A switch host runs a lab's
// hundred switches in one namespace: a socket each made the kernel copy every
// link change of the lab's start to every switch, and every switch re-read its
// ports for every other switch's link, which made the start quadratic. The
// switch's periodic poll stays as the fallback (e.g. when netlink is
// unavailable).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/result.h"

namespace flowlab::sw {

class LinkMonitor {
 public:
  // Subscribes; `notify` runs on the monitor's thread, so it must be short
  // (post to the switch's loop). Every subscriber is notified when the socket
  // overflowed (ENOBUFS: changes were lost).
  static Result<std::unique_ptr<LinkMonitor>> open(std::vector<int> ifindexes, std::function<void()> notify);
  ~LinkMonitor();  // unsubscribes: `notify` is not running and never runs again once this returns
  LinkMonitor(const LinkMonitor&) = delete;
  LinkMonitor& operator=(const LinkMonitor&) = delete;

  // The interface indexes that RTM_NEWLINK/RTM_DELLINK messages in `data`
  // (one read of the socket) name; nullopt when every subscriber must look
  // (a truncated message, an error or overrun message). Pure.
  static std::optional<std::vector<int>> changed_links(const char* data, size_t len);

 private:
  struct Hub;
  LinkMonitor(Hub& hub, std::vector<int> ifindexes, std::function<void()> notify);

  Hub& hub_;
  std::vector<int> ifindexes_;  // sorted
  std::function<void()> notify_;
};

}  // namespace flowlab::sw

// Link-change notifications from rtnetlink, one socket for the process (see
// link_monitor.h).
#include "switch/link_monitor.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <thread>

#include "core/log.h"

namespace flowlab::sw {

// The process's socket, its reading thread and the subscribers. Made on the
// first open() and kept until the process exits (its thread blocks in recv).
struct LinkMonitor::Hub {
  int fd = -1;
  std::mutex mu;  // held while notifying, so that unsubscribing waits for a running notify
  std::set<LinkMonitor*> subscribers;

  static Result<Hub*> get() {
    static std::mutex made_mu;
    static Hub* hub = nullptr;
    std::lock_guard lock(made_mu);
    if (hub) return hub;
    int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) return fail("rtnetlink socket: {}", std::strerror(errno));
    // A lab's start is a burst of link changes: room for it (root may force it).
    int bytes = 4 << 20;
    if (::setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof bytes) != 0)
      (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
    sockaddr_nl sa{};
    sa.nl_family = AF_NETLINK;
    sa.nl_groups = RTMGRP_LINK;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
      int e = errno;
      ::close(fd);
      return fail("rtnetlink bind to RTMGRP_LINK: {}", std::strerror(e));
    }
    hub = new Hub;  // never destroyed: its thread runs until the process exits
    hub->fd = fd;
    std::thread([h = hub] { h->run(); }).detach();
    return hub;
  }

  void run() {
    ::pthread_setname_np(::pthread_self(), "flowlab-links");
    std::array<char, 32768> buf;
    for (;;) {
      ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != ENOBUFS) {
        log::warn("switch", "link monitor: rtnetlink recv: {}; link changes are noticed by polling",
                  std::strerror(errno));
        return;
      }
      // ENOBUFS: changes were lost, everyone looks.
      auto changed = n < 0 ? std::nullopt : changed_links(buf.data(), size_t(n));
      if (changed && changed->empty()) continue;
      std::lock_guard lock(mu);
      for (LinkMonitor* s : subscribers) {
        bool hit = !changed || std::any_of(changed->begin(), changed->end(), [s](int i) {
          return std::binary_search(s->ifindexes_.begin(), s->ifindexes_.end(), i);
        });
        if (hit) s->notify_();
      }
    }
  }
};

Result<std::unique_ptr<LinkMonitor>> LinkMonitor::open(std::vector<int> ifindexes,
                                                       std::function<void()> notify) {
  FLOWLAB_ASSIGN_OR_RETURN(Hub * hub, Hub::get());
  std::sort(ifindexes.begin(), ifindexes.end());
  std::unique_ptr<LinkMonitor> m(new LinkMonitor(*hub, std::move(ifindexes), std::move(notify)));
  std::lock_guard lock(hub->mu);
  hub->subscribers.insert(m.get());
  return m;
}

LinkMonitor::LinkMonitor(Hub& hub, std::vector<int> ifindexes, std::function<void()> notify)
    : hub_(hub), ifindexes_(std::move(ifindexes)), notify_(std::move(notify)) {}

LinkMonitor::~LinkMonitor() {
  std::lock_guard lock(hub_.mu);
  hub_.subscribers.erase(this);
}

std::optional<std::vector<int>> LinkMonitor::changed_links(const char* data, size_t len) {
  std::vector<int> out;
  size_t off = 0;
  while (off + sizeof(nlmsghdr) <= len) {
    nlmsghdr h;
    std::memcpy(&h, data + off, sizeof h);
    if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off) return std::nullopt;  // cut short
    if (h.nlmsg_type == RTM_NEWLINK || h.nlmsg_type == RTM_DELLINK) {
      if (h.nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg))) return std::nullopt;
      ifinfomsg ifi;
      std::memcpy(&ifi, data + off + NLMSG_HDRLEN, sizeof ifi);
      out.push_back(ifi.ifi_index);
    } else if (h.nlmsg_type == NLMSG_ERROR || h.nlmsg_type == NLMSG_OVERRUN) {
      return std::nullopt;
    }
    off += NLMSG_ALIGN(h.nlmsg_len);
  }
  return out;
}

}  // namespace flowlab::sw

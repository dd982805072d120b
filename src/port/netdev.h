// Linux network-device helpers for ports: a move-only fd owner, and ioctl/ethtool
// queries by interface name (ifindex, MAC, MTU, link state, speed, offloads),
// plus a netlink link watcher for port-status events. Control path only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "packet/addr.h"

namespace flowlab {

// Owns one file descriptor; closes it on destruction. Move-only.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

namespace netdev {

// Queries below run on `sock` (an AF_INET datagram socket, see control_socket()),
// so they resolve names in the namespace that socket was created in; with the
// default -1 a temporary socket in the calling thread's namespace is used.
Result<UniqueFd> control_socket();

// Checked interface name (non-empty, < IFNAMSIZ, no '/' or spaces).
Status check_name(std::string_view name);
bool exists(std::string_view name, int sock = -1);
Result<int> ifindex(std::string_view name, int sock = -1);  // "interface X does not exist" on ENODEV
Result<std::string> name_of(int ifindex);
Result<MacAddr> mac(std::string_view name, int sock = -1);
Result<uint32_t> mtu(std::string_view name, int sock = -1);
Result<bool> link_up(std::string_view name, int sock = -1);         // administratively up AND carrier
Status set_up(std::string_view name, bool up, int sock = -1);       // ip link set NAME up/down
Result<uint32_t> speed_mbps(std::string_view name, int sock = -1);  // 0 when unknown

// Offload features as ethtool shows them (tx-checksumming, tcp-segmentation-offload, ...).
struct Offloads {
  bool tx_csum = false, rx_csum = false, sg = false, tso = false, gso = false, gro = false;
};
Result<Offloads> offloads(std::string_view name);

}  // namespace netdev

// Link change notifications (RTMGRP_LINK netlink): poll fd(), then drain() for
// the ifindexes whose state changed (added, removed, up/down, carrier).
class LinkWatcher {
 public:
  static Result<LinkWatcher> open();
  int fd() const { return fd_.get(); }
  struct Event {
    int ifindex = 0;
    std::string name;
    bool removed = false;
    bool up = false;  // IFF_UP && IFF_LOWER_UP (carrier)
  };
  // Non-blocking: returns the events waiting (empty if none).
  std::vector<Event> drain();

 private:
  explicit LinkWatcher(UniqueFd fd) : fd_(std::move(fd)) {}
  UniqueFd fd_;
};

}  // namespace flowlab

// Linux network-device helpers: SIOCGIF* / ethtool ioctls and an RTMGRP_LINK watcher.
#include "port/netdev.h"

#include <linux/ethtool.h>
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace flowlab {

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

namespace netdev {
namespace {

// The caller's socket, or a temporary one it owns.
struct Ctl {
  UniqueFd owned;
  int fd = -1;
};
Result<Ctl> ctl_socket(int sock) {
  Ctl c;
  if (sock >= 0) {
    c.fd = sock;
    return c;
  }
  FLOWLAB_ASSIGN_OR_RETURN(c.owned, control_socket());
  c.fd = c.owned.get();
  return c;
}

Status fill_ifr(std::string_view name, ifreq& ifr) {
  FLOWLAB_TRY(check_name(name));
  std::memset(&ifr, 0, sizeof ifr);
  std::memcpy(ifr.ifr_name, name.data(), name.size());
  return ok_status();
}

Status do_ioctl(std::string_view name, unsigned long req, ifreq& ifr, const char* what, int sock) {
  FLOWLAB_TRY(fill_ifr(name, ifr));
  FLOWLAB_ASSIGN_OR_RETURN(Ctl s, ctl_socket(sock));
  if (::ioctl(s.fd, req, &ifr) < 0) {
    if (errno == ENODEV) return fail("interface {} does not exist", name);
    return fail("{} on interface {} failed: {}", what, name, std::strerror(errno));
  }
  return ok_status();
}

Result<uint32_t> ethtool_get(std::string_view name, uint32_t cmd, int sock = -1) {
  ifreq ifr;
  struct ethtool_value v {};
  v.cmd = cmd;
  FLOWLAB_TRY(fill_ifr(name, ifr));
  ifr.ifr_data = reinterpret_cast<char*>(&v);
  FLOWLAB_ASSIGN_OR_RETURN(Ctl s, ctl_socket(sock));
  if (::ioctl(s.fd, SIOCETHTOOL, &ifr) < 0) {
    if (errno == ENODEV) return fail("interface {} does not exist", name);
    return fail("ethtool query on {} failed: {}", name, std::strerror(errno));
  }
  return v.data;
}

}  // namespace

Result<UniqueFd> control_socket() {
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return fail("socket(AF_INET) failed: {}", std::strerror(errno));
  return UniqueFd(fd);
}

Status check_name(std::string_view name) {
  if (name.empty()) return fail("empty interface name");
  if (name.size() >= IFNAMSIZ)
    return fail("interface name '{}' is longer than {} characters", name, IFNAMSIZ - 1);
  for (char c : name)
    if (c == '/' || c == ' ' || c == '\0' || c == ':') return fail("bad interface name '{}'", name);
  return ok_status();
}

bool exists(std::string_view name, int sock) { return ifindex(name, sock).ok(); }

Result<int> ifindex(std::string_view name, int sock) {
  ifreq ifr;
  FLOWLAB_TRY(do_ioctl(name, SIOCGIFINDEX, ifr, "SIOCGIFINDEX", sock));
  return ifr.ifr_ifindex;
}

Result<std::string> name_of(int index) {
  ifreq ifr{};
  ifr.ifr_ifindex = index;
  FLOWLAB_ASSIGN_OR_RETURN(UniqueFd s, control_socket());
  if (::ioctl(s.get(), SIOCGIFNAME, &ifr) < 0) return fail("no interface with ifindex {}", index);
  return std::string(ifr.ifr_name);
}

Result<MacAddr> mac(std::string_view name, int sock) {
  ifreq ifr;
  FLOWLAB_TRY(do_ioctl(name, SIOCGIFHWADDR, ifr, "SIOCGIFHWADDR", sock));
  MacAddr m;
  std::memcpy(m.b.data(), ifr.ifr_hwaddr.sa_data, 6);
  return m;
}

Result<uint32_t> mtu(std::string_view name, int sock) {
  ifreq ifr;
  FLOWLAB_TRY(do_ioctl(name, SIOCGIFMTU, ifr, "SIOCGIFMTU", sock));
  return static_cast<uint32_t>(ifr.ifr_mtu);
}

Result<bool> link_up(std::string_view name, int sock) {
  ifreq ifr;
  FLOWLAB_TRY(do_ioctl(name, SIOCGIFFLAGS, ifr, "SIOCGIFFLAGS", sock));
  unsigned flags = static_cast<unsigned short>(ifr.ifr_flags);
  return (flags & IFF_UP) && (flags & IFF_RUNNING);
}

Status set_up(std::string_view name, bool up, int sock) {
  ifreq ifr;
  FLOWLAB_TRY(do_ioctl(name, SIOCGIFFLAGS, ifr, "SIOCGIFFLAGS", sock));
  short flags = ifr.ifr_flags;  // do_ioctl clears ifr, so carry the flags over
  FLOWLAB_TRY(fill_ifr(name, ifr));
  ifr.ifr_flags = up ? short(flags | IFF_UP) : short(flags & ~IFF_UP);
  FLOWLAB_ASSIGN_OR_RETURN(Ctl s, ctl_socket(sock));
  if (::ioctl(s.fd, SIOCSIFFLAGS, &ifr) < 0)
    return fail("cannot set interface {} {}: {}", name, up ? "up" : "down", std::strerror(errno));
  return ok_status();
}

Result<uint32_t> speed_mbps(std::string_view name, int sock) {
  ifreq ifr;
  ethtool_cmd cmd{};
  cmd.cmd = ETHTOOL_GSET;
  FLOWLAB_TRY(fill_ifr(name, ifr));
  ifr.ifr_data = reinterpret_cast<char*>(&cmd);
  FLOWLAB_ASSIGN_OR_RETURN(Ctl s, ctl_socket(sock));
  if (::ioctl(s.fd, SIOCETHTOOL, &ifr) < 0) {
    if (errno == ENODEV) return fail("interface {} does not exist", name);
    return 0u;  // no ethtool support (tun without settings, lo, ...)
  }
  uint32_t sp = ethtool_cmd_speed(&cmd);
  if (sp == uint32_t(SPEED_UNKNOWN) || sp == 0xffff) return 0u;
  return sp;
}

Result<Offloads> offloads(std::string_view name) {
  Offloads o;
  FLOWLAB_ASSIGN_OR_RETURN(uint32_t tx, ethtool_get(name, ETHTOOL_GTXCSUM));
  o.tx_csum = tx;
  auto get = [&](uint32_t cmd) {
    auto r = ethtool_get(name, cmd);
    return r.ok() && *r;
  };
  o.rx_csum = get(ETHTOOL_GRXCSUM);
  o.sg = get(ETHTOOL_GSG);
  o.tso = get(ETHTOOL_GTSO);
  o.gso = get(ETHTOOL_GGSO);
  o.gro = get(ETHTOOL_GGRO);
  return o;
}

}  // namespace netdev

Result<LinkWatcher> LinkWatcher::open() {
  int fd = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
  if (fd < 0) return fail("netlink socket failed: {}", std::strerror(errno));
  UniqueFd owned(fd);
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  sa.nl_groups = RTMGRP_LINK;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) < 0)
    return fail("netlink bind (RTMGRP_LINK) failed: {}", std::strerror(errno));
  return LinkWatcher(std::move(owned));
}

std::vector<LinkWatcher::Event> LinkWatcher::drain() {
  std::vector<Event> out;
  alignas(nlmsghdr) char buf[16384];
  for (;;) {
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) break;
    size_t left = static_cast<size_t>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK) continue;
      auto* ifi = static_cast<ifinfomsg*>(NLMSG_DATA(h));
      Event e;
      e.ifindex = ifi->ifi_index;
      e.removed = h->nlmsg_type == RTM_DELLINK;
      e.up = (ifi->ifi_flags & IFF_UP) && (ifi->ifi_flags & IFF_LOWER_UP);
      int alen = static_cast<int>(IFLA_PAYLOAD(h));
      for (auto* a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen))
        if (a->rta_type == IFLA_IFNAME) e.name = static_cast<const char*>(RTA_DATA(a));
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace flowlab

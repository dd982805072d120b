// FrameAddresses (see frame_addresses.h).
#include "loadgen/pktgen/frame_addresses.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace flowlab::loadgen {

namespace {

constexpr uint16_t kDiscardPort = 9;
constexpr unsigned kArpComplete = 0x2;  // ATF_COM

// A datagram socket closed on every path.
class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

sockaddr_in to_sockaddr(Ipv4Addr ip, uint16_t port) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(ip.v);
  sa.sin_port = htons(port);
  return sa;
}

// The route's preferred source address toward dst (connect() on UDP sends nothing).
std::optional<Ipv4Addr> route_source(Ipv4Addr dst) {
  Socket s;
  if (s.fd() < 0) return std::nullopt;
  sockaddr_in sa = to_sockaddr(dst, kDiscardPort);
  if (::connect(s.fd(), reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) return std::nullopt;
  sockaddr_in local{};
  socklen_t len = sizeof local;
  if (::getsockname(s.fd(), reinterpret_cast<sockaddr*>(&local), &len) != 0) return std::nullopt;
  return Ipv4Addr{ntohl(local.sin_addr.s_addr)};
}

// The interface holding `ip`, or the first IPv4 address of `dev` (whichever is asked).
struct IfAddr {
  std::string dev;
  Ipv4Addr ip;
};
std::vector<IfAddr> ipv4_addresses() {
  std::vector<IfAddr> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a; a = a->ifa_next)
    if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET)
      out.push_back(
          {a->ifa_name, Ipv4Addr{ntohl(reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr)}});
  ::freeifaddrs(list);
  return out;
}

Result<MacAddr> interface_mac(const std::string& dev) {
  Socket s;
  ifreq ifr{};
  std::snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev.c_str());
  if (s.fd() < 0 || ::ioctl(s.fd(), SIOCGIFHWADDR, &ifr) != 0)
    return fail("reading {}'s MAC address: {} (give --src-mac)", dev, std::strerror(errno));
  MacAddr m;
  std::memcpy(m.b.data(), ifr.ifr_hwaddr.sa_data, 6);
  return m;
}

std::optional<MacAddr> neighbour_now(Ipv4Addr ip, const std::string& dev) {
  std::ifstream f("/proc/net/arp");
  std::stringstream text;
  text << f.rdbuf();
  return find_neighbour(text.str(), ip, dev);
}

// One datagram to the discard port so the kernel resolves dst's MAC.
void provoke_resolution(Ipv4Addr dst, const std::string& dev) {
  Socket s;
  if (s.fd() < 0) return;
  (void)::setsockopt(s.fd(), SOL_SOCKET, SO_BINDTODEVICE, dev.c_str(), socklen_t(dev.size()));
  sockaddr_in sa = to_sockaddr(dst, kDiscardPort);
  (void)::sendto(s.fd(), "", 0, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
}

}  // namespace

std::optional<MacAddr> find_neighbour(std::string_view arp_table, Ipv4Addr ip, std::string_view dev) {
  std::istringstream in{std::string(arp_table)};
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string addr, hw_type, flags, mac, mask, ifname;
    if (!(l >> addr >> hw_type >> flags >> mac >> mask >> ifname)) continue;
    auto a = Ipv4Addr::parse(addr);
    if (!a || *a != ip || ifname != dev) continue;
    unsigned long f = std::strtoul(flags.c_str(), nullptr, 16);
    if (!(f & kArpComplete)) continue;
    if (auto m = MacAddr::parse(mac); m && !m->is_zero()) return m;
  }
  return std::nullopt;
}

Result<FrameAddresses> resolve_frame_addresses(const FrameAddressOptions& o) {
  FrameAddresses r;
  auto dst = Ipv4Addr::parse(o.dst);
  if (!dst) return fail("--dst {}: not an IPv4 address", o.dst);
  r.dst_ip = *dst;
  std::optional<Ipv4Addr> src = route_source(r.dst_ip);
  std::vector<IfAddr> addrs = ipv4_addresses();
  r.dev = o.dev;
  if (r.dev.empty()) {
    if (!src) return fail("no route to {}: give --dev", o.dst);
    for (const IfAddr& a : addrs)
      if (a.ip == *src) r.dev = a.dev;
    if (r.dev.empty())
      return fail("the route to {} leaves by no interface of this namespace: give --dev", o.dst);
  }
  r.ifindex = int(::if_nametoindex(r.dev.c_str()));
  if (r.ifindex == 0) return fail("--dev {}: no such network interface", r.dev);
  bool src_found = false;
  for (const IfAddr& a : addrs)
    if (a.dev == r.dev && src && a.ip == *src) r.src_ip = a.ip, src_found = true;
  for (const IfAddr& a : addrs)
    if (!src_found && a.dev == r.dev) r.src_ip = a.ip, src_found = true;
  if (!src_found) return fail("{} has no IPv4 address (the frames' source address)", r.dev);

  if (!o.src_mac.empty()) {
    auto m = MacAddr::parse(o.src_mac);
    if (!m) return fail("--src-mac {}: not a MAC address (aa:bb:cc:dd:ee:ff)", o.src_mac);
    r.src_mac = *m;
  } else {
    FLOWLAB_ASSIGN_OR_RETURN(r.src_mac, interface_mac(r.dev));
  }
  if (!o.dst_mac.empty()) {
    auto m = MacAddr::parse(o.dst_mac);
    if (!m) return fail("--dst-mac {}: not a MAC address (aa:bb:cc:dd:ee:ff)", o.dst_mac);
    r.dst_mac = *m;
    return r;
  }
  auto m = neighbour_now(r.dst_ip, r.dev);
  if (!m) {
    provoke_resolution(r.dst_ip, r.dev);
    for (int i = 0; i < 20 && !m; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      m = neighbour_now(r.dst_ip, r.dev);
    }
  }
  if (!m)
    return fail(
        "no neighbour entry for {} on {} (no ARP answer in 1 s): give --dst-mac, or add one "
        "(ip neigh add {} lladdr MAC dev {})",
        o.dst, r.dev, o.dst, r.dev);
  r.dst_mac = *m;
  return r;
}

}  // namespace flowlab::loadgen

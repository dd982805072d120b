// Gratuitous ARP from a namespace's addresses (see arp_announce.h).
#include "lab/host/arp_announce.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "lab/host/netns_visit.h"

namespace flowlab::lab {

namespace {

// An ARP packet for Ethernet and IPv4 (RFC 826), without the Ethernet header: the
// packet socket below adds it.
struct ArpIpv4 {
  uint16_t htype, ptype;
  uint8_t hlen, plen;
  uint16_t op;
  std::array<uint8_t, 6> sha;
  std::array<uint8_t, 4> spa;
  std::array<uint8_t, 6> tha;
  std::array<uint8_t, 4> tpa;
} __attribute__((packed));
static_assert(sizeof(ArpIpv4) == 28);

// One announcement of `addr` (network order) from interface `name`; false when it
// could not be sent (no MAC, interface gone).
bool announce_one(int sock, const char* name, in_addr addr) {
  ifreq ifr{};
  std::strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(sock, SIOCGIFHWADDR, &ifr) != 0 || ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) return false;
  ArpIpv4 a{};
  a.htype = htons(ARPHRD_ETHER);
  a.ptype = htons(ETH_P_IP);
  a.hlen = 6;
  a.plen = 4;
  a.op = htons(ARPOP_REQUEST);
  std::memcpy(a.sha.data(), ifr.ifr_hwaddr.sa_data, 6);
  std::memcpy(a.spa.data(), &addr, 4);
  a.tpa = a.spa;  // sender = target: a gratuitous ARP
  sockaddr_ll to{};
  to.sll_family = AF_PACKET;
  to.sll_protocol = htons(ETH_P_ARP);
  to.sll_ifindex = int(if_nametoindex(name));
  to.sll_halen = 6;
  std::memset(to.sll_addr, 0xff, 6);
  if (to.sll_ifindex == 0) return false;
  return sendto(sock, &a, sizeof a, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) ==
         ssize_t(sizeof a);
}

// The announcements, from the namespace this thread is in.
int announce_here() {
  int sock = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, htons(ETH_P_ARP));
  if (sock < 0) return 0;
  ifaddrs* list = nullptr;
  int sent = 0;
  if (getifaddrs(&list) == 0) {
    for (ifaddrs* i = list; i; i = i->ifa_next) {
      if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
      if ((i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) continue;
      sent += announce_one(sock, i->ifa_name, reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr);
    }
    freeifaddrs(list);
  }
  close(sock);
  return sent;
}

}  // namespace

Result<int> announce_addresses_in(const std::string& ns) {
  int sent = 0;
  FLOWLAB_TRY(visit_netns("/run/netns/" + ns, [&] { sent = announce_here(); }));
  return sent;
}

}  // namespace flowlab::lab

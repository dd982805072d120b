// FrameAddresses: the interface and the four addresses a generator that
// writes whole Ethernet frames needs (pktgen --mode xdp), found the way the
// kernel would find them for a UDP socket, so `--dst` alone is enough:
//  * interface: --dev, or the one the route to --dst leaves by;
//  * source IPv4: the route's preferred source on that interface, else the
//    interface's first address;
//  * source MAC: --src-mac, else the interface's own;
//  * destination MAC: --dst-mac, else the neighbour table's entry for --dst on
//    that interface. With no entry, one UDP datagram to --dst (port 9,
//    discard) makes the kernel resolve it (ARP), and the table is read again
//    for up to a second. A --dst behind a router has no entry of its own: give
//    --dst-mac (the router's).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "packet/addr.h"

namespace flowlab::loadgen {

struct FrameAddressOptions {
  std::string dst;      // IPv4 address (required)
  std::string dev;      // empty: the route's interface
  std::string src_mac;  // empty: the interface's
  std::string dst_mac;  // empty: the neighbour table's
};

struct FrameAddresses {
  std::string dev;
  int ifindex = 0;
  MacAddr src_mac, dst_mac;
  Ipv4Addr src_ip, dst_ip;
};

// In the caller's network namespace. Errors name the option that fixes them.
Result<FrameAddresses> resolve_frame_addresses(const FrameAddressOptions& o);

// The MAC of a complete entry for `ip` on `dev` in /proc/net/arp's text.
std::optional<MacAddr> find_neighbour(std::string_view arp_table, Ipv4Addr ip, std::string_view dev);

}  // namespace flowlab::loadgen

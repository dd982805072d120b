// Gratuitous ARP from a namespace's own addresses: every addressed interface says
// "IP is at MAC" to its broadcast domain once, as a host does when it comes up
// (RFC 5227's announcement). With the receivers' arp_accept on, each host on the
// wire learns the sender from that one broadcast instead of asking for it later:
// n hosts learn one another in n broadcasts, not n^2 (pingall at scale, pingall.h).
#pragma once

#include <string>

#include "core/result.h"

namespace flowlab::lab {

// Sends one ARP request for its own address (sender = target = the address, to
// ff:ff:ff:ff:ff:ff) from every up, non-loopback interface with an IPv4 address in
// namespace `ns` (in this process, through setns; no `ip netns exec`). Returns how
// many were sent; an error when the namespace cannot be entered.
Result<int> announce_addresses_in(const std::string& ns);

}  // namespace flowlab::lab

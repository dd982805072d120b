// A packet built from ovs-ofctl flow text, as `ovs-appctl ofproto/trace`
// takes one: "in_port=1,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80"
// becomes an Ethernet frame whose headers carry the match's values (a masked
// field: its value bits), with defaults for what the text leaves out:
//   eth_src 00:00:00:00:00:01, eth_dst 00:00:00:00:00:02, no VLAN tag unless
//   vlan_vid names one, IPv4 10.0.0.1 -> 10.0.0.2 (IPv6 fd00::1 -> fd00::2),
//   TTL / hop limit 64, TCP/UDP/SCTP ports 49152 -> 80, ICMP echo request
//   (ICMPv6 echo request; also for ip / ipv6 without nw_proto), ARP request with sha = eth_src, MPLS label 0
//   TTL 64 over IPv4, and with no dl_type a frame of type 0x88b5 (IEEE local experimental: matches neither ip
//   nor arp flows); 64 bytes of payload.
// Fields a frame cannot carry (metadata, tunnel_id, in_phy_port, PBB,
// ipv6_exthdr, ND options on other messages) are an error naming them.
#pragma once

#include <cstdint>
#include <string_view>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::of {

struct FlowPacket {
  uint32_t in_port = 0;  // 0 when the text names none
  Bytes frame;
};

// The match of `text` (a dump-flows style match: no actions, table ignored)
// as a frame, and its in_port.
Result<FlowPacket> packet_from_flow_text(std::string_view text);
// The frame for a match (in_port is not part of the frame).
Result<Bytes> packet_from_match(const Match& m);

}  // namespace flowlab::of

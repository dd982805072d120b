// FlowKey: every OXM-matchable field of a packet in one fixed-layout struct, and
// the layer offsets found while parsing (for rewriting headers later).
//
// The layout has no implicit padding and a size that is a multiple of 8, so the
// datapath's classifier can treat a key as 64-bit words (hash, mask, compare).
// Fields a packet lacks are zero. Numbers are in host order; MAC and IPv6
// addresses are the wire bytes. vlan_vid follows OXM: OFPVID_PRESENT (0x1000)
// | VID when the frame is tagged (outermost tag), 0 when it is not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "packet/packet.h"

namespace flowlab {

struct FlowKey {
  // pipeline fields
  uint32_t in_port;
  uint32_t in_phy_port;
  uint64_t metadata;
  uint64_t tunnel_id;
  // L2
  uint8_t eth_dst[6];
  uint8_t eth_src[6];
  uint16_t eth_type;  // innermost ethertype after VLAN tags (the MPLS type for MPLS)
  uint16_t vlan_vid;  // 0x1000 | vid, or 0 when untagged
  uint8_t vlan_pcp;
  uint8_t mpls_tc;
  uint8_t mpls_bos;
  uint8_t ip_dscp;  // 6 bits
  uint8_t ip_ecn;   // 2 bits
  uint8_t ip_proto;
  uint8_t icmp_type;  // ICMPv4 or ICMPv6 (ip_proto tells which)
  uint8_t icmp_code;
  uint32_t mpls_label;
  uint32_t pbb_isid;
  uint32_t ipv4_src;
  uint32_t ipv4_dst;
  uint32_t arp_spa;
  uint32_t arp_tpa;
  uint16_t arp_op;
  uint16_t tp_src;  // TCP, UDP or SCTP (ip_proto tells which)
  uint16_t tp_dst;
  uint16_t ipv6_exthdr;
  uint32_t ipv6_flabel;
  uint8_t arp_sha[6];
  uint8_t arp_tha[6];
  uint8_t ipv6_src[16];
  uint8_t ipv6_dst[16];
  uint8_t nd_target[16];
  uint8_t nd_sll[6];
  uint8_t nd_tll[6];
  uint8_t pbb_uca;  // the I-TAG's use-customer-address bit
  uint8_t pad_;
  uint16_t tcp_flags;  // 12 bits; 0 for frames that are not TCP
  // OpenFlow 1.5's actset_output: the output port in the packet's action set.
  // Not a header field: extraction leaves it 0, the pipeline sets it.
  uint32_t actset_output;
  uint32_t pad2_;

  void clear() { std::memset(this, 0, sizeof(*this)); }
  bool operator==(const FlowKey& o) const { return std::memcmp(this, &o, sizeof(*this)) == 0; }
};
static_assert(sizeof(FlowKey) == 168, "FlowKey must be 21 whole 64-bit words, no implicit padding");
inline constexpr size_t kFlowKeyWords = sizeof(FlowKey) / 8;

// 64-bit word i of a key (well-defined access, compiles to one load).
inline uint64_t key_word(const FlowKey& k, size_t i) {
  uint64_t w;
  std::memcpy(&w, reinterpret_cast<const uint8_t*>(&k) + i * 8, 8);
  return w;
}

// Where the headers of a parsed frame start (offsets from data()), kNone when absent.
struct PacketLayers {
  static constexpr uint16_t kNone = 0xffff;
  uint16_t eth_type_off = 12;     // the ethertype field after the VLAN tags
  uint16_t vlan = kNone;          // outermost VLAN tag (its TPID)
  uint16_t l2_5 = kNone;          // outermost MPLS shim or PBB I-TAG
  uint16_t l3 = kNone;            // IPv4 / IPv6 / ARP header
  uint16_t l4 = kNone;            // TCP / UDP / SCTP / ICMP / ICMPv6 header
  uint16_t ip_proto_off = kNone;  // the byte naming the transport: IPv4 protocol / last IPv6 next header
  uint8_t n_vlans = 0;
  uint8_t n_mpls = 0;
  uint8_t nw_ttl = 0;  // IPv4 TTL or IPv6 hop limit
  bool ipv4 = false;
  bool ipv6 = false;
  bool frag = false;        // IP fragment
  bool later_frag = false;  // not the first fragment (no L4 header)

  bool has(uint16_t off) const { return off != kNone; }
};

// Parses pkt and fills key (all fields, pipeline fields from pkt.in_port,
// pkt.metadata, pkt.tunnel_id) and layers. Never reads past pkt.size();
// truncated headers leave the deeper fields zero.
void extract_flow_key(const Packet& pkt, FlowKey& key, PacketLayers& layers);
// Same over raw bytes with explicit pipeline fields.
void extract_flow_key(const uint8_t* data, size_t len, uint32_t in_port, uint64_t metadata,
                      uint64_t tunnel_id, FlowKey& key, PacketLayers& layers);

}  // namespace flowlab

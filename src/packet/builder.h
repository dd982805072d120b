// FrameBuilder: builds test frames layer by layer with correct lengths, next-
// protocol fields and checksums (Ethernet, VLAN, MPLS, ARP, IPv4, IPv6, TCP, UDP,
// SCTP, ICMP, ICMPv6 incl. neighbour discovery).
//
//   Bytes f = FrameBuilder().eth(dst, src).vlan(10).ipv4(a, b).tcp(1234, 80).payload(100).build();
//
// partial_csum() leaves the L4 checksum as a virtio-net partial checksum (the
// pseudo-header sum) and build_into() then sets pkt.offload (kNeedsCsum,
// csum_start/offset) as a veth with offloads on would hand it over.
#pragma once

#include <cstdint>
#include <vector>

#include "core/bytes.h"
#include "packet/addr.h"
#include "packet/headers.h"
#include "packet/packet.h"

namespace flowlab {

class FrameBuilder {
 public:
  FrameBuilder& eth(MacAddr dst, MacAddr src);
  FrameBuilder& eth_type(uint16_t type);  // raw ethertype with no known layer following
  FrameBuilder& vlan(uint16_t vid, uint8_t pcp = 0, uint16_t tpid = hdr::kEthTypeVlan);
  FrameBuilder& mpls(uint32_t label, uint8_t tc = 0, uint8_t ttl = 64);  // bos set on the last
  FrameBuilder& arp(uint16_t op, MacAddr sha, Ipv4Addr spa, MacAddr tha, Ipv4Addr tpa);
  FrameBuilder& ipv4(Ipv4Addr src, Ipv4Addr dst, uint8_t ttl = 64, uint8_t tos = 0);
  FrameBuilder& ipv6(const Ipv6Addr& src, const Ipv6Addr& dst, uint8_t hop_limit = 64, uint8_t tclass = 0,
                     uint32_t flabel = 0);
  FrameBuilder& tcp(uint16_t sport, uint16_t dport, uint8_t flags = hdr::kTcpSyn, uint32_t seq = 1);
  FrameBuilder& udp(uint16_t sport, uint16_t dport);
  FrameBuilder& sctp(uint16_t sport, uint16_t dport);
  // ICMPv4 after ipv4(), ICMPv6 after ipv6(); echo id/seq in the rest of the header.
  FrameBuilder& icmp(uint8_t type, uint8_t code, uint16_t id = 1, uint16_t seq = 1);
  // Neighbour solicitation (with source link-layer option) or advertisement (target LL option).
  FrameBuilder& nd(uint8_t type, const Ipv6Addr& target, MacAddr ll);
  FrameBuilder& payload(size_t n, uint8_t fill = 0xab);
  FrameBuilder& payload(ByteSpan bytes);
  // TCP/UDP checksum left partial (pseudo-header sum) for offload tests.
  FrameBuilder& partial_csum();

  Bytes build() const;
  // Writes the frame into pkt (reset first) and, with partial_csum(), its offload info.
  void build_into(Packet& pkt) const;

 private:
  enum class Kind : uint8_t {
    kEth,
    kEthType,
    kVlan,
    kMpls,
    kArp,
    kIpv4,
    kIpv6,
    kTcp,
    kUdp,
    kSctp,
    kIcmp,
    kNd,
    kPayload
  };
  struct Layer {
    explicit Layer(Kind k) : kind(k) {}
    Kind kind;
    uint32_t a = 0, b = 0, c = 0, d = 0;
    MacAddr m1, m2;
    Ipv6Addr v6a, v6b;
    Bytes data;
  };
  Bytes build(OffloadInfo* off) const;
  std::vector<Layer> layers_;
  bool partial_ = false;
};

// Internet checksum of a whole L4 segment with its IPv4/IPv6 pseudo-header
// (frame = full Ethernet frame, l3/l4 = offsets); used by tests to verify rewrites.
// Returns the value the checksum field should hold.
uint16_t l4_checksum(const uint8_t* frame, size_t len, size_t l3, size_t l4, bool ipv6, uint8_t proto);
// IPv4 header checksum recomputed over the header at l3.
uint16_t ipv4_header_checksum(const uint8_t* frame, size_t l3);
// CRC32c (SCTP) over a byte range, as stored in the SCTP checksum field.
uint32_t crc32c(const uint8_t* p, size_t n);

}  // namespace flowlab

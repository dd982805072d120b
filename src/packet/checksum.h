// Internet checksums (RFC 1071) for the data path: plain sums, IPv4/IPv6 pseudo
// headers, and completing a partial checksum left by an offloading sender
// (virtio-net NEEDS_CSUM: the field at csum_start+csum_offset holds only the
// pseudo-header sum and the rest must be summed from csum_start to the end).
//
// Sums are kept as 32-bit unfolded accumulators in network-order word space:
// sum_bytes({0x12,0x34}) == 0x1234 on any host. fold() folds to 16 bits,
// finish() also complements (the value to store, host order; store big-endian).
// locate_l4() is a small frame walker (Ethernet, up to two VLAN tags, IPv4 with
// options, IPv6 with extension headers) shared by the checksum and GSO code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "packet/packet.h"

namespace flowlab::csum {

// Sum of the bytes as big-endian 16-bit words (odd tail padded with zero), plus `sum`.
uint32_t sum_bytes(const uint8_t* p, size_t n, uint32_t sum = 0);
uint16_t fold(uint32_t sum);
inline uint16_t finish(uint32_t sum) { return static_cast<uint16_t>(~fold(sum)); }
inline uint16_t internet_checksum(const uint8_t* p, size_t n) { return finish(sum_bytes(p, n)); }

// Pseudo-header sums (not complemented). Addresses point at network-order bytes.
uint32_t pseudo_header_v4(const uint8_t* src4, const uint8_t* dst4, uint8_t proto, uint32_t l4_len);
uint32_t pseudo_header_v6(const uint8_t* src16, const uint8_t* dst16, uint8_t proto, uint32_t l4_len);

// Recomputes the IPv4 header checksum in place (ip points at the header).
void set_ipv4_header_checksum(uint8_t* ip);
bool ipv4_header_checksum_ok(const uint8_t* ip, size_t avail);

// Where the layers of a frame are. l4_len is the L4 length from the IP header
// (bounded by the frame); tot_len covers everything up to its end.
struct Layout {
  size_t l3_off = 0;      // IPv4/IPv6 header
  size_t l4_off = 0;      // TCP/UDP/ICMP header
  size_t l4_len = 0;      // L4 header + payload
  size_t l4_hdr_len = 0;  // TCP header with options, 8 for UDP, 0 otherwise
  uint8_t proto = 0;      // IPPROTO_*
  bool ipv6 = false;
  bool fragment = false;  // IPv4 MF set or offset != 0 (L4 header may be absent)
};
std::optional<Layout> locate_l4(const uint8_t* frame, size_t len);

// Pseudo-header sum for the L4 segment described by `l` with L4 length l4_len.
uint32_t pseudo_header(const uint8_t* frame, const Layout& l, uint32_t l4_len);

// Completes the checksum at csum_start+csum_offset by summing [csum_start, len).
// false when the offsets do not fit the frame.
bool complete_partial(uint8_t* frame, size_t len, uint16_t csum_start, uint16_t csum_offset);

// Completes a Packet's partial checksum (kNeedsCsum) in place and clears the
// flag. No-op (true) when the flag is not set. false if the metadata is bad.
bool complete_partial(Packet& pkt);

// Writes the full TCP/UDP/ICMPv6 checksum of the frame's L4 segment (true) or
// false when the frame has no such checksum (non-first fragments, other protos).
bool set_l4_checksum(uint8_t* frame, size_t len);
// Verifies the L4 checksum (TCP, UDP with nonzero checksum, ICMP, ICMPv6) and,
// for IPv4, the header checksum. Frames without a checksummable L4 are "ok".
bool checksums_ok(const uint8_t* frame, size_t len);

}  // namespace flowlab::csum

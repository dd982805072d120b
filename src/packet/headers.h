// Protocol header layouts: offsets and constants for Ethernet, VLAN, MPLS, ARP,
// IPv4, IPv6, TCP, UDP, SCTP, ICMP and ICMPv6, plus tiny accessors over raw
// bytes (no packed structs, so no alignment traps). Multi-byte fields are big-endian
// on the wire; use load_be16/32 and store_be16/32 from core/bytes.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/bytes.h"

namespace flowlab::hdr {

// ---- Ethernet -----------------------------------------------------------------
inline constexpr size_t kEthLen = 14;  // dst(6) src(6) type(2)
inline constexpr size_t kEthDstOff = 0;
inline constexpr size_t kEthSrcOff = 6;
inline constexpr size_t kEthTypeOff = 12;
inline constexpr size_t kEthAddrsLen = 12;

inline constexpr uint16_t kEthTypeIpv4 = 0x0800;
inline constexpr uint16_t kEthTypeArp = 0x0806;
inline constexpr uint16_t kEthTypeRarp = 0x8035;
inline constexpr uint16_t kEthTypeVlan = 0x8100;      // 802.1Q C-tag
inline constexpr uint16_t kEthTypeQinQ = 0x88a8;      // 802.1ad S-tag
inline constexpr uint16_t kEthTypeVlan9100 = 0x9100;  // legacy QinQ
inline constexpr uint16_t kEthTypeIpv6 = 0x86dd;
inline constexpr uint16_t kEthTypeMpls = 0x8847;
inline constexpr uint16_t kEthTypeMplsMcast = 0x8848;
inline constexpr uint16_t kEthTypePbb = 0x88e7;
inline constexpr uint16_t kEthTypeMin = 0x0600;  // below: 802.3 length field

inline bool is_vlan_tpid(uint16_t t) {
  return t == kEthTypeVlan || t == kEthTypeQinQ || t == kEthTypeVlan9100;
}
inline bool is_mpls_type(uint16_t t) { return t == kEthTypeMpls || t == kEthTypeMplsMcast; }

// ---- VLAN tag (after the MACs: TPID(2) TCI(2)) --------------------------------
inline constexpr size_t kVlanLen = 4;
inline constexpr uint16_t kVlanVidMask = 0x0fff;
inline constexpr uint16_t kVlanCfi = 0x1000;
inline constexpr int kVlanPcpShift = 13;

// ---- MPLS shim: label(20) tc(3) bos(1) ttl(8) ---------------------------------
inline constexpr size_t kMplsLen = 4;
inline uint32_t mpls_label(uint32_t lse) { return lse >> 12; }
inline uint8_t mpls_tc(uint32_t lse) { return uint8_t((lse >> 9) & 7); }
inline bool mpls_bos(uint32_t lse) { return (lse >> 8) & 1; }
inline uint8_t mpls_ttl(uint32_t lse) { return uint8_t(lse); }
inline uint32_t make_mpls(uint32_t label, uint8_t tc, bool bos, uint8_t ttl) {
  return (label & 0xfffff) << 12 | uint32_t(tc & 7) << 9 | uint32_t(bos) << 8 | ttl;
}

// ---- PBB I-TAG (after ethertype 0x88e7): PCP(3) DEI(1) UCA(1) res(3) I-SID(24) ---
// 802.1ah frame: B-DA B-SA [B-TAG] 0x88e7 I-TAG C-DA C-SA [C-tags] type payload.
inline constexpr size_t kPbbItagLen = 4;
inline constexpr size_t kPbbEncapLen = kEthAddrsLen + 2 + kPbbItagLen;  // B-DA B-SA type I-TAG: 18
inline constexpr uint8_t kPbbUcaBit = 0x08;
inline constexpr int kPbbPcpShift = 5;

// ---- ARP (Ethernet/IPv4) ---------------------------------------------------------
inline constexpr size_t kArpLen = 28;
inline constexpr size_t kArpHtypeOff = 0, kArpPtypeOff = 2, kArpHlenOff = 4, kArpPlenOff = 5;
inline constexpr size_t kArpOpOff = 6, kArpShaOff = 8, kArpSpaOff = 14, kArpThaOff = 18, kArpTpaOff = 24;
inline constexpr uint16_t kArpRequest = 1, kArpReply = 2;

// ---- IPv4 --------------------------------------------------------------------------
inline constexpr size_t kIpv4MinLen = 20;
inline constexpr size_t kIpv4TosOff = 1, kIpv4TotLenOff = 2, kIpv4IdOff = 4, kIpv4FragOff = 6;
inline constexpr size_t kIpv4TtlOff = 8, kIpv4ProtoOff = 9, kIpv4CsumOff = 10;
inline constexpr size_t kIpv4SrcOff = 12, kIpv4DstOff = 16;
inline constexpr uint16_t kIpv4MoreFrags = 0x2000;
inline constexpr uint16_t kIpv4FragOffsetMask = 0x1fff;
inline size_t ipv4_ihl_bytes(const uint8_t* ip) { return size_t(ip[0] & 0x0f) * 4; }

// ---- IPv6 --------------------------------------------------------------------------
inline constexpr size_t kIpv6Len = 40;
inline constexpr size_t kIpv6PayloadLenOff = 4, kIpv6NextOff = 6, kIpv6HopOff = 7;
inline constexpr size_t kIpv6SrcOff = 8, kIpv6DstOff = 24;
inline uint8_t ipv6_tclass(const uint8_t* ip) { return uint8_t((load_be32(ip) >> 20) & 0xff); }
inline uint32_t ipv6_flabel(const uint8_t* ip) { return load_be32(ip) & 0xfffff; }

// IP protocol numbers / IPv6 next headers.
inline constexpr uint8_t kProtoHopOpts = 0, kProtoIcmp = 1, kProtoTcp = 6, kProtoUdp = 17;
inline constexpr uint8_t kProtoRouting = 43, kProtoFragment = 44, kProtoEsp = 50, kProtoAh = 51;
inline constexpr uint8_t kProtoIcmpv6 = 58, kProtoNoNext = 59, kProtoDstOpts = 60, kProtoSctp = 132;

// OXM ipv6_exthdr pseudo-field bits (OFPIEH_*).
inline constexpr uint16_t kIehNoNext = 1 << 0, kIehEsp = 1 << 1, kIehAuth = 1 << 2, kIehDest = 1 << 3;
inline constexpr uint16_t kIehFrag = 1 << 4, kIehRouter = 1 << 5, kIehHop = 1 << 6;
inline constexpr uint16_t kIehUnrep = 1 << 7, kIehUnseq = 1 << 8;

// ---- TCP / UDP / SCTP ----------------------------------------------------------------
inline constexpr size_t kTcpMinLen = 20, kTcpCsumOff = 16, kTcpFlagsOff = 13;
inline constexpr uint8_t kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpPsh = 0x08, kTcpAck = 0x10;
inline size_t tcp_hdr_bytes(const uint8_t* tcp) { return size_t(tcp[12] >> 4) * 4; }
inline constexpr size_t kUdpLen = 8, kUdpLenOff = 4, kUdpCsumOff = 6;
inline constexpr size_t kSctpLen = 12, kSctpCsumOff = 8;
inline constexpr size_t kL4SrcOff = 0, kL4DstOff = 2;  // same for TCP, UDP, SCTP

// ---- ICMP / ICMPv6 ---------------------------------------------------------------------
inline constexpr size_t kIcmpLen = 8, kIcmpCsumOff = 2;
inline constexpr uint8_t kIcmpEchoReply = 0, kIcmpEchoRequest = 8;
inline constexpr uint8_t kIcmpv6EchoRequest = 128, kIcmpv6EchoReply = 129;
inline constexpr uint8_t kNdNeighborSolicit = 135, kNdNeighborAdvert = 136;
inline constexpr size_t kNdTargetOff = 8;  // from the ICMPv6 header start
inline constexpr size_t kNdOptionsOff = 24;
inline constexpr uint8_t kNdOptSll = 1, kNdOptTll = 2;

}  // namespace flowlab::hdr

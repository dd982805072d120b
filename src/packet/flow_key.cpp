// Flow-key extraction: one bounds-checked pass over the headers of a frame.
#include "packet/flow_key.h"

#include <algorithm>

#include "packet/headers.h"

namespace flowlab {
namespace {

using namespace hdr;
constexpr uint16_t kVlanPresentBit = 0x1000;  // OFPVID_PRESENT

void parse_l4(const uint8_t* p, size_t len, size_t off, uint8_t proto, FlowKey& k, PacketLayers& l) {
  const uint8_t* h = p + off;
  size_t room = len - off;
  switch (proto) {
    case kProtoTcp:
    case kProtoUdp:
    case kProtoSctp:
      if (room < 4) return;
      l.l4 = uint16_t(off);
      k.tp_src = load_be16(h + kL4SrcOff);
      k.tp_dst = load_be16(h + kL4DstOff);
      // OXM tcp_flags: the 12 bits under the data offset (NS, reserved, CWR .. FIN).
      if (proto == kProtoTcp && room >= kTcpFlagsOff + 1)
        k.tcp_flags = load_be16(h + kTcpFlagsOff - 1) & 0x0fff;
      return;
    case kProtoIcmp:
      if (room < 2) return;
      l.l4 = uint16_t(off);
      k.icmp_type = h[0];
      k.icmp_code = h[1];
      return;
    case kProtoIcmpv6: {
      if (room < 4) return;
      l.l4 = uint16_t(off);
      k.icmp_type = h[0];
      k.icmp_code = h[1];
      if ((h[0] != kNdNeighborSolicit && h[0] != kNdNeighborAdvert) || h[1] != 0) return;
      if (room < kNdOptionsOff) return;
      std::memcpy(k.nd_target, h + kNdTargetOff, 16);
      for (size_t o = kNdOptionsOff; o + 8 <= room;) {
        size_t olen = size_t(h[o + 1]) * 8;
        if (olen == 0 || o + olen > room) break;
        if (h[o] == kNdOptSll && h[0] == kNdNeighborSolicit) std::memcpy(k.nd_sll, h + o + 2, 6);
        if (h[o] == kNdOptTll && h[0] == kNdNeighborAdvert) std::memcpy(k.nd_tll, h + o + 2, 6);
        o += olen;
      }
      return;
    }
    default:
      return;
  }
}

void parse_ipv4(const uint8_t* p, size_t len, size_t off, FlowKey& k, PacketLayers& l) {
  if (len - off < kIpv4MinLen) return;
  const uint8_t* ip = p + off;
  size_t ihl = ipv4_ihl_bytes(ip);
  if ((ip[0] >> 4) != 4 || ihl < kIpv4MinLen || len - off < ihl) return;
  l.l3 = uint16_t(off);
  l.ipv4 = true;
  l.nw_ttl = ip[kIpv4TtlOff];
  k.ip_dscp = ip[kIpv4TosOff] >> 2;
  k.ip_ecn = ip[kIpv4TosOff] & 3;
  k.ip_proto = ip[kIpv4ProtoOff];
  l.ip_proto_off = uint16_t(off + kIpv4ProtoOff);
  k.ipv4_src = load_be32(ip + kIpv4SrcOff);
  k.ipv4_dst = load_be32(ip + kIpv4DstOff);
  uint16_t frag = load_be16(ip + kIpv4FragOff);
  if (frag & (kIpv4MoreFrags | kIpv4FragOffsetMask)) {
    l.frag = true;
    if (frag & kIpv4FragOffsetMask) {
      l.later_frag = true;
      return;
    }
  }
  parse_l4(p, len, off + ihl, k.ip_proto, k, l);
}

// OFPIEH_UNREP / OFPIEH_UNSEQ against the order RFC 8200 4.1 recommends:
// hop-by-hop, destination options (before a routing header), routing,
// fragment, authentication, ESP, destination options (before the upper
// layer). Each header once, except destination options: twice, one on each
// side of the routing/fragment/auth/ESP part. A header ranked below one seen
// before it is out of sequence.
struct ExthdrOrder {
  uint16_t seen = 0;
  int last_rank = -1;
  int dest_count = 0;
  int dest_rank = 0;  // rank of the first destination-options header
};
void note_exthdr(uint16_t bit, ExthdrOrder& o, FlowKey& k) {
  int rank;
  switch (bit) {
    case kIehHop:
      rank = 0;
      break;
    case kIehDest:
      rank = o.dest_count == 0 && o.last_rank < 2 ? 1 : 6;
      break;
    case kIehRouter:
      rank = 2;
      break;
    case kIehFrag:
      rank = 3;
      break;
    case kIehAuth:
      rank = 4;
      break;
    case kIehEsp:
      rank = 5;
      break;
    default:  // no next header: ends the chain wherever it is
      rank = 7;
      break;
  }
  if (bit == kIehDest) {
    // A second one is a repeat unless the first came before a routing..ESP part and that part came since.
    if (o.dest_count >= 2 || (o.dest_count == 1 && (o.dest_rank == 6 || o.last_rank < 2)))
      k.ipv6_exthdr |= kIehUnrep;
    if (o.dest_count == 0) o.dest_rank = rank;
    ++o.dest_count;
  } else if (o.seen & bit) {
    k.ipv6_exthdr |= kIehUnrep;
  }
  // Hop-by-hop only ever right after the IPv6 header (so a second one is out of sequence too).
  if (rank < o.last_rank || (bit == kIehHop && o.seen)) k.ipv6_exthdr |= kIehUnseq;
  o.last_rank = std::max(o.last_rank, rank);
  o.seen |= bit;
}

void parse_ipv6(const uint8_t* p, size_t len, size_t off, FlowKey& k, PacketLayers& l) {
  if (len - off < kIpv6Len) return;
  const uint8_t* ip = p + off;
  if ((ip[0] >> 4) != 6) return;
  l.l3 = uint16_t(off);
  l.ipv6 = true;
  l.nw_ttl = ip[kIpv6HopOff];
  uint8_t tc = ipv6_tclass(ip);
  k.ip_dscp = tc >> 2;
  k.ip_ecn = tc & 3;
  k.ipv6_flabel = ipv6_flabel(ip);
  std::memcpy(k.ipv6_src, ip + kIpv6SrcOff, 16);
  std::memcpy(k.ipv6_dst, ip + kIpv6DstOff, 16);
  uint8_t next = ip[kIpv6NextOff];
  l.ip_proto_off = uint16_t(off + kIpv6NextOff);
  size_t o = off + kIpv6Len;
  ExthdrOrder order;
  for (int guard = 0; guard < 16; ++guard) {
    uint16_t bit = 0;
    switch (next) {
      case kProtoHopOpts:
        bit = kIehHop;
        break;
      case kProtoRouting:
        bit = kIehRouter;
        break;
      case kProtoDstOpts:
        bit = kIehDest;
        break;
      case kProtoFragment:
        bit = kIehFrag;
        break;
      case kProtoAh:
        bit = kIehAuth;
        break;
      case kProtoEsp:
        bit = kIehEsp;
        break;
      case kProtoNoNext:
        bit = kIehNoNext;
        break;
      default:
        break;
    }
    if (!bit) break;
    note_exthdr(bit, order, k);
    k.ipv6_exthdr |= bit;
    if (bit == kIehEsp || bit == kIehNoNext) {
      k.ip_proto = next;
      return;
    }
    if (len - o < 8) return;
    const uint8_t* e = p + o;
    uint8_t nh = e[0];
    size_t elen;
    if (bit == kIehFrag) {
      elen = 8;
      l.frag = true;
      if (load_be16(e + 2) & 0xfff8) l.later_frag = true;
    } else if (bit == kIehAuth) {
      elen = (size_t(e[1]) + 2) * 4;
    } else {
      elen = (size_t(e[1]) + 1) * 8;
    }
    if (len - o < elen) return;
    l.ip_proto_off = uint16_t(o);  // the extension header's own next-header byte
    o += elen;
    next = nh;
  }
  k.ip_proto = next;
  if (l.later_frag) return;
  parse_l4(p, len, o, next, k, l);
}

void parse_arp(const uint8_t* p, size_t len, size_t off, FlowKey& k, PacketLayers& l) {
  if (len - off < kArpLen) return;
  const uint8_t* a = p + off;
  if (load_be16(a + kArpHtypeOff) != 1 || load_be16(a + kArpPtypeOff) != kEthTypeIpv4 ||
      a[kArpHlenOff] != 6 || a[kArpPlenOff] != 4)
    return;
  l.l3 = uint16_t(off);
  uint16_t op = load_be16(a + kArpOpOff);
  k.arp_op = op;  // OXM arp_op is 16 bits but only the low byte is meaningful
  std::memcpy(k.arp_sha, a + kArpShaOff, 6);
  k.arp_spa = load_be32(a + kArpSpaOff);
  std::memcpy(k.arp_tha, a + kArpThaOff, 6);
  k.arp_tpa = load_be32(a + kArpTpaOff);
}

}  // namespace

void extract_flow_key(const uint8_t* p, size_t len, uint32_t in_port, uint64_t metadata, uint64_t tunnel_id,
                      FlowKey& k, PacketLayers& l) {
  k.clear();
  l = PacketLayers{};
  k.in_port = in_port;
  k.in_phy_port = in_port;
  k.metadata = metadata;
  k.tunnel_id = tunnel_id;
  if (len < kEthLen) {
    l.eth_type_off = PacketLayers::kNone;
    return;
  }
  std::memcpy(k.eth_dst, p + kEthDstOff, 6);
  std::memcpy(k.eth_src, p + kEthSrcOff, 6);
  size_t off = kEthTypeOff;
  uint16_t type = load_be16(p + off);
  while (is_vlan_tpid(type) && len >= off + 2 + kVlanLen) {
    uint16_t tci = load_be16(p + off + 2);
    if (l.n_vlans == 0) {
      l.vlan = uint16_t(off);
      k.vlan_vid = uint16_t(kVlanPresentBit | (tci & kVlanVidMask));
      k.vlan_pcp = uint8_t(tci >> kVlanPcpShift);
    }
    ++l.n_vlans;
    off += kVlanLen;
    type = load_be16(p + off);
  }
  l.eth_type_off = uint16_t(off);
  if (type < kEthTypeMin) type = 0x05ff;  // 802.3 length: OF's OFP_DL_TYPE_NOT_ETH_TYPE
  k.eth_type = type;
  off += 2;
  if (is_mpls_type(type)) {
    l.l2_5 = uint16_t(off);
    if (len - off < kMplsLen) return;
    uint32_t lse = load_be32(p + off);
    k.mpls_label = mpls_label(lse);
    k.mpls_tc = mpls_tc(lse);
    k.mpls_bos = mpls_bos(lse);
    l.n_mpls = 1;
    size_t o = off;
    while (!mpls_bos(load_be32(p + o)) && len - o >= 2 * kMplsLen) {
      o += kMplsLen;
      ++l.n_mpls;
    }
    // IP under MPLS is not parsed (OF matches only the outermost label); copy-TTL
    // actions find the inner header through layers.l2_5 + n_mpls * 4.
    if (mpls_bos(load_be32(p + o)) && len - o >= kMplsLen + 1) {
      size_t inner = o + kMplsLen;
      uint8_t ver = p[inner] >> 4;
      if (ver == 4 && len - inner >= kIpv4MinLen) {
        l.l3 = uint16_t(inner);
        l.nw_ttl = p[inner + kIpv4TtlOff];
      } else if (ver == 6 && len - inner >= kIpv6Len) {
        l.l3 = uint16_t(inner);
        l.nw_ttl = p[inner + kIpv6HopOff];
      }
    }
    return;
  }
  if (type == kEthTypePbb) {
    if (len - off < kPbbItagLen) return;
    l.l2_5 = uint16_t(off);
    k.pbb_isid = load_be32(p + off) & 0xffffff;
    k.pbb_uca = (p[off] & kPbbUcaBit) ? 1 : 0;
    return;
  }
  switch (type) {
    case kEthTypeIpv4:
      parse_ipv4(p, len, off, k, l);
      break;
    case kEthTypeIpv6:
      parse_ipv6(p, len, off, k, l);
      break;
    case kEthTypeArp:
    case kEthTypeRarp:
      parse_arp(p, len, off, k, l);
      break;
    default:
      break;
  }
}

void extract_flow_key(const Packet& pkt, FlowKey& key, PacketLayers& layers) {
  extract_flow_key(pkt.data(), pkt.size(), pkt.in_port, pkt.metadata, pkt.tunnel_id, key, layers);
}

}  // namespace flowlab

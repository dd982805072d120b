// Header-rewriting actions (see actions.h for the checksum rules).
#include "datapath/actions.h"

#include "datapath/match_key.h"
#include "packet/builder.h"
#include "packet/csum_incremental.h"
#include "packet/headers.h"

namespace flowlab::dp {
namespace {

using namespace hdr;
using of::OxmId;

struct L4Csum {
  uint8_t* field = nullptr;  // the 16-bit checksum field, nullptr when none
  bool partial = false;      // holds the pseudo-header sum (offload)
  bool udp_zero = false;     // IPv4 UDP without checksum
};

L4Csum l4_csum(PacketContext& pc) {
  L4Csum c;
  const PacketLayers& l = pc.layers;
  if (l.l4 == kNoLayer || l.later_frag) return c;
  size_t off;
  switch (pc.key.ip_proto) {
    case kProtoTcp:
      off = kTcpCsumOff;
      break;
    case kProtoUdp:
      off = kUdpCsumOff;
      break;
    case kProtoIcmp:
    case kProtoIcmpv6:
      off = kIcmpCsumOff;
      break;
    default:
      return c;
  }
  if (l.l4 + off + 2 > pc.pkt->size()) return c;
  c.field = pc.pkt->data() + l.l4 + off;
  const OffloadInfo& o = pc.pkt->offload;
  c.partial = o.needs_csum() && o.csum_start == l.l4 && o.csum_offset == off;
  c.udp_zero = pc.key.ip_proto == kProtoUdp && !c.partial && load_be16(c.field) == 0 && l.ipv4;
  return c;
}

void fix_udp_zero(PacketContext& pc, uint8_t* field, bool partial) {
  if (!partial && pc.key.ip_proto == kProtoUdp && load_be16(field) == 0) store_be16(field, 0xffff);
}

// Pseudo-header field changed (IP addresses): complete or partial L4 sum.
void l4_pseudo_changed(PacketContext& pc, const uint8_t* old_b, const uint8_t* new_b, size_t n) {
  if (pc.key.ip_proto == kProtoIcmp) return;  // ICMPv4 has no pseudo-header
  L4Csum c = l4_csum(pc);
  if (!c.field || c.udp_zero) return;
  incsum::patch_bytes(c.field, old_b, new_b, n, c.partial);
  fix_udp_zero(pc, c.field, c.partial);
}

// A covered word inside the L4 segment changed (ports, ICMP type/code, ND fields).
void l4_data_changed(PacketContext& pc, const uint8_t* old_b, const uint8_t* new_b, size_t n) {
  L4Csum c = l4_csum(pc);
  if (!c.field || c.udp_zero || c.partial) return;  // partial: summed later by whoever completes it
  incsum::patch_bytes(c.field, old_b, new_b, n, false);
  fix_udp_zero(pc, c.field, false);
}

void sctp_recompute(PacketContext& pc) {
  const PacketLayers& l = pc.layers;
  size_t len = pc.pkt->size();
  if (l.l4 == kNoLayer || l.l4 + kSctpLen > len) return;
  uint8_t* s = pc.pkt->data() + l.l4;
  std::memset(s + kSctpCsumOff, 0, 4);
  uint32_t c = crc32c(s, len - l.l4);
  s[kSctpCsumOff] = uint8_t(c);
  s[kSctpCsumOff + 1] = uint8_t(c >> 8);
  s[kSctpCsumOff + 2] = uint8_t(c >> 16);
  s[kSctpCsumOff + 3] = uint8_t(c >> 24);
}

// Writes n bytes at `at` and fixes the checksums `kind` says are affected.
enum class Covers : uint8_t { kNone, kIpHeader, kPseudo, kL4Data };
ActionResult write_bytes(PacketContext& pc, size_t at, const uint8_t* v, size_t n, Covers covers) {
  if (at == kNoLayer || at + n > pc.pkt->size()) return ActionResult::kSkipped;
  uint8_t* p = pc.pkt->data() + at;
  uint8_t old[16];
  std::memcpy(old, p, n);
  std::memcpy(p, v, n);
  switch (covers) {
    case Covers::kNone:
    case Covers::kIpHeader:
      break;
    case Covers::kPseudo:
      if (pc.layers.ipv4) incsum::patch_bytes(pc.pkt->data() + pc.layers.l3 + kIpv4CsumOff, old, v, n, false);
      l4_pseudo_changed(pc, old, v, n);
      break;
    case Covers::kL4Data:
      if (pc.key.ip_proto == kProtoSctp)
        sctp_recompute(pc);
      else
        l4_data_changed(pc, old, v, n);
      break;
  }
  pc.key_stale = true;
  return ActionResult::kOk;
}

// Rewrites a 16-bit word of the IPv4 header, fixing the header checksum.
void ipv4_word(PacketContext& pc, size_t word_off, uint16_t new_w) {
  uint8_t* ip = pc.pkt->data() + pc.layers.l3;
  uint16_t old_w = load_be16(ip + word_off);
  store_be16(ip + word_off, new_w);
  incsum::patch16(ip + kIpv4CsumOff, old_w, new_w, false);
}

size_t nd_option(PacketContext& pc, uint8_t type) {
  const PacketLayers& l = pc.layers;
  size_t len = pc.pkt->size();
  if (l.l4 == kNoLayer || len < l.l4 + kNdOptionsOff) return kNoLayer;
  const uint8_t* h = pc.pkt->data() + l.l4;
  size_t room = len - l.l4;
  for (size_t o = kNdOptionsOff; o + 8 <= room;) {
    size_t olen = size_t(h[o + 1]) * 8;
    if (olen == 0 || o + olen > room) break;
    if (h[o] == type) return l.l4 + o + 2;
    o += olen;
  }
  return kNoLayer;
}

}  // namespace

ActionResult set_field(PacketContext& pc, const of::OxmField& f) {
  if (!f.is_basic()) {
    if (auto uca = of::onf_pbb_uca_as_basic(f)) return set_field(pc, *uca);  // EXT-256 form
    return ActionResult::kSkipped;
  }
  const uint8_t* v = f.value.data();
  const size_t n = f.value.size();
  const PacketLayers& l = pc.layers;
  const bool arp = pc.key.eth_type == kEthTypeArp || pc.key.eth_type == kEthTypeRarp;
  switch (f.id()) {
    case OxmId::kEthDst:
      return n == 6 ? write_bytes(pc, kEthDstOff, v, 6, Covers::kNone) : ActionResult::kSkipped;
    case OxmId::kEthSrc:
      return n == 6 ? write_bytes(pc, kEthSrcOff, v, 6, Covers::kNone) : ActionResult::kSkipped;
    case OxmId::kVlanVid: {
      if (l.vlan == kNoLayer || n != 2) return ActionResult::kSkipped;
      uint8_t* t = pc.pkt->data() + l.vlan + 2;
      store_be16(t, uint16_t((load_be16(t) & ~kVlanVidMask) | (load_be16(v) & kVlanVidMask)));
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kVlanPcp: {
      if (l.vlan == kNoLayer || n != 1) return ActionResult::kSkipped;
      uint8_t* t = pc.pkt->data() + l.vlan + 2;
      store_be16(t, uint16_t((load_be16(t) & 0x1fff) | (v[0] & 7) << kVlanPcpShift));
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kEthType:
      // The ethertype after the VLAN tags; what follows is parsed anew as the new type.
      return n == 2 ? write_bytes(pc, l.eth_type_off, v, 2, Covers::kNone) : ActionResult::kSkipped;
    case OxmId::kIpProto: {
      if (!is_ip(pc) || l.ip_proto_off == kNoLayer || n != 1) return ActionResult::kSkipped;
      uint8_t* p = pc.pkt->data() + l.ip_proto_off;
      // The protocol is in the transport checksum's pseudo-header as the word (0, proto).
      const uint8_t old_w[2] = {0, *p}, new_w[2] = {0, v[0]};
      l4_pseudo_changed(pc, old_w, new_w, 2);
      if (l.ipv4)
        ipv4_word(pc, kIpv4TtlOff, uint16_t(p[-1] << 8 | v[0]));
      else
        *p = v[0];
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kIpDscp:
    case OxmId::kIpEcn: {
      if (!is_ip(pc) || n != 1) return ActionResult::kSkipped;
      uint8_t tos = uint8_t(pc.key.ip_dscp << 2 | pc.key.ip_ecn);
      tos =
          f.is(OxmId::kIpDscp) ? uint8_t((v[0] & 0x3f) << 2 | (tos & 3)) : uint8_t((tos & 0xfc) | (v[0] & 3));
      uint8_t* ip = pc.pkt->data() + l.l3;
      if (l.ipv4) {
        ipv4_word(pc, 0, uint16_t(ip[0] << 8 | tos));
      } else {
        store_be32(ip, (load_be32(ip) & ~(0xffu << 20)) | uint32_t(tos) << 20);
      }
      pc.key.ip_dscp = tos >> 2;
      pc.key.ip_ecn = tos & 3;
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kIpv4Src:
    case OxmId::kIpv4Dst:
      if (!l.ipv4 || n != 4) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + (f.is(OxmId::kIpv4Src) ? kIpv4SrcOff : kIpv4DstOff), v, 4,
                         Covers::kPseudo);
    case OxmId::kIpv6Src:
    case OxmId::kIpv6Dst:
      if (!l.ipv6 || n != 16) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + (f.is(OxmId::kIpv6Src) ? kIpv6SrcOff : kIpv6DstOff), v, 16,
                         Covers::kPseudo);
    case OxmId::kIpv6Flabel: {
      if (!l.ipv6 || n != 4) return ActionResult::kSkipped;
      uint8_t* ip = pc.pkt->data() + l.l3;
      store_be32(ip, (load_be32(ip) & ~0xfffffu) | (load_be32(v) & 0xfffff));
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kTcpSrc:
    case OxmId::kUdpSrc:
    case OxmId::kSctpSrc:
    case OxmId::kTcpDst:
    case OxmId::kUdpDst:
    case OxmId::kSctpDst: {
      if (l.l4 == kNoLayer || l.later_frag || n != 2) return ActionResult::kSkipped;
      // OF1.0's set_tp_src/dst arrive as tcp_src/dst whatever the transport.
      if (pc.key.ip_proto != kProtoTcp && pc.key.ip_proto != kProtoUdp && pc.key.ip_proto != kProtoSctp)
        return ActionResult::kSkipped;
      bool src = f.is(OxmId::kTcpSrc) || f.is(OxmId::kUdpSrc) || f.is(OxmId::kSctpSrc);
      return write_bytes(pc, l.l4 + (src ? kL4SrcOff : kL4DstOff), v, 2, Covers::kL4Data);
    }
    case OxmId::kIcmpv4Type:
    case OxmId::kIcmpv6Type:
    case OxmId::kIcmpv4Code:
    case OxmId::kIcmpv6Code: {
      if (l.l4 == kNoLayer || n != 1) return ActionResult::kSkipped;
      uint8_t* h = pc.pkt->data() + l.l4;
      uint8_t w[2] = {h[0], h[1]};
      if (f.is(OxmId::kIcmpv4Type) || f.is(OxmId::kIcmpv6Type))
        w[0] = v[0];
      else
        w[1] = v[0];
      return write_bytes(pc, l.l4, w, 2, Covers::kL4Data);
    }
    case OxmId::kArpOp:
      if (!arp || l.l3 == kNoLayer || n != 2) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + kArpOpOff, v, 2, Covers::kNone);
    case OxmId::kArpSpa:
      if (!arp || l.l3 == kNoLayer || n != 4) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + kArpSpaOff, v, 4, Covers::kNone);
    case OxmId::kArpTpa:
      if (!arp || l.l3 == kNoLayer || n != 4) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + kArpTpaOff, v, 4, Covers::kNone);
    case OxmId::kArpSha:
      if (!arp || l.l3 == kNoLayer || n != 6) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + kArpShaOff, v, 6, Covers::kNone);
    case OxmId::kArpTha:
      if (!arp || l.l3 == kNoLayer || n != 6) return ActionResult::kSkipped;
      return write_bytes(pc, l.l3 + kArpThaOff, v, 6, Covers::kNone);
    case OxmId::kIpv6NdTarget:
      if (pc.key.ip_proto != kProtoIcmpv6 || l.l4 == kNoLayer || n != 16) return ActionResult::kSkipped;
      return write_bytes(pc, l.l4 + kNdTargetOff, v, 16, Covers::kL4Data);
    case OxmId::kIpv6NdSll:
    case OxmId::kIpv6NdTll: {
      if (pc.key.ip_proto != kProtoIcmpv6 || n != 6) return ActionResult::kSkipped;
      size_t at = nd_option(pc, f.is(OxmId::kIpv6NdSll) ? kNdOptSll : kNdOptTll);
      return write_bytes(pc, at, v, 6, Covers::kL4Data);
    }
    case OxmId::kMplsLabel:
    case OxmId::kMplsTc:
    case OxmId::kMplsBos: {
      if (l.l2_5 == kNoLayer || !is_mpls_type(pc.key.eth_type) || l.l2_5 + kMplsLen > pc.pkt->size())
        return ActionResult::kSkipped;
      uint8_t* p = pc.pkt->data() + l.l2_5;
      uint32_t lse = load_be32(p);
      uint64_t x = f.value_u64();
      if (f.is(OxmId::kMplsLabel))
        lse = make_mpls(uint32_t(x), mpls_tc(lse), mpls_bos(lse), mpls_ttl(lse));
      else if (f.is(OxmId::kMplsTc))
        lse = make_mpls(mpls_label(lse), uint8_t(x), mpls_bos(lse), mpls_ttl(lse));
      else
        lse = make_mpls(mpls_label(lse), mpls_tc(lse), x & 1, mpls_ttl(lse));
      store_be32(p, lse);
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kPbbIsid:
      if (l.l2_5 == kNoLayer || pc.key.eth_type != kEthTypePbb || n != 3) return ActionResult::kSkipped;
      return write_bytes(pc, l.l2_5 + 1, v, 3, Covers::kNone);
    case OxmId::kPbbUca: {
      if (l.l2_5 == kNoLayer || pc.key.eth_type != kEthTypePbb || n != 1) return ActionResult::kSkipped;
      uint8_t* t = pc.pkt->data() + l.l2_5;
      *t = uint8_t((*t & ~kPbbUcaBit) | (v[0] & 1 ? kPbbUcaBit : 0));
      pc.key_stale = true;
      return ActionResult::kOk;
    }
    case OxmId::kTunnelId:
      pc.pkt->tunnel_id = f.value_u64();
      pc.key.tunnel_id = pc.pkt->tunnel_id;
      return ActionResult::kOk;
    default:
      return ActionResult::kSkipped;
  }
}

ActionResult set_dscp(PacketContext& pc, uint8_t dscp) {
  const PacketLayers& l = pc.layers;
  if (!is_ip(pc)) return ActionResult::kSkipped;
  uint8_t tos = uint8_t((dscp & 0x3f) << 2 | pc.key.ip_ecn);
  uint8_t* ip = pc.pkt->data() + l.l3;
  if (l.ipv4)
    ipv4_word(pc, 0, uint16_t(ip[0] << 8 | tos));
  else
    store_be32(ip, (load_be32(ip) & ~(0xffu << 20)) | uint32_t(tos) << 20);
  pc.key.ip_dscp = dscp & 0x3f;
  return ActionResult::kOk;
}

ActionResult copy_field(PacketContext& pc, const of::CopyField& c) {
  const auto src = of::OxmId(c.src >> 9 & 0x7f), dst = of::OxmId(c.dst >> 9 & 0x7f);
  const of::OxmFieldInfo* si = of::oxm_info(src);
  const of::OxmFieldInfo* di = of::oxm_info(dst);
  const FieldSlot* ss = field_slot(src);
  const FieldSlot* ds = field_slot(dst);
  if (!si || !di || !ss || !ds || c.src >> 16 != of::kOxmClassBasic || c.dst >> 16 != of::kOxmClassBasic)
    return ActionResult::kSkipped;  // validation refuses these
  if (c.src_offset + c.n_bits > of::field_bits(src) || c.dst_offset + c.n_bits > of::field_bits(dst))
    return ActionResult::kSkipped;
  pc.refresh();  // an earlier action may have changed the source
  // Both values as the wire writes them (big-endian, the OXM length).
  auto value = [&](const FieldSlot& slot, of::OxmId id, uint8_t len) {
    Bytes v(len);
    const uint8_t* base = reinterpret_cast<const uint8_t*>(&pc.key) + slot.offset;
    if (slot.raw) {
      std::memcpy(v.data(), base, len);
    } else {
      const uint64_t x = get_key_field(pc.key, id);
      for (size_t i = 0; i < len; ++i) v[len - 1 - i] = uint8_t(x >> (8 * i));
    }
    return v;
  };
  const Bytes from = value(*ss, src, si->length);
  Bytes to = value(*ds, dst, di->length);
  // Bit i counts from the least significant bit of the value.
  auto bit = [](const Bytes& b, size_t i) { return (b[b.size() - 1 - i / 8] >> (i % 8)) & 1; };
  for (size_t i = 0; i < c.n_bits; ++i) {
    const size_t d = c.dst_offset + i;
    uint8_t& byte = to[to.size() - 1 - d / 8];
    byte = uint8_t((byte & ~(1u << (d % 8))) | bit(from, c.src_offset + i) << (d % 8));
  }
  return set_field(pc, of::OxmField::basic_bytes(dst, to));
}

ActionResult apply_header_action(PacketContext& pc, const of::Action& a, bool of10) {
  using of::ActionType;
  switch (a.type) {
    case ActionType::kSetField:
      if (of10 && pc.layers.vlan == kNoLayer && (a.field.is(OxmId::kVlanVid) || a.field.is(OxmId::kVlanPcp)))
        push_vlan(pc, kEthTypeVlan);
      return set_field(pc, a.field);
    case ActionType::kPushVlan:
      return push_vlan(pc, a.ethertype);
    case ActionType::kPopVlan:
      return pop_vlan(pc);
    case ActionType::kPushMpls:
      return push_mpls(pc, a.ethertype);
    case ActionType::kPopMpls:
      return pop_mpls(pc, a.ethertype);
    case ActionType::kPushPbb:
      return push_pbb(pc, a.ethertype);
    case ActionType::kPopPbb:
      return pop_pbb(pc);
    case ActionType::kSetMplsTtl:
      return set_mpls_ttl(pc, a.ttl);
    case ActionType::kDecMplsTtl:
      return dec_mpls_ttl(pc);
    case ActionType::kSetNwTtl:
      return set_nw_ttl(pc, a.ttl);
    case ActionType::kDecNwTtl:
      return dec_nw_ttl(pc);
    case ActionType::kCopyTtlOut:
      return copy_ttl_out(pc);
    case ActionType::kCopyTtlIn:
      return copy_ttl_in(pc);
    case ActionType::kCopyField:
      return copy_field(pc, a.copy);
    default:
      return ActionResult::kSkipped;
  }
}

void copy_packet(const Packet& src, Packet& dst) {
  dst.assign(src.data(), src.size());
  dst.offload = src.offload;
  dst.in_port = src.in_port;
  dst.metadata = src.metadata;
  dst.tunnel_id = src.tunnel_id;
}

}  // namespace flowlab::dp

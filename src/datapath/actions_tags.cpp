// Tag and TTL actions: push/pop of VLAN, MPLS and PBB headers, MPLS and IP TTLs
// (see actions.h for the checksum rules).
#include <cstring>

#include "datapath/actions.h"
#include "packet/builder.h"
#include "packet/csum_incremental.h"
#include "packet/headers.h"

namespace flowlab::dp {
namespace {

using namespace hdr;

// Headers pushed or popped in front of the offload's offsets move them.
void shift_offload(Packet& pkt, int delta) {
  OffloadInfo& o = pkt.offload;
  if (o.needs_csum()) o.csum_start = uint16_t(int(o.csum_start) + delta);
  if (o.is_gso() || o.hdr_len) o.hdr_len = uint16_t(int(o.hdr_len) + delta);
}

}  // namespace

ActionResult push_vlan(PacketContext& pc, uint16_t tpid) {
  Packet& pkt = *pc.pkt;
  if (pkt.size() < kEthLen) return ActionResult::kSkipped;
  uint16_t tci = pc.layers.vlan != kNoLayer ? load_be16(pkt.data() + pc.layers.vlan + 2) : 0;
  uint8_t* d = pkt.push_front(kVlanLen);
  if (!d) return ActionResult::kSkipped;
  std::memmove(d, d + kVlanLen, kEthAddrsLen);
  store_be16(d + kEthTypeOff, tpid);
  store_be16(d + kEthTypeOff + 2, tci);
  shift_offload(pkt, int(kVlanLen));
  pc.reparse();
  return ActionResult::kOk;
}

ActionResult pop_vlan(PacketContext& pc) {
  Packet& pkt = *pc.pkt;
  if (pc.layers.n_vlans == 0) return ActionResult::kSkipped;
  uint8_t* d = pkt.data();
  std::memmove(d + kVlanLen, d, kEthAddrsLen);
  pkt.pull_front(kVlanLen);
  shift_offload(pkt, -int(kVlanLen));
  pc.reparse();
  return ActionResult::kOk;
}

ActionResult push_mpls(PacketContext& pc, uint16_t ethertype) {
  Packet& pkt = *pc.pkt;
  const PacketLayers l = pc.layers;
  if (l.eth_type_off == kNoLayer) return ActionResult::kSkipped;
  const size_t pos = size_t(l.eth_type_off) + 2;
  uint32_t lse;
  if (is_mpls_type(pc.key.eth_type) && l.l2_5 != kNoLayer && l.l2_5 + kMplsLen <= pkt.size()) {
    uint32_t outer = load_be32(pkt.data() + l.l2_5);
    lse = make_mpls(mpls_label(outer), mpls_tc(outer), false, mpls_ttl(outer));
  } else {
    // OF1.3 5.12.1: the new label's TTL is copied from the IP TTL; with no IP
    // header there is nothing to copy and a field not copied is zero.
    lse = make_mpls(0, 0, true, is_ip(pc) ? l.nw_ttl : 0);
  }
  uint8_t* d = pkt.push_front(kMplsLen);
  if (!d) return ActionResult::kSkipped;
  std::memmove(d, d + kMplsLen, pos);
  store_be16(d + l.eth_type_off, ethertype);
  store_be32(d + pos, lse);
  shift_offload(pkt, int(kMplsLen));
  pc.reparse();
  return ActionResult::kOk;
}

ActionResult pop_mpls(PacketContext& pc, uint16_t ethertype) {
  Packet& pkt = *pc.pkt;
  const PacketLayers l = pc.layers;
  if (!is_mpls_type(pc.key.eth_type) || l.l2_5 == kNoLayer || l.l2_5 + kMplsLen > pkt.size())
    return ActionResult::kSkipped;
  uint8_t* d = pkt.data();
  std::memmove(d + kMplsLen, d, l.l2_5);
  pkt.pull_front(kMplsLen);
  store_be16(pkt.data() + l.eth_type_off, ethertype);
  shift_offload(pkt, -int(kMplsLen));
  pc.reparse();
  return ActionResult::kOk;
}

ActionResult push_pbb(PacketContext& pc, uint16_t ethertype) {
  Packet& pkt = *pc.pkt;
  if (pkt.size() < kEthLen) return ActionResult::kSkipped;
  const uint8_t pcp = pc.layers.vlan != kNoLayer ? pc.key.vlan_pcp : 0;
  const uint32_t isid = pc.key.eth_type == kEthTypePbb ? pc.key.pbb_isid : 0;
  uint8_t* d = pkt.push_front(kPbbEncapLen);
  if (!d) return ActionResult::kSkipped;
  std::memcpy(d, d + kPbbEncapLen, kEthAddrsLen);
  store_be16(d + kEthTypeOff, ethertype);
  store_be32(d + kEthLen, uint32_t(pcp) << (24 + kPbbPcpShift) | isid);
  shift_offload(pkt, int(kPbbEncapLen));
  pc.reparse();
  return ActionResult::kOk;
}

ActionResult pop_pbb(PacketContext& pc) {
  Packet& pkt = *pc.pkt;
  const PacketLayers& l = pc.layers;
  if (pc.key.eth_type != kEthTypePbb || l.l2_5 == kNoLayer) return ActionResult::kSkipped;
  const size_t cut = size_t(l.l2_5) + kPbbItagLen;  // B-DA B-SA [B-TAG] 0x88e7 I-TAG
  if (cut + kEthLen > pkt.size()) return ActionResult::kSkipped;
  pkt.pull_front(cut);
  shift_offload(pkt, -int(cut));
  pc.reparse();
  return ActionResult::kOk;
}

namespace {
uint8_t* outer_lse(PacketContext& pc) {
  const PacketLayers& l = pc.layers;
  if (!is_mpls_type(pc.key.eth_type) || l.l2_5 == kNoLayer || l.l2_5 + kMplsLen > pc.pkt->size())
    return nullptr;
  return pc.pkt->data() + l.l2_5;
}
void set_lse_ttl(uint8_t* p, uint8_t ttl) { p[3] = ttl; }

// The IP header under MPLS (layers.l3 is set for it by extraction), or nullptr.
uint8_t* ip_under_mpls(PacketContext& pc, bool& v4) {
  const PacketLayers& l = pc.layers;
  if (l.l3 == kNoLayer) return nullptr;
  uint8_t* ip = pc.pkt->data() + l.l3;
  v4 = (ip[0] >> 4) == 4;
  return ip;
}
void set_ip_ttl(PacketContext& pc, uint8_t* ip, bool v4, uint8_t ttl) {
  if (v4) {
    uint16_t old_w = load_be16(ip + kIpv4TtlOff);
    ip[kIpv4TtlOff] = ttl;
    incsum::patch16(ip + kIpv4CsumOff, old_w, load_be16(ip + kIpv4TtlOff), false);
  } else {
    ip[kIpv6HopOff] = ttl;
  }
  pc.layers.nw_ttl = ttl;
}
}  // namespace

ActionResult set_mpls_ttl(PacketContext& pc, uint8_t ttl) {
  uint8_t* p = outer_lse(pc);
  if (!p) return ActionResult::kSkipped;
  set_lse_ttl(p, ttl);
  return ActionResult::kOk;
}

ActionResult dec_mpls_ttl(PacketContext& pc) {
  uint8_t* p = outer_lse(pc);
  if (!p) return ActionResult::kSkipped;
  if (p[3] <= 1) return ActionResult::kInvalidTtl;
  p[3] = uint8_t(p[3] - 1);
  return ActionResult::kOk;
}

ActionResult set_nw_ttl(PacketContext& pc, uint8_t ttl) {
  if (!is_ip(pc)) return ActionResult::kSkipped;
  set_ip_ttl(pc, pc.pkt->data() + pc.layers.l3, pc.layers.ipv4, ttl);
  return ActionResult::kOk;
}

ActionResult dec_nw_ttl(PacketContext& pc) {
  if (!is_ip(pc)) return ActionResult::kSkipped;
  if (pc.layers.nw_ttl <= 1) return ActionResult::kInvalidTtl;
  set_ip_ttl(pc, pc.pkt->data() + pc.layers.l3, pc.layers.ipv4, uint8_t(pc.layers.nw_ttl - 1));
  return ActionResult::kOk;
}

ActionResult copy_ttl_out(PacketContext& pc) {
  uint8_t* p = outer_lse(pc);
  if (!p) return ActionResult::kSkipped;
  if (pc.layers.n_mpls > 1) {
    set_lse_ttl(p, p[kMplsLen + 3]);
    return ActionResult::kOk;
  }
  bool v4 = false;
  uint8_t* ip = ip_under_mpls(pc, v4);
  if (!ip) return ActionResult::kSkipped;
  set_lse_ttl(p, v4 ? ip[kIpv4TtlOff] : ip[kIpv6HopOff]);
  return ActionResult::kOk;
}

ActionResult copy_ttl_in(PacketContext& pc) {
  uint8_t* p = outer_lse(pc);
  if (!p) return ActionResult::kSkipped;
  if (pc.layers.n_mpls > 1) {
    p[kMplsLen + 3] = p[3];
    return ActionResult::kOk;
  }
  bool v4 = false;
  uint8_t* ip = ip_under_mpls(pc, v4);
  if (!ip) return ActionResult::kSkipped;
  set_ip_ttl(pc, ip, v4, p[3]);
  return ActionResult::kOk;
}

}  // namespace flowlab::dp

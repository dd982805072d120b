// extract_cache_key (see cache_key.h): the same checks, in the same order, as
// extract() in bpf/fast_path.bpf.c.
#include "kernel/cache_key.h"

#include <cstring>

namespace flowlab::kernel {
namespace {
constexpr size_t kEth = 14;
constexpr uint8_t kTcp = 6, kUdp = 17, kSctp = 132, kIcmp = 1, kIcmpv6 = 58;
}  // namespace

bool extract_cache_key(const uint8_t* p, size_t len, uint32_t ifindex, fl_key& k) {
  std::memset(&k, 0, sizeof k);
  if (len < kEth + 20) return false;
  if (p[12] != 0x08 || p[13] != 0x00) return false;  // IPv4 only (a VLAN tag is in the bytes here)
  const uint8_t* ip = p + kEth;
  if ((ip[0] >> 4) != 4 || (ip[0] & 0xf) < 5) return false;
  size_t ihl = size_t(ip[0] & 0xf) * 4;
  if (len < kEth + ihl) return false;
  if (((ip[6] << 8) | ip[7]) & 0x3fff) return false;  // MF or a fragment offset
  if (ip[9] == kIcmpv6) return false;  // the OpenFlow key reads ICMPv6 fields for it even in IPv4
  std::memcpy(k.eth_dst, p, 6);
  std::memcpy(k.eth_src, p + 6, 6);
  k.ifindex = ifindex;
  std::memcpy(&k.ipv4_src, ip + 12, 4);
  std::memcpy(&k.ipv4_dst, ip + 16, 4);
  k.ip_proto = ip[9];
  k.ip_tos = ip[1];
  const size_t l4 = kEth + ihl;
  if (k.ip_proto == kTcp || k.ip_proto == kUdp || k.ip_proto == kSctp) {
    if (len < l4 + 4) return false;
    std::memcpy(&k.tp_src, p + l4, 2);
    std::memcpy(&k.tp_dst, p + l4 + 2, 2);
  } else if (k.ip_proto == kIcmp) {
    if (len < l4 + 2) return false;
    k.tp_src = p[l4];
    k.tp_dst = p[l4 + 1];
  }
  return true;
}

fl_key cache_mask_of(const FlowKey& m) {
  fl_key k;
  std::memset(&k, 0, sizeof k);
  k.ifindex = 0xffffffffu;
  for (int i = 0; i < 6; ++i) {
    k.eth_dst[i] = m.eth_dst[i];
    k.eth_src[i] = m.eth_src[i];
  }
  const uint32_t src = __builtin_bswap32(m.ipv4_src), dst = __builtin_bswap32(m.ipv4_dst);
  std::memcpy(&k.ipv4_src, &src, 4);  // network order, as the key holds the address
  std::memcpy(&k.ipv4_dst, &dst, 4);
  // tp_src / tp_dst: the port in network order (byte 0 the high byte), or the
  // ICMP type / code in byte 0 (see extract()).
  uint8_t* ts = reinterpret_cast<uint8_t*>(&k.tp_src);
  uint8_t* td = reinterpret_cast<uint8_t*>(&k.tp_dst);
  ts[0] = uint8_t(m.tp_src >> 8) | m.icmp_type;
  ts[1] = uint8_t(m.tp_src);
  td[0] = uint8_t(m.tp_dst >> 8) | m.icmp_code;
  td[1] = uint8_t(m.tp_dst);
  k.ip_proto = m.ip_proto;
  k.ip_tos = uint8_t((m.ip_dscp & 0x3f) << 2 | (m.ip_ecn & 0x3));
  return k;
}

fl_key masked_key(const fl_key& k, const fl_key& mask, uint16_t id) {
  uint64_t a[4], b[4];
  static_assert(sizeof(fl_key) == sizeof a);
  std::memcpy(a, &k, sizeof a);
  std::memcpy(b, &mask, sizeof b);
  for (int i = 0; i < 4; ++i) a[i] &= b[i];
  fl_key out;
  std::memcpy(&out, a, sizeof out);
  out.mask_id = id;
  return out;
}

bool mask_covers(const fl_key& wide, const fl_key& narrow) {
  const auto* w = reinterpret_cast<const uint8_t*>(&wide);
  const auto* n = reinterpret_cast<const uint8_t*>(&narrow);
  for (size_t i = 0; i < sizeof(fl_key); ++i)
    if ((n[i] & ~w[i]) != 0) return false;
  return true;
}

}  // namespace flowlab::kernel

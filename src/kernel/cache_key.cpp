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

}  // namespace flowlab::kernel

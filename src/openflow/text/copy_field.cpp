// Flow text of the copy-field action, ovs-ofctl's syntax:
// `move:SRC[a..b]->DST[c..d]` (also `copy_field:`), a field's name with its
// bits: `[]` all of them, `[n]` one, `[a..b]` bits a through b (bit 0 is the
// value's least significant). Names are the ones ovs-ofctl prints
// (NXM_OF_ETH_SRC, OXM_OF_VLAN_VID, ...) or the OXM and ovs-ofctl field names
// (eth_src, ip_src, tun_id, ...); it prints the first kind, as ovs-ofctl does.
#include <fmt/format.h>

#include <array>

#include "openflow/text/internal.h"

namespace flowlab::of::text {
namespace {

struct CopyFieldName {
  OxmId id;
  std::string_view name;
};

// The names ovs-ofctl 3.1 prints for each field in `move:` (from its
// `parse-flow` output), the OXM name's order.
constexpr std::array<CopyFieldName, 44> kMoveNames{{
    {OxmId::kInPort, "OXM_OF_IN_PORT"},
    {OxmId::kInPhyPort, "OXM_OF_IN_PHY_PORT"},
    {OxmId::kMetadata, "OXM_OF_METADATA"},
    {OxmId::kEthDst, "NXM_OF_ETH_DST"},
    {OxmId::kEthSrc, "NXM_OF_ETH_SRC"},
    {OxmId::kEthType, "NXM_OF_ETH_TYPE"},
    {OxmId::kVlanVid, "OXM_OF_VLAN_VID"},
    {OxmId::kVlanPcp, "OXM_OF_VLAN_PCP"},
    {OxmId::kIpDscp, "OXM_OF_IP_DSCP"},
    {OxmId::kIpEcn, "NXM_NX_IP_ECN"},
    {OxmId::kIpProto, "NXM_OF_IP_PROTO"},
    {OxmId::kIpv4Src, "NXM_OF_IP_SRC"},
    {OxmId::kIpv4Dst, "NXM_OF_IP_DST"},
    {OxmId::kTcpSrc, "NXM_OF_TCP_SRC"},
    {OxmId::kTcpDst, "NXM_OF_TCP_DST"},
    {OxmId::kUdpSrc, "NXM_OF_UDP_SRC"},
    {OxmId::kUdpDst, "NXM_OF_UDP_DST"},
    {OxmId::kSctpSrc, "OXM_OF_SCTP_SRC"},
    {OxmId::kSctpDst, "OXM_OF_SCTP_DST"},
    {OxmId::kIcmpv4Type, "NXM_OF_ICMP_TYPE"},
    {OxmId::kIcmpv4Code, "NXM_OF_ICMP_CODE"},
    {OxmId::kArpOp, "NXM_OF_ARP_OP"},
    {OxmId::kArpSpa, "NXM_OF_ARP_SPA"},
    {OxmId::kArpTpa, "NXM_OF_ARP_TPA"},
    {OxmId::kArpSha, "NXM_NX_ARP_SHA"},
    {OxmId::kArpTha, "NXM_NX_ARP_THA"},
    {OxmId::kIpv6Src, "NXM_NX_IPV6_SRC"},
    {OxmId::kIpv6Dst, "NXM_NX_IPV6_DST"},
    {OxmId::kIpv6Flabel, "NXM_NX_IPV6_LABEL"},
    {OxmId::kIcmpv6Type, "NXM_NX_ICMPV6_TYPE"},
    {OxmId::kIcmpv6Code, "NXM_NX_ICMPV6_CODE"},
    {OxmId::kIpv6NdTarget, "NXM_NX_ND_TARGET"},
    {OxmId::kIpv6NdSll, "NXM_NX_ND_SLL"},
    {OxmId::kIpv6NdTll, "NXM_NX_ND_TLL"},
    {OxmId::kMplsLabel, "OXM_OF_MPLS_LABEL"},
    {OxmId::kMplsTc, "OXM_OF_MPLS_TC"},
    {OxmId::kMplsBos, "OXM_OF_MPLS_BOS"},
    {OxmId::kPbbIsid, "OXM_OF_PBB_ISID"},
    {OxmId::kTunnelId, "NXM_NX_TUN_ID"},
    {OxmId::kIpv6Exthdr, "OXM_OF_IPV6_EXTHDR"},
    {OxmId::kPbbUca, "OXM_OF_PBB_UCA"},
    {OxmId::kTcpFlags, "NXM_NX_TCP_FLAGS"},
    {OxmId::kActsetOutput, "ONFOXM_ET_ACTSET_OUTPUT"},
    {OxmId::kPacketType, "OXM_OF_PACKET_TYPE"},
}};

// ovs-ofctl's names that are neither OXM names nor context-free match keys.
constexpr std::array<CopyFieldName, 9> kAliases{{
    {OxmId::kIpv4Src, "ip_src"},
    {OxmId::kIpv4Dst, "ip_dst"},
    {OxmId::kIpv4Src, "nw_src"},
    {OxmId::kIpv4Dst, "nw_dst"},
    {OxmId::kIcmpv4Type, "icmp_type"},
    {OxmId::kIcmpv4Code, "icmp_code"},
    {OxmId::kIpv6Flabel, "ipv6_label"},
    {OxmId::kTunnelId, "tun_id"},
    {OxmId::kIpProto, "nw_proto"},
}};

std::optional<OxmId> move_field(std::string_view name) {
  for (const auto& n : kMoveNames)
    if (n.name == name) return n.id;
  for (const auto& n : kAliases)
    if (n.name == name) return n.id;
  if (const OxmFieldInfo* info = oxm_info_by_name(name)) return info->id;
  return field_by_name(name);
}

struct Subfield {
  OxmId id{};
  unsigned offset = 0;
  unsigned n_bits = 0;
};

// NAME[], NAME[n] or NAME[a..b].
TResult<Subfield> parse_subfield(std::string_view s, size_t off) {
  const size_t open = s.find('[');
  if (open == std::string_view::npos || s.back() != ']')
    return text_fail(off, fmt::format("'{}': a field needs its bits, e.g. eth_src[] or ip_dst[0..7]", s));
  const std::string_view name = s.substr(0, open);
  const auto id = move_field(name);
  const unsigned bits = id ? field_bits(*id) : 0;
  if (!id || bits == 0) return text_fail(off, fmt::format("unknown field '{}'", name));
  Subfield sf{*id, 0, bits};
  const std::string_view range = s.substr(open + 1, s.size() - open - 2);
  if (range.empty()) return sf;
  const size_t dots = range.find("..");
  const auto lo = parse_uint(range.substr(0, dots), 0xffff);
  const auto hi = dots == std::string_view::npos ? lo : parse_uint(range.substr(dots + 2), 0xffff);
  if (!lo || !hi || *hi < *lo)
    return text_fail(off + open + 1, fmt::format("'{}': bits must be [n] or [a..b] with a <= b", range));
  if (*hi >= bits)
    return text_fail(off + open + 1,
                     fmt::format("{}[{}]: {} has {} bits (0..{})", name, range, name, bits, bits - 1));
  sf.offset = unsigned(*lo);
  sf.n_bits = unsigned(*hi - *lo + 1);
  return sf;
}

uint32_t oxm_id(OxmId id) {
  const OxmFieldInfo* info = oxm_info(id);
  return uint32_t(kOxmClassBasic) << 16 | uint32_t(id) << 9 | (info ? info->length : 0u);
}

std::string format_subfield(uint32_t header, unsigned offset, unsigned n_bits) {
  const bool basic = header >> 16 == kOxmClassBasic && !(header & 0x100);
  const auto id = OxmId(header >> 9 & 0x7f);
  std::string name = fmt::format("OXM(0x{:08x})", header);
  if (basic)
    for (const auto& n : kMoveNames)
      if (n.id == id) name = std::string(n.name);
  if (basic && offset == 0 && n_bits == field_bits(id)) return name + "[]";
  if (n_bits == 1) return fmt::format("{}[{}]", name, offset);
  return fmt::format("{}[{}..{}]", name, offset, offset + n_bits - 1);
}

}  // namespace

TResult<Action> parse_copy_field(std::string_view arg, size_t off) {
  const size_t arrow = arg.find("->");
  if (arrow == std::string_view::npos)
    return text_fail(off, "move needs SRC[bits]->DST[bits], e.g. move:eth_src[]->eth_dst[]");
  auto src = parse_subfield(arg.substr(0, arrow), off);
  if (!src.ok()) return unexpected(std::move(src.error()));
  auto dst = parse_subfield(arg.substr(arrow + 2), off + arrow + 2);
  if (!dst.ok()) return unexpected(std::move(dst.error()));
  if (src->n_bits != dst->n_bits)
    return text_fail(off, fmt::format("move: source has {} bits, destination {}", src->n_bits, dst->n_bits));
  CopyField c;
  c.n_bits = uint16_t(src->n_bits);
  c.src_offset = uint16_t(src->offset);
  c.dst_offset = uint16_t(dst->offset);
  c.src = oxm_id(src->id);
  c.dst = oxm_id(dst->id);
  return Action::copy_field(c);
}

std::string format_copy_field(const CopyField& c) {
  return fmt::format("move:{}->{}", format_subfield(c.src, c.src_offset, c.n_bits),
                     format_subfield(c.dst, c.dst_offset, c.n_bits));
}

}  // namespace flowlab::of::text

// A frame from flow text (see flow_packet.h), through packet/'s FrameBuilder.
#include "openflow/text/flow_packet.h"

#include "openflow/text/flow_text.h"
#include "packet/builder.h"
#include "packet/headers.h"

namespace flowlab::of {
namespace {

constexpr uint16_t kEthTypeLocalExperimental = 0x88b5;
constexpr size_t kPayload = 64;

// A field's value with its mask applied (values already hold no bits outside it).
struct Fields {
  const Match& m;
  bool has(OxmId id) const { return m.find(id) != nullptr; }
  uint64_t u(OxmId id, uint64_t dflt) const {
    const OxmField* f = m.find(id);
    return f ? f->value_u64() : dflt;
  }
  MacAddr mac(OxmId id, MacAddr dflt) const {
    const OxmField* f = m.find(id);
    return f ? MacAddr::from_u64(f->value_u64()) : dflt;
  }
  Ipv6Addr v6(OxmId id, Ipv6Addr dflt) const {
    const OxmField* f = m.find(id);
    if (!f || f->value.size() != 16) return dflt;
    Ipv6Addr a;
    std::copy(f->value.begin(), f->value.end(), a.b.begin());
    return a;
  }
};

Ipv6Addr v6_host(uint8_t last) {
  Ipv6Addr a;
  a.b[0] = 0xfd;
  a.b[15] = last;
  return a;
}

// The transport of an IPv4 or IPv6 packet; false when ip_proto has none the builder knows.
bool add_l4(FrameBuilder& b, const Fields& f, uint8_t proto, bool v6) {
  const auto sport = uint16_t(f.u(OxmId::kTcpSrc, f.u(OxmId::kUdpSrc, f.u(OxmId::kSctpSrc, 49152))));
  const auto dport = uint16_t(f.u(OxmId::kTcpDst, f.u(OxmId::kUdpDst, f.u(OxmId::kSctpDst, 80))));
  switch (proto) {
    case hdr::kProtoTcp:
      b.tcp(sport, dport);
      return true;
    case hdr::kProtoUdp:
      b.udp(sport, dport);
      return true;
    case hdr::kProtoSctp:
      b.sctp(sport, dport);
      return true;
    case hdr::kProtoIcmp:
      if (v6) return false;
      b.icmp(uint8_t(f.u(OxmId::kIcmpv4Type, 8)), uint8_t(f.u(OxmId::kIcmpv4Code, 0)));
      return true;
    case hdr::kProtoIcmpv6: {
      if (!v6) return false;
      const auto type = uint8_t(f.u(OxmId::kIcmpv6Type, 128));
      if (type == 135 || type == 136) {
        const MacAddr ll = f.mac(type == 135 ? OxmId::kIpv6NdSll : OxmId::kIpv6NdTll, MacAddr{});
        b.nd(type, f.v6(OxmId::kIpv6NdTarget, Ipv6Addr{}), ll);
        return true;
      }
      b.icmp(type, uint8_t(f.u(OxmId::kIcmpv6Code, 0)));
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

Result<Bytes> packet_from_match(const Match& m) {
  for (const OxmField& x : m.fields) {
    if (!x.is_basic()) return fail("an experimenter match field cannot be built into a packet");
    switch (x.id()) {
      case OxmId::kMetadata:
      case OxmId::kTunnelId:
      case OxmId::kInPhyPort:
      case OxmId::kPbbIsid:
      case OxmId::kPbbUca:
      case OxmId::kIpv6Exthdr:
      case OxmId::kMplsBos:
        return fail("field '{}' cannot be built into a packet", oxm_info(x.id())->name);
      default:
        break;
    }
  }
  const Fields f{m};
  const MacAddr src = f.mac(OxmId::kEthSrc, MacAddr::from_u64(1));
  const MacAddr dst = f.mac(OxmId::kEthDst, MacAddr::from_u64(2));
  FrameBuilder b;
  b.eth(dst, src);
  const auto vid = uint16_t(f.u(OxmId::kVlanVid, 0));
  if (vid & kVlanPresent) b.vlan(vid & hdr::kVlanVidMask, uint8_t(f.u(OxmId::kVlanPcp, 0)));
  const auto type = uint16_t(f.u(OxmId::kEthType, kEthTypeLocalExperimental));
  if (hdr::is_mpls_type(type)) {
    b.mpls(uint32_t(f.u(OxmId::kMplsLabel, 0)), uint8_t(f.u(OxmId::kMplsTc, 0)));
    b.ipv4(Ipv4Addr{0x0a000001}, Ipv4Addr{0x0a000002}).udp(49152, 80).payload(kPayload);
    return b.build();
  }
  const auto tos = uint8_t(f.u(OxmId::kIpDscp, 0) << 2 | (f.u(OxmId::kIpEcn, 0) & 3));
  const bool has_proto = f.has(OxmId::kIpProto);
  const auto proto = uint8_t(f.u(OxmId::kIpProto, 0));
  size_t proto_off = 0;  // the IP protocol byte to patch when the builder has no such transport
  bool v4 = false;
  switch (type) {
    case hdr::kEthTypeIpv4:
      b.ipv4(Ipv4Addr{uint32_t(f.u(OxmId::kIpv4Src, 0x0a000001))},
             Ipv4Addr{uint32_t(f.u(OxmId::kIpv4Dst, 0x0a000002))}, 64, tos);
      v4 = true;
      if (!has_proto)
        b.icmp(8, 0);
      else if (!add_l4(b, f, proto, false))
        proto_off = hdr::kIpv4ProtoOff;
      break;
    case hdr::kEthTypeIpv6:
      b.ipv6(f.v6(OxmId::kIpv6Src, v6_host(1)), f.v6(OxmId::kIpv6Dst, v6_host(2)), 64, tos,
             uint32_t(f.u(OxmId::kIpv6Flabel, 0)));
      if (!has_proto)
        b.icmp(128, 0);
      else if (!add_l4(b, f, proto, true))
        proto_off = hdr::kIpv6NextOff;
      break;
    case hdr::kEthTypeArp:
      b.arp(uint16_t(f.u(OxmId::kArpOp, hdr::kArpRequest)), f.mac(OxmId::kArpSha, src),
            Ipv4Addr{uint32_t(f.u(OxmId::kArpSpa, 0x0a000001))}, f.mac(OxmId::kArpTha, MacAddr{}),
            Ipv4Addr{uint32_t(f.u(OxmId::kArpTpa, 0x0a000002))});
      break;
    default:
      b.eth_type(type);
      break;
  }
  b.payload(kPayload);
  Bytes frame = b.build();
  if (proto_off) {
    const size_t l3 = hdr::kEthAddrsLen + 2 + ((vid & kVlanPresent) ? 4 : 0);
    if (l3 + proto_off < frame.size()) {
      frame[l3 + proto_off] = proto;
      if (v4) store_be16(frame.data() + l3 + hdr::kIpv4CsumOff, ipv4_header_checksum(frame.data(), l3));
    }
  }
  return frame;
}

Result<FlowPacket> packet_from_flow_text(std::string_view text) {
  FlowParseOptions o;
  o.allow_actions = false;
  o.default_table = 0;
  auto fm = parse_flow_mod(text, o);
  if (!fm.ok()) return unexpected(fm.error());
  FlowPacket p;
  if (const OxmField* in = fm->match.find(OxmId::kInPort)) p.in_port = uint32_t(in->value_u64());
  FLOWLAB_ASSIGN_OR_RETURN(p.frame, packet_from_match(fm->match));
  return p;
}

}  // namespace flowlab::of

// OpenFlow 1.0 ofp_match (fixed 40 bytes) <-> the model's OXM field list.
//
// Idea: each non-wildcarded ofp_match field becomes one OXM field, in OXM
// order; the encoder walks the OXM list and fills the fixed structure.
//   - nw_src/nw_dst carry a wildcard bit count n (0..63): n >= 32 means "any",
//     otherwise the OXM field is masked with the /32-n prefix (exact when n = 0).
//   - dl_vlan 0xffff (OFP_VLAN_NONE) <-> vlan_vid OFPVID_NONE; a vid v <-> v|0x1000.
//   - nw_tos <-> ip_dscp (tos >> 2).
//   - With dl_type = 0x0806, nw_proto/nw_src/nw_dst are arp_op/arp_spa/arp_tpa.
//   - tp_src/tp_dst become tcp/udp/sctp ports or icmpv4 type/code depending on
//     nw_proto; with another or no nw_proto they are kept as tcp_src/tcp_dst.
// Invariants: decode(encode(m)) == m for every match the encoder accepts, and
// encode(decode(b)) == b for every canonical ofp_match b (wildcarded fields zero).
// The decoded wildcards word is remembered in Match::of10_wildcards and reused
// on encode when it agrees with the fields, so non-canonical but equivalent
// spellings (nw_src count 63 instead of 32) survive a round trip.
#include <fmt/format.h>

#include "openflow/of10/wire.h"

namespace flowlab::of::of10 {
namespace {

constexpr uint32_t kWcInPort = 1u << 0;
constexpr uint32_t kWcDlVlan = 1u << 1;
constexpr uint32_t kWcDlSrc = 1u << 2;
constexpr uint32_t kWcDlDst = 1u << 3;
constexpr uint32_t kWcDlType = 1u << 4;
constexpr uint32_t kWcNwProto = 1u << 5;
constexpr uint32_t kWcTpSrc = 1u << 6;
constexpr uint32_t kWcTpDst = 1u << 7;
constexpr int kNwSrcShift = 8;
constexpr int kNwDstShift = 14;
constexpr uint32_t kWcDlVlanPcp = 1u << 20;
constexpr uint32_t kWcNwTos = 1u << 21;
constexpr uint32_t kWcSingleBits = kWcInPort | kWcDlVlan | kWcDlSrc | kWcDlDst | kWcDlType | kWcNwProto |
                                   kWcTpSrc | kWcTpDst | kWcDlVlanPcp | kWcNwTos;
constexpr uint16_t kVlanNone10 = 0xffff;  // OFP_VLAN_NONE
constexpr uint16_t kEthArp = 0x0806;

uint32_t nw_bits(uint32_t wc, int shift) { return (wc >> shift) & 0x3f; }
uint32_t clamp32(uint32_t n) { return n > 32 ? 32 : n; }

// The OXM ids tp_src/tp_dst decode to for a given nw_proto (or none).
struct TpIds {
  OxmId src, dst;
};
TpIds tp_ids(bool have_proto, uint8_t proto) {
  if (have_proto) {
    switch (proto) {
      case 17:
        return {OxmId::kUdpSrc, OxmId::kUdpDst};
      case 132:
        return {OxmId::kSctpSrc, OxmId::kSctpDst};
      case 1:
        return {OxmId::kIcmpv4Type, OxmId::kIcmpv4Code};
      default:
        break;
    }
  }
  return {OxmId::kTcpSrc, OxmId::kTcpDst};
}

OxmField nw_field(OxmId id, uint32_t addr, uint32_t wc_bits) {
  if (wc_bits == 0) return OxmField::basic(id, addr);
  return OxmField::basic_masked(id, addr, 0xffffffffu << wc_bits);
}

}  // namespace

Result<Match, OfError> decode_match(ByteReader& r) {
  const size_t start = r.offset();
  if (r.remaining() < kMatchLen) return unexpected(truncated(r, "ofp_match", kMatchLen));
  uint32_t wc = 0, nw_src = 0, nw_dst = 0;
  uint16_t in_port = 0, dl_vlan = 0, dl_type = 0, tp_src = 0, tp_dst = 0;
  uint8_t pcp = 0, tos = 0, proto = 0;
  ByteSpan dl_src, dl_dst;
  r.u32(wc);
  r.u16(in_port);
  r.bytes(6, dl_src);
  r.bytes(6, dl_dst);
  r.u16(dl_vlan);
  r.u8(pcp);
  r.skip(1);
  r.u16(dl_type);
  r.u8(tos);
  r.u8(proto);
  r.skip(2);
  r.u32(nw_src);
  r.u32(nw_dst);
  r.u16(tp_src);
  r.u16(tp_dst);

  Match m;
  m.of10_wildcards = wc;
  if (!(wc & kWcInPort)) m.add(OxmField::basic(OxmId::kInPort, widen_port(in_port)));
  if (!(wc & kWcDlDst)) m.add(OxmField::basic_bytes(OxmId::kEthDst, dl_dst));
  if (!(wc & kWcDlSrc)) m.add(OxmField::basic_bytes(OxmId::kEthSrc, dl_src));
  if (!(wc & kWcDlType)) m.add(OxmField::basic(OxmId::kEthType, dl_type));
  if (!(wc & kWcDlVlan)) {
    if (dl_vlan == kVlanNone10) {
      m.add(OxmField::basic(OxmId::kVlanVid, kVlanNone));
    } else if (dl_vlan > 0xfff) {
      return unexpected(err_at(BadMatchCode::kBadValue, start + 18,
                               fmt::format("ofp_match: dl_vlan {} is not a VLAN id (0..4095 or "
                                           "0xffff)",
                                           dl_vlan)));
    } else {
      m.add(OxmField::basic(OxmId::kVlanVid, dl_vlan | kVlanPresent));
    }
  }
  if (!(wc & kWcDlVlanPcp)) {
    if (pcp > 7)
      return unexpected(
          err_at(BadMatchCode::kBadValue, start + 20, fmt::format("ofp_match: dl_vlan_pcp {} > 7", pcp)));
    m.add(OxmField::basic(OxmId::kVlanPcp, pcp));
  }
  const bool arp = !(wc & kWcDlType) && dl_type == kEthArp;
  if (!(wc & kWcNwTos)) m.add(OxmField::basic(OxmId::kIpDscp, tos >> 2));
  if (!(wc & kWcNwProto)) m.add(OxmField::basic(arp ? OxmId::kArpOp : OxmId::kIpProto, proto));
  const uint32_t src_bits = nw_bits(wc, kNwSrcShift), dst_bits = nw_bits(wc, kNwDstShift);
  if (src_bits < 32) m.add(nw_field(arp ? OxmId::kArpSpa : OxmId::kIpv4Src, nw_src, src_bits));
  if (dst_bits < 32) m.add(nw_field(arp ? OxmId::kArpTpa : OxmId::kIpv4Dst, nw_dst, dst_bits));
  const TpIds ids = tp_ids(!(wc & kWcNwProto) && !arp, proto);
  const bool icmp = ids.src == OxmId::kIcmpv4Type;
  if (icmp && ((!(wc & kWcTpSrc) && tp_src > 0xff) || (!(wc & kWcTpDst) && tp_dst > 0xff)))
    return unexpected(err_at(BadMatchCode::kBadValue, start + 36,
                             "ofp_match: ICMP type/code (tp_src/tp_dst) must be < 256"));
  if (!(wc & kWcTpSrc)) m.add(OxmField::basic(ids.src, tp_src));
  if (!(wc & kWcTpDst)) m.add(OxmField::basic(ids.dst, tp_dst));
  return m;
}

namespace {

// Whether a (possibly masked) field is in fact exact: no mask, or all mask
// bits of the field's width set.
bool is_exact(const OxmField& f, uint64_t width_mask) {
  return !f.has_mask || (f.mask_u64() & width_mask) == width_mask;
}

}  // namespace

EncodeStatus encode_match(const Match& m, ByteWriter& w) {
  uint32_t wc = kWcSingleBits | (32u << kNwSrcShift) | (32u << kNwDstShift);
  uint16_t in_port = 0, dl_vlan = 0, dl_type = 0, tp_src = 0, tp_dst = 0;
  uint8_t pcp = 0, tos = 0, proto = 0;
  uint32_t nw_src = 0, nw_dst = 0;
  MacAddr dl_src, dl_dst;
  uint32_t seen = 0;  // one bit per ofp_match slot, to catch two fields for one slot

  // Context needed to keep decode(encode(m)) == m.
  const OxmField* eth_type = m.find(OxmId::kEthType);
  const bool arp = eth_type && is_exact(*eth_type, 0xffff) && eth_type->value_u64() == kEthArp;
  const OxmField* ip_proto = m.find(OxmId::kIpProto);
  const int proto_val = ip_proto ? static_cast<int>(ip_proto->value_u64()) : -1;

  auto fail_match = [](BadMatchCode c, std::string msg) {
    return EncodeStatus(unexpected(OfError::make(c, "OF1.0 match: " + std::move(msg))));
  };

  for (const OxmField& f : m.fields) {
    if (!f.is_basic())
      return fail_match(BadMatchCode::kBadField,
                        fmt::format("no OXM class 0x{:04x} fields in OF1.0", f.oxm_class));
    const OxmFieldInfo* info = oxm_info(f.id());
    if (!info) return fail_match(BadMatchCode::kBadField, fmt::format("unknown OXM field {}", f.field));
    if (f.value.size() != info->length || (f.has_mask && f.mask.size() != info->length))
      return fail_match(BadMatchCode::kBadLen,
                        fmt::format("{} value must be {} bytes", info->name, info->length));
    const uint64_t v = f.value_u64();
    const uint64_t width = info->length >= 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * info->length)) - 1;

    // Which slot the field fills, and whether OF1.0 can express its mask.
    uint32_t slot = 0;
    const bool nw =
        f.is(OxmId::kIpv4Src) || f.is(OxmId::kIpv4Dst) || f.is(OxmId::kArpSpa) || f.is(OxmId::kArpTpa);
    if (!nw && !is_exact(f, f.is(OxmId::kVlanVid) ? 0x1fff : width))
      return fail_match(f.is(OxmId::kEthSrc) || f.is(OxmId::kEthDst) ? BadMatchCode::kBadDlAddrMask
                                                                     : BadMatchCode::kBadMask,
                        fmt::format("cannot match {} with a mask", info->name));
    switch (f.id()) {
      case OxmId::kInPort: {
        slot = kWcInPort;
        if (!narrow_port(static_cast<uint32_t>(v), in_port))
          return fail_match(BadMatchCode::kBadValue,
                            fmt::format("in_port {} does not fit OF1.0's 16-bit ports", v));
        break;
      }
      case OxmId::kEthDst:
        slot = kWcDlDst;
        dl_dst = MacAddr::from_u64(v);
        break;
      case OxmId::kEthSrc:
        slot = kWcDlSrc;
        dl_src = MacAddr::from_u64(v);
        break;
      case OxmId::kEthType:
        slot = kWcDlType;
        dl_type = static_cast<uint16_t>(v);
        break;
      case OxmId::kVlanVid:
        slot = kWcDlVlan;
        if ((v & 0x1fff) == kVlanNone) {
          dl_vlan = kVlanNone10;
        } else if (v & kVlanPresent) {
          dl_vlan = static_cast<uint16_t>(v & 0xfff);
        } else {
          return fail_match(BadMatchCode::kBadValue,
                            fmt::format("vlan_vid 0x{:x} lacks OFPVID_PRESENT (0x1000)", v));
        }
        break;
      case OxmId::kVlanPcp:
        slot = kWcDlVlanPcp;
        pcp = static_cast<uint8_t>(v);
        break;
      case OxmId::kIpDscp:
        slot = kWcNwTos;
        if (v > 63) return fail_match(BadMatchCode::kBadValue, fmt::format("ip_dscp {} > 63", v));
        tos = static_cast<uint8_t>(v << 2);
        break;
      case OxmId::kIpProto:
      case OxmId::kArpOp:
        slot = kWcNwProto;
        if (f.is(OxmId::kArpOp) != arp)
          return fail_match(BadMatchCode::kBadPrereq,
                            f.is(OxmId::kArpOp) ? "arp_op needs eth_type=0x0806"
                                                : "ip_proto cannot be matched with eth_type=0x0806");
        if (v > 0xff)
          return fail_match(BadMatchCode::kBadValue, fmt::format("arp_op {} > 255 (OF1.0 has 8 bits)", v));
        proto = static_cast<uint8_t>(v);
        break;
      case OxmId::kIpv4Src:
      case OxmId::kIpv4Dst:
      case OxmId::kArpSpa:
      case OxmId::kArpTpa: {
        const bool is_src = f.is(OxmId::kIpv4Src) || f.is(OxmId::kArpSpa);
        const bool is_arp = f.is(OxmId::kArpSpa) || f.is(OxmId::kArpTpa);
        if (is_arp != arp)
          return fail_match(BadMatchCode::kBadPrereq,
                            is_arp ? fmt::format("{} needs eth_type=0x0806", info->name)
                                   : fmt::format("{} cannot be matched with eth_type=0x0806", info->name));
        const uint32_t mask = static_cast<uint32_t>(f.mask_u64());
        const uint32_t n = 32 - static_cast<uint32_t>(__builtin_popcount(mask));
        if (mask != (n == 32 ? 0u : 0xffffffffu << n))
          return fail_match(
              BadMatchCode::kBadNwAddrMask,
              fmt::format("{} mask {} is not a prefix", info->name, Ipv4Addr{mask}.to_string()));
        slot = is_src ? (1u << 30) : (1u << 31);  // private slot bits, not wildcard bits
        const int shift = is_src ? kNwSrcShift : kNwDstShift;
        wc = (wc & ~(0x3fu << shift)) | (n << shift);
        (is_src ? nw_src : nw_dst) = static_cast<uint32_t>(v);
        break;
      }
      case OxmId::kTcpSrc:
      case OxmId::kTcpDst:
      case OxmId::kUdpSrc:
      case OxmId::kUdpDst:
      case OxmId::kSctpSrc:
      case OxmId::kSctpDst:
      case OxmId::kIcmpv4Type:
      case OxmId::kIcmpv4Code: {
        const bool is_src =
            f.is(OxmId::kTcpSrc) || f.is(OxmId::kUdpSrc) || f.is(OxmId::kSctpSrc) || f.is(OxmId::kIcmpv4Type);
        const TpIds ids = tp_ids(proto_val >= 0 && !arp, static_cast<uint8_t>(proto_val));
        if (f.id() != (is_src ? ids.src : ids.dst))
          return fail_match(BadMatchCode::kBadPrereq,
                            fmt::format("{} needs the matching ip_proto", info->name));
        slot = is_src ? kWcTpSrc : kWcTpDst;
        (is_src ? tp_src : tp_dst) = static_cast<uint16_t>(v);
        break;
      }
      default:
        return fail_match(BadMatchCode::kBadField, fmt::format("OF1.0 cannot match on {}", info->name));
    }
    if (seen & slot)
      return fail_match(BadMatchCode::kDupField,
                        fmt::format("{} fills an ofp_match field already set", info->name));
    seen |= slot;
    wc &= ~(slot & kWcSingleBits);
  }

  // Reuse the decoded spelling of the wildcards when it means the same thing.
  const uint32_t hint = m.of10_wildcards;
  if (hint != 0 && (hint & kWcSingleBits) == (wc & kWcSingleBits) &&
      clamp32(nw_bits(hint, kNwSrcShift)) == nw_bits(wc, kNwSrcShift) &&
      clamp32(nw_bits(hint, kNwDstShift)) == nw_bits(wc, kNwDstShift))
    wc = hint;

  w.u32(wc);
  w.u16(in_port);
  w.bytes(dl_src.b.data(), 6);
  w.bytes(dl_dst.b.data(), 6);
  w.u16(dl_vlan);
  w.u8(pcp);
  w.zeros(1);
  w.u16(dl_type);
  w.u8(tos);
  w.u8(proto);
  w.zeros(2);
  w.u32(nw_src);
  w.u32(nw_dst);
  w.u16(tp_src);
  w.u16(tp_dst);
  return {};
}

}  // namespace flowlab::of::of10

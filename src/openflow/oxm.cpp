// OXM basic-class field table, OxmField builders and OF1.3 match validation.
//
// validate_match() applies the checks of OF1.3 §7.2.3: known field, value length,
// masks only where the field is maskable, no value bits outside the mask, no
// duplicates, value ranges, and the prerequisites of table 12 (e.g. tcp_dst needs
// ip_proto=6, which in turn needs eth_type=0x0800 or 0x86dd). A prerequisite is
// satisfied only by an exact (unmasked or all-ones mask) field with an allowed
// value; the list order is not checked.
#include "openflow/oxm.h"

#include <fmt/format.h>

#include <array>
#include <initializer_list>

#include "openflow/oxm_limits.h"

namespace flowlab::of {
namespace {

constexpr std::array<OxmFieldInfo, kNumBasicOxm> kFields = {{
    {OxmId::kInPort, "in_port", 4, false},
    {OxmId::kInPhyPort, "in_phy_port", 4, false},
    {OxmId::kMetadata, "metadata", 8, true},
    {OxmId::kEthDst, "eth_dst", 6, true},
    {OxmId::kEthSrc, "eth_src", 6, true},
    {OxmId::kEthType, "eth_type", 2, false},
    {OxmId::kVlanVid, "vlan_vid", 2, true},
    {OxmId::kVlanPcp, "vlan_pcp", 1, false},
    {OxmId::kIpDscp, "ip_dscp", 1, false},
    {OxmId::kIpEcn, "ip_ecn", 1, false},
    {OxmId::kIpProto, "ip_proto", 1, false},
    {OxmId::kIpv4Src, "ipv4_src", 4, true},
    {OxmId::kIpv4Dst, "ipv4_dst", 4, true},
    {OxmId::kTcpSrc, "tcp_src", 2, false},
    {OxmId::kTcpDst, "tcp_dst", 2, false},
    {OxmId::kUdpSrc, "udp_src", 2, false},
    {OxmId::kUdpDst, "udp_dst", 2, false},
    {OxmId::kSctpSrc, "sctp_src", 2, false},
    {OxmId::kSctpDst, "sctp_dst", 2, false},
    {OxmId::kIcmpv4Type, "icmpv4_type", 1, false},
    {OxmId::kIcmpv4Code, "icmpv4_code", 1, false},
    {OxmId::kArpOp, "arp_op", 2, false},
    {OxmId::kArpSpa, "arp_spa", 4, true},
    {OxmId::kArpTpa, "arp_tpa", 4, true},
    {OxmId::kArpSha, "arp_sha", 6, true},
    {OxmId::kArpTha, "arp_tha", 6, true},
    {OxmId::kIpv6Src, "ipv6_src", 16, true},
    {OxmId::kIpv6Dst, "ipv6_dst", 16, true},
    {OxmId::kIpv6Flabel, "ipv6_flabel", 4, true},
    {OxmId::kIcmpv6Type, "icmpv6_type", 1, false},
    {OxmId::kIcmpv6Code, "icmpv6_code", 1, false},
    {OxmId::kIpv6NdTarget, "ipv6_nd_target", 16, false},
    {OxmId::kIpv6NdSll, "ipv6_nd_sll", 6, false},
    {OxmId::kIpv6NdTll, "ipv6_nd_tll", 6, false},
    {OxmId::kMplsLabel, "mpls_label", 4, false},
    {OxmId::kMplsTc, "mpls_tc", 1, false},
    {OxmId::kMplsBos, "mpls_bos", 1, false},
    {OxmId::kPbbIsid, "pbb_isid", 3, true},
    {OxmId::kTunnelId, "tunnel_id", 8, true},
    {OxmId::kIpv6Exthdr, "ipv6_exthdr", 2, true},
    {OxmId(40), "", 0, false},  // unassigned
    {OxmId::kPbbUca, "pbb_uca", 1, false},
    {OxmId::kTcpFlags, "tcp_flags", 2, true},
    {OxmId::kActsetOutput, "actset_output", 4, false},
    {OxmId::kPacketType, "packet_type", 4, false},
}};

uint64_t be_value(const Bytes& b) {
  uint64_t v = 0;
  for (size_t i = 0; i < b.size() && i < 8; ++i) v = v << 8 | b[i];
  return v;
}

Bytes be_bytes(uint64_t v, size_t len) {
  Bytes b(len, 0);
  for (size_t i = 0; i < len && i < 8; ++i) b[len - 1 - i] = uint8_t(v >> (8 * i));
  return b;
}

size_t field_len(OxmId id) {
  const OxmFieldInfo* info = oxm_info(id);
  return info ? info->length : 0;
}

// An exact match on `id` whose value is one of `allowed`.
bool exact_is(const Match& m, OxmId id, std::initializer_list<uint64_t> allowed) {
  const OxmField* f = m.find(id);
  if (!f) return false;
  if (f->has_mask) {
    for (uint8_t b : f->mask)
      if (b != 0xff) return false;
  }
  uint64_t v = f->value_u64();
  for (uint64_t a : allowed)
    if (v == a) return true;
  return false;
}

constexpr uint64_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86dd, kEthArp = 0x0806;
constexpr uint64_t kEthMpls = 0x8847, kEthMplsMc = 0x8848, kEthPbb = 0x88e7;

// Empty string when the prerequisite of `id` holds, else what is missing.
std::string prereq_missing(const Match& m, OxmId id) {
  auto need_eth = [&](std::initializer_list<uint64_t> types, const char* what) -> std::string {
    return exact_is(m, OxmId::kEthType, types) ? std::string() : std::string(what);
  };
  auto need_ip_proto = [&](uint64_t proto) -> std::string {
    if (!exact_is(m, OxmId::kEthType, {kEthIpv4, kEthIpv6})) return "eth_type=0x0800 or 0x86dd";
    if (!exact_is(m, OxmId::kIpProto, {proto})) return fmt::format("ip_proto={}", proto);
    return {};
  };
  switch (id) {
    case OxmId::kInPhyPort:
      return m.find(OxmId::kInPort) ? std::string() : std::string("in_port");
    case OxmId::kVlanPcp: {
      const OxmField* v = m.find(OxmId::kVlanVid);
      if (!v || !(v->value_u64() & kVlanPresent)) return "vlan_vid with OFPVID_PRESENT";
      return {};
    }
    case OxmId::kIpDscp:
    case OxmId::kIpEcn:
    case OxmId::kIpProto:
      return need_eth({kEthIpv4, kEthIpv6}, "eth_type=0x0800 or 0x86dd");
    case OxmId::kIpv4Src:
    case OxmId::kIpv4Dst:
      return need_eth({kEthIpv4}, "eth_type=0x0800");
    case OxmId::kTcpSrc:
    case OxmId::kTcpDst:
    case OxmId::kTcpFlags:
      return need_ip_proto(6);
    case OxmId::kUdpSrc:
    case OxmId::kUdpDst:
      return need_ip_proto(17);
    case OxmId::kSctpSrc:
    case OxmId::kSctpDst:
      return need_ip_proto(132);
    case OxmId::kIcmpv4Type:
    case OxmId::kIcmpv4Code:
      if (!exact_is(m, OxmId::kEthType, {kEthIpv4})) return "eth_type=0x0800";
      return exact_is(m, OxmId::kIpProto, {1}) ? std::string() : std::string("ip_proto=1");
    case OxmId::kArpOp:
    case OxmId::kArpSpa:
    case OxmId::kArpTpa:
    case OxmId::kArpSha:
    case OxmId::kArpTha:
      return need_eth({kEthArp}, "eth_type=0x0806");
    case OxmId::kIpv6Src:
    case OxmId::kIpv6Dst:
    case OxmId::kIpv6Flabel:
    case OxmId::kIpv6Exthdr:
      return need_eth({kEthIpv6}, "eth_type=0x86dd");
    case OxmId::kIcmpv6Type:
    case OxmId::kIcmpv6Code:
      if (!exact_is(m, OxmId::kEthType, {kEthIpv6})) return "eth_type=0x86dd";
      return exact_is(m, OxmId::kIpProto, {58}) ? std::string() : std::string("ip_proto=58");
    case OxmId::kIpv6NdTarget:
    case OxmId::kIpv6NdSll:
    case OxmId::kIpv6NdTll: {
      if (!exact_is(m, OxmId::kEthType, {kEthIpv6})) return "eth_type=0x86dd";
      if (!exact_is(m, OxmId::kIpProto, {58})) return "ip_proto=58";
      if (id == OxmId::kIpv6NdSll) return exact_is(m, OxmId::kIcmpv6Type, {135}) ? "" : "icmpv6_type=135";
      if (id == OxmId::kIpv6NdTll) return exact_is(m, OxmId::kIcmpv6Type, {136}) ? "" : "icmpv6_type=136";
      return exact_is(m, OxmId::kIcmpv6Type, {135, 136}) ? "" : "icmpv6_type=135 or 136";
    }
    case OxmId::kMplsLabel:
    case OxmId::kMplsTc:
    case OxmId::kMplsBos:
      return need_eth({kEthMpls, kEthMplsMc}, "eth_type=0x8847 or 0x8848");
    case OxmId::kPbbIsid:
    case OxmId::kPbbUca:
      return need_eth({kEthPbb}, "eth_type=0x88e7");
    default:
      return {};
  }
}

}  // namespace

ValueKind value_kind(OxmId id) {
  switch (id) {
    case OxmId::kEthDst:
    case OxmId::kEthSrc:
    case OxmId::kArpSha:
    case OxmId::kArpTha:
    case OxmId::kIpv6NdSll:
    case OxmId::kIpv6NdTll:
      return ValueKind::kMac;
    case OxmId::kIpv4Src:
    case OxmId::kIpv4Dst:
    case OxmId::kArpSpa:
    case OxmId::kArpTpa:
      return ValueKind::kIpv4;
    case OxmId::kIpv6Src:
    case OxmId::kIpv6Dst:
    case OxmId::kIpv6NdTarget:
      return ValueKind::kIpv6;
    case OxmId::kInPort:
    case OxmId::kInPhyPort:
    case OxmId::kActsetOutput:
      return ValueKind::kPort;
    default:
      return ValueKind::kUint;
  }
}

const OxmFieldInfo* oxm_info(OxmId id) {
  auto i = static_cast<size_t>(id);
  return i < kFields.size() && kFields[i].length ? &kFields[i] : nullptr;
}

unsigned field_bits(OxmId id) {
  switch (id) {
    case OxmId::kVlanVid:
      return 13;  // VID and OFPVID_PRESENT
    case OxmId::kVlanPcp:
    case OxmId::kMplsTc:
      return 3;
    case OxmId::kIpDscp:
      return 6;
    case OxmId::kIpEcn:
      return 2;
    case OxmId::kIpv6Flabel:
    case OxmId::kMplsLabel:
      return 20;
    case OxmId::kMplsBos:
    case OxmId::kPbbUca:
      return 1;
    case OxmId::kIpv6Exthdr:
      return 9;
    case OxmId::kTcpFlags:
      return 12;
    default: {
      const OxmFieldInfo* info = oxm_info(id);
      return info ? 8u * info->length : 0;
    }
  }
}

const OxmFieldInfo* oxm_info_by_name(std::string_view name) {
  for (const auto& f : kFields)
    if (f.length && f.name == name) return &f;
  return nullptr;
}

uint64_t OxmField::value_u64() const {
  // Experimenter-class values start with the 4-byte experimenter id.
  if (oxm_class == kOxmClassExperimenter && value.size() >= 4)
    return be_value(Bytes(value.begin() + 4, value.end()));
  return be_value(value);
}

uint64_t OxmField::mask_u64() const {
  if (!has_mask) return ~uint64_t{0};
  if (oxm_class == kOxmClassExperimenter && mask.size() >= 4)
    return be_value(Bytes(mask.begin() + 4, mask.end()));
  return be_value(mask);
}

OxmField OxmField::basic(OxmId id, uint64_t value) {
  OxmField f;
  f.field = static_cast<uint8_t>(id);
  f.value = be_bytes(value, field_len(id));
  return f;
}

OxmField OxmField::basic_masked(OxmId id, uint64_t value, uint64_t mask) {
  OxmField f = basic(id, value);
  f.has_mask = true;
  f.mask = be_bytes(mask, field_len(id));
  return f;
}

OxmField OxmField::basic_bytes(OxmId id, ByteSpan value) {
  OxmField f;
  f.field = static_cast<uint8_t>(id);
  f.value.assign(value.begin(), value.end());
  return f;
}

OxmField OxmField::basic_bytes_masked(OxmId id, ByteSpan value, ByteSpan mask) {
  OxmField f = basic_bytes(id, value);
  f.has_mask = true;
  f.mask.assign(mask.begin(), mask.end());
  return f;
}

std::optional<OxmField> onf_pbb_uca_as_basic(const OxmField& f) {
  if (f.oxm_class != kOxmClassExperimenter || f.field != 0 || f.value.size() != 7) return std::nullopt;
  if (load_be32(f.value.data()) != kOnfExperimenterId || load_be16(f.value.data() + 4) != kOnfExtPbbUca)
    return std::nullopt;
  if (f.has_mask) return std::nullopt;
  return OxmField::basic(OxmId::kPbbUca, f.value[6]);
}

std::optional<OfError> validate_match(const Match& in) {
  // EXT-256 pbb_uca is checked (prerequisite included) as the basic field.
  Match canon;
  const Match* mp = &in;
  for (const OxmField& f : in.fields)
    if (onf_pbb_uca_as_basic(f)) {
      canon = in;
      for (OxmField& g : canon.fields)
        if (auto b = onf_pbb_uca_as_basic(g)) g = *b;
      mp = &canon;
      break;
    }
  const Match& m = *mp;
  uint64_t seen = 0;  // bit n = basic field n already present
  size_t offset = 0;  // byte offset of the field within the OXM list
  for (const OxmField& f : m.fields) {
    size_t here = offset;
    offset += 4 + f.value.size() + f.mask.size();
    if (!f.is_basic())
      return OfError::make(BadMatchCode::kBadField,
                           fmt::format("unsupported OXM class 0x{:04x}", f.oxm_class), here);
    const OxmFieldInfo* info = oxm_info(f.id());
    if (!info)
      return OfError::make(BadMatchCode::kBadField, fmt::format("unknown OXM field {}", f.field), here);
    if (f.value.size() != info->length || (f.has_mask && f.mask.size() != info->length) ||
        (!f.has_mask && !f.mask.empty()))
      return OfError::make(BadMatchCode::kBadLen,
                           fmt::format("{}: value length {} != {}", info->name, f.value.size(), info->length),
                           here);
    if (f.has_mask && !info->maskable)
      return OfError::make(BadMatchCode::kBadMask, fmt::format("{} cannot be masked", info->name), here);
    if (seen & (uint64_t{1} << f.field))
      return OfError::make(BadMatchCode::kDupField, fmt::format("{} appears twice", info->name), here);
    seen |= uint64_t{1} << f.field;
    if (f.has_mask) {
      for (size_t i = 0; i < f.value.size(); ++i)
        if (f.value[i] & ~f.mask[i])
          return OfError::make(BadMatchCode::kBadWildcards,
                               fmt::format("{}: value has bits set outside the mask", info->name), here);
    }
    uint64_t limit = oxm_max_value(f.id());
    if (limit && f.value_u64() > limit)
      return OfError::make(BadMatchCode::kBadValue,
                           fmt::format("{}: value 0x{:x} > 0x{:x}", info->name, f.value_u64(), limit), here);
  }
  offset = 0;
  for (const OxmField& f : m.fields) {
    size_t here = offset;
    offset += 4 + f.value.size() + f.mask.size();
    std::string missing = prereq_missing(m, f.id());
    if (!missing.empty())
      return OfError::make(BadMatchCode::kBadPrereq,
                           fmt::format("{} needs {}", oxm_info(f.id())->name, missing), here);
  }
  return std::nullopt;
}

uint64_t oxm_max_value(OxmId id) {
  switch (id) {
    case OxmId::kVlanVid:
      return 0x1fff;
    case OxmId::kVlanPcp:
      return 7;
    case OxmId::kIpDscp:
      return 63;
    case OxmId::kIpEcn:
      return 3;
    case OxmId::kIpv6Flabel:
      return 0xfffff;
    case OxmId::kMplsLabel:
      return 0xfffff;
    case OxmId::kMplsTc:
      return 7;
    case OxmId::kMplsBos:
    case OxmId::kPbbUca:
      return 1;
    case OxmId::kIpv6Exthdr:
      return 0x1ff;
    case OxmId::kTcpFlags:
      return 0xfff;
    default:
      return 0;
  }
}

}  // namespace flowlab::of

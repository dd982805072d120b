// OXM fields and the match: the one in-memory form of a match for both versions.
//
// A Match is an ordered list of OXM TLVs exactly as they appear on the wire (so
// re-encoding is byte-identical). OF1.0's fixed ofp_match is translated to and
// from this list by the OF1.0 codec. Experimenter-class OXMs are kept opaque.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/bytes.h"
#include "openflow/errors.h"

namespace flowlab::of {

inline constexpr uint16_t kOxmClassNxm0 = 0x0000;
inline constexpr uint16_t kOxmClassNxm1 = 0x0001;
inline constexpr uint16_t kOxmClassBasic = 0x8000;
inline constexpr uint16_t kOxmClassExperimenter = 0xffff;

enum class OxmId : uint8_t {
  kInPort = 0,
  kInPhyPort = 1,
  kMetadata = 2,
  kEthDst = 3,
  kEthSrc = 4,
  kEthType = 5,
  kVlanVid = 6,
  kVlanPcp = 7,
  kIpDscp = 8,
  kIpEcn = 9,
  kIpProto = 10,
  kIpv4Src = 11,
  kIpv4Dst = 12,
  kTcpSrc = 13,
  kTcpDst = 14,
  kUdpSrc = 15,
  kUdpDst = 16,
  kSctpSrc = 17,
  kSctpDst = 18,
  kIcmpv4Type = 19,
  kIcmpv4Code = 20,
  kArpOp = 21,
  kArpSpa = 22,
  kArpTpa = 23,
  kArpSha = 24,
  kArpTha = 25,
  kIpv6Src = 26,
  kIpv6Dst = 27,
  kIpv6Flabel = 28,
  kIcmpv6Type = 29,
  kIcmpv6Code = 30,
  kIpv6NdTarget = 31,
  kIpv6NdSll = 32,
  kIpv6NdTll = 33,
  kMplsLabel = 34,
  kMplsTc = 35,
  kMplsBos = 36,
  kPbbIsid = 37,
  kTunnelId = 38,
  kIpv6Exthdr = 39,
  // 40 is unassigned; pbb_uca is OF1.4's OFPXMT_OFB_PBB_UCA, accepted in 1.3 messages as OVS does.
  kPbbUca = 41,
  // OpenFlow 1.5's (accepted at any version, as pbb_uca is)
  kTcpFlags = 42,
  kActsetOutput = 43,
  kPacketType = 44,  // namespace (16 bits), ns_type (16 bits); (0, 0) is Ethernet
};
inline constexpr int kNumBasicOxm = 45;           // ids 0..44 (oxm_info(40) is nullptr)
inline constexpr uint16_t kVlanPresent = 0x1000;  // OFPVID_PRESENT
inline constexpr uint16_t kVlanNone = 0x0000;     // OFPVID_NONE

// Static facts about each basic field.
struct OxmFieldInfo {
  OxmId id;
  std::string_view name;  // OXM name as ovs-ofctl / os-ken print it, e.g. "eth_dst"
  uint8_t length;         // value length in bytes
  bool maskable;
};
const OxmFieldInfo* oxm_info(OxmId id);
const OxmFieldInfo* oxm_info_by_name(std::string_view name);
// The bits of a field's value that mean something (vlan_vid 13, ip_dscp 6,
// mpls_label 20, ...; the others 8 x length); 0 for an unknown field.
unsigned field_bits(OxmId id);

// How a field's value reads: a number, a MAC, an IPv4 or IPv6 address, or a port.
enum class ValueKind : uint8_t { kUint, kMac, kIpv4, kIpv6, kPort };
ValueKind value_kind(OxmId id);

struct OxmField {
  uint16_t oxm_class = kOxmClassBasic;
  uint8_t field = 0;  // OxmId for the basic class
  bool has_mask = false;
  Bytes value;  // for the experimenter class: the 4-byte experimenter id, then the value
  Bytes mask;   // same length as value when has_mask

  bool is_basic() const { return oxm_class == kOxmClassBasic; }
  OxmId id() const { return static_cast<OxmId>(field); }
  bool is(OxmId i) const { return is_basic() && field == static_cast<uint8_t>(i); }
  // The 32-bit OXM header as on the wire.
  uint32_t header() const {
    return uint32_t(oxm_class) << 16 | uint32_t(field) << 9 | uint32_t(has_mask) << 8 |
           uint32_t(value.size() + mask.size());
  }
  // Value / mask as an unsigned integer (fields of up to 8 bytes).
  uint64_t value_u64() const;
  uint64_t mask_u64() const;

  // Builders for basic fields. `len` defaults to the field's length.
  static OxmField basic(OxmId id, uint64_t value);
  static OxmField basic_masked(OxmId id, uint64_t value, uint64_t mask);
  static OxmField basic_bytes(OxmId id, ByteSpan value);
  static OxmField basic_bytes_masked(OxmId id, ByteSpan value, ByteSpan mask);

  bool operator==(const OxmField&) const = default;
};

struct Match {
  std::vector<OxmField> fields;

  const OxmField* find(OxmId id) const {
    for (const auto& f : fields)
      if (f.is(id)) return &f;
    return nullptr;
  }
  bool empty() const { return fields.empty(); }
  Match& add(OxmField f) {
    fields.push_back(std::move(f));
    return *this;
  }

  // OF1.0 only: the ofp_match wildcards word as decoded, kept so that a decoded
  // match re-encodes byte-identically (OF1.0 has several spellings of "fully
  // wildcarded", e.g. nw_src bit counts 32..63). The OF1.0 encoder uses it only
  // when it agrees with `fields`; 0 = none. Not part of equality.
  uint32_t of10_wildcards = 0;

  bool operator==(const Match& o) const { return fields == o.fields; }
};

// OF1.3 itself has no pbb_uca: the ONF extension EXT-256 carries it as an
// experimenter OXM (class 0xffff, field 0, experimenter 0x4f4e4600, exp_type
// 2560, then the 1-byte value), the form os-ken sends in OF1.3 messages. For
// such a field this returns its basic form (kPbbUca, OF1.4's number); for any
// other field, nullopt. The match keeps the wire form (re-encoding is identical).
std::optional<OxmField> onf_pbb_uca_as_basic(const OxmField& f);
inline constexpr uint32_t kOnfExperimenterId = 0x4f4e4600;
inline constexpr uint16_t kOnfExtPbbUca = 2560;

// Checks OF1.3 match rules: known lengths, masks only on maskable fields, no
// value bits outside the mask, no duplicates, prerequisites (e.g. tcp_dst needs
// eth_type=0x0800/0x86dd and ip_proto=6). Errors carry OFPBMC_* codes.
std::optional<OfError> validate_match(const Match& m);

}  // namespace flowlab::of

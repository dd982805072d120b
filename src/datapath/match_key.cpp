// Compiling OXM matches into MaskedKey, and the match relations flow-mod uses.
#include "datapath/match_key.h"

#include <fmt/format.h>

#include <array>
#include <cstddef>

namespace flowlab::dp {
namespace {

using of::OxmId;

#define SLOT(field, raw) \
  FieldSlot { uint16_t(offsetof(FlowKey, field)), uint8_t(sizeof(FlowKey::field)), raw }

const std::array<FieldSlot, of::kNumBasicOxm> kSlots = {
    SLOT(in_port, false),
    SLOT(in_phy_port, false),
    SLOT(metadata, false),
    SLOT(eth_dst, true),
    SLOT(eth_src, true),
    SLOT(eth_type, false),
    SLOT(vlan_vid, false),
    SLOT(vlan_pcp, false),
    SLOT(ip_dscp, false),
    SLOT(ip_ecn, false),
    SLOT(ip_proto, false),
    SLOT(ipv4_src, false),
    SLOT(ipv4_dst, false),
    SLOT(tp_src, false),
    SLOT(tp_dst, false),
    SLOT(tp_src, false),
    SLOT(tp_dst, false),
    SLOT(tp_src, false),
    SLOT(tp_dst, false),
    SLOT(icmp_type, false),
    SLOT(icmp_code, false),
    SLOT(arp_op, false),
    SLOT(arp_spa, false),
    SLOT(arp_tpa, false),
    SLOT(arp_sha, true),
    SLOT(arp_tha, true),
    SLOT(ipv6_src, true),
    SLOT(ipv6_dst, true),
    SLOT(ipv6_flabel, false),
    SLOT(icmp_type, false),
    SLOT(icmp_code, false),
    SLOT(nd_target, true),
    SLOT(nd_sll, true),
    SLOT(nd_tll, true),
    SLOT(mpls_label, false),
    SLOT(mpls_tc, false),
    SLOT(mpls_bos, false),
    SLOT(pbb_isid, false),
    SLOT(tunnel_id, false),
    SLOT(ipv6_exthdr, false),
    FieldSlot{},
    SLOT(pbb_uca, false),
    SLOT(tcp_flags, false),
    SLOT(actset_output, false),
    FieldSlot{},  // packet_type: every frame is Ethernet, see compile_match
};
#undef SLOT

uint64_t be_to_u64(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

void put(FlowKey& k, const FieldSlot& s, const Bytes& wire) {
  uint8_t* base = reinterpret_cast<uint8_t*>(&k) + s.offset;
  if (s.raw) {
    std::memcpy(base, wire.data(), s.width);
    return;
  }
  uint64_t v = be_to_u64(wire.data(), wire.size());
  switch (s.width) {
    case 1: {
      uint8_t x = uint8_t(v);
      std::memcpy(base, &x, 1);
      break;
    }
    case 2: {
      uint16_t x = uint16_t(v);
      std::memcpy(base, &x, 2);
      break;
    }
    case 4: {
      uint32_t x = uint32_t(v);
      std::memcpy(base, &x, 4);
      break;
    }
    default:
      std::memcpy(base, &v, 8);
      break;
  }
}

}  // namespace

const FieldSlot* field_slot(of::OxmId id) {
  size_t i = static_cast<size_t>(id);
  return i < kSlots.size() && kSlots[i].width ? &kSlots[i] : nullptr;
}

uint64_t get_key_field(const FlowKey& k, of::OxmId id) {
  const FieldSlot* s = field_slot(id);
  if (!s) return 0;
  const uint8_t* base = reinterpret_cast<const uint8_t*>(&k) + s->offset;
  if (s->raw) return be_to_u64(base, s->width > 8 ? 8 : s->width);
  switch (s->width) {
    case 1:
      return base[0];
    case 2: {
      uint16_t x;
      std::memcpy(&x, base, 2);
      return x;
    }
    case 4: {
      uint32_t x;
      std::memcpy(&x, base, 4);
      return x;
    }
    default: {
      uint64_t x;
      std::memcpy(&x, base, 8);
      return x;
    }
  }
}

Result<MaskedKey, of::OfError> compile_match(const of::Match& m) {
  if (auto err = of::validate_match(m)) return unexpected(std::move(*err));
  MaskedKey mk;
  for (const of::OxmField& wire : m.fields) {
    const std::optional<of::OxmField> uca = of::onf_pbb_uca_as_basic(wire);
    const of::OxmField& f = uca ? *uca : wire;
    if (f.is(of::OxmId::kPacketType)) {
      // Ports here carry Ethernet frames only: packet_type (0, 0) matches them all.
      if (f.value_u64() != 0)
        return unexpected(
            of::OfError::make(of::BadMatchCode::kBadValue,
                              fmt::format("packet_type (0x{:x}, 0x{:x}): only Ethernet (0, 0) is supported",
                                          f.value_u64() >> 16, f.value_u64() & 0xffff)));
      continue;
    }
    const FieldSlot* s = field_slot(f.id());
    if (!s)
      return unexpected(
          of::OfError::make(of::BadMatchCode::kBadField, "field not supported by the datapath"));
    put(mk.value, *s, f.value);
    if (f.has_mask) {
      put(mk.mask, *s, f.mask);
    } else {
      Bytes ones(f.value.size(), 0xff);
      put(mk.mask, *s, ones);
    }
  }
  // Keep value == value & mask word by word (validate_match already rejects stray bits).
  uint8_t* v = reinterpret_cast<uint8_t*>(&mk.value);
  const uint8_t* mm = reinterpret_cast<const uint8_t*>(&mk.mask);
  for (size_t i = 0; i < sizeof(FlowKey); ++i) v[i] &= mm[i];
  return mk;
}

of::Match of10_effective_match(const of::Match& m) {
  of::Match out;
  for (const of::OxmField& f : m.fields) {
    if (f.is(of::OxmId::kVlanPcp)) {
      const of::OxmField* vid = out.find(of::OxmId::kVlanVid);
      if (vid && !vid->has_mask && vid->value_u64() == of::kVlanNone) continue;
      if (!vid) out.add(of::OxmField::basic_masked(of::OxmId::kVlanVid, of::kVlanPresent, of::kVlanPresent));
    }
    out.add(f);
    if (auto err = of::validate_match(out); err && err->code == uint16_t(of::BadMatchCode::kBadPrereq))
      out.fields.pop_back();
  }
  return out;
}

const std::shared_ptr<const FlowKey>& StoredKey::empty_mask() {
  static const std::shared_ptr<const FlowKey> m = [] {
    auto k = std::make_shared<FlowKey>();
    k->clear();
    return std::shared_ptr<const FlowKey>(std::move(k));
  }();
  return m;
}

bool MaskedKey::covered_by(const MaskedKey& f) const { return key_covered_by(value, mask, f); }
bool MaskedKey::overlaps(const MaskedKey& o) const { return key_overlaps(value, mask, o); }

bool key_covered_by(const FlowKey& value, const FlowKey& mask, const MaskedKey& f) {
  for (size_t i = 0; i < kFlowKeyWords; ++i) {
    uint64_t fm = key_word(f.mask, i);
    if ((key_word(mask, i) & fm) != fm) return false;  // filter constrains a bit we don't
    if ((key_word(value, i) & fm) != key_word(f.value, i)) return false;
  }
  return true;
}

bool key_overlaps(const FlowKey& value, const FlowKey& mask, const MaskedKey& o) {
  for (size_t i = 0; i < kFlowKeyWords; ++i) {
    uint64_t both = key_word(mask, i) & key_word(o.mask, i);
    if ((key_word(value, i) ^ key_word(o.value, i)) & both) return false;
  }
  return true;
}

}  // namespace flowlab::dp

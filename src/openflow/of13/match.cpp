// OF1.3 ofp_match and OXM TLVs, both ways.
//
// TLVs are kept in wire order with their payload bytes untouched, so any match
// re-encodes byte-identically. Basic-class fields the spec defines must have
// their exact length (doubled with a mask); other classes (NXM, experimenter)
// and unknown basic fields are kept as opaque value/mask bytes. Semantic checks
// (prerequisites, duplicates, masks) are validate_match()'s job, not the decoder's.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of {
namespace of13 {

Result<OxmField, OfError> decode_oxm(Cursor& c) {
  size_t start = c.at();
  uint32_t header = 0;
  if (!c.r().u32(header))
    return unexpected(OfError::make(BadMatchCode::kBadLen, "OXM header truncated", start));
  OxmField f;
  f.oxm_class = uint16_t(header >> 16);
  f.field = uint8_t(header >> 9 & 0x7f);
  f.has_mask = (header >> 8 & 1) != 0;
  size_t len = header & 0xff;
  if (len > c.remaining())
    return unexpected(OfError::make(
        BadMatchCode::kBadLen,
        fmt::format("OXM 0x{:08x}: payload length {} > {} bytes left", header, len, c.remaining()), start));
  ByteSpan payload;
  c.r().bytes(len, payload);
  size_t prefix = f.oxm_class == kOxmClassExperimenter ? 4 : 0;  // experimenter id
  if (len < prefix)
    return unexpected(OfError::make(BadMatchCode::kBadLen, "experimenter OXM shorter than its id", start));
  size_t vlen = len - prefix;
  if (f.has_mask) {
    if (vlen % 2 != 0)
      return unexpected(OfError::make(
          BadMatchCode::kBadLen, fmt::format("masked OXM 0x{:08x} has odd length {}", header, len), start));
    vlen /= 2;
  }
  if (f.is_basic()) {
    const OxmFieldInfo* info = oxm_info(f.id());
    if (info && vlen != info->length)
      return unexpected(
          OfError::make(BadMatchCode::kBadLen,
                        fmt::format("{}: value length {} != {}", info->name, vlen, info->length), start));
  }
  f.value.assign(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(prefix + vlen));
  if (f.has_mask) f.mask.assign(payload.begin() + static_cast<std::ptrdiff_t>(prefix + vlen), payload.end());
  return f;
}

void encode_oxm(const OxmField& f, ByteWriter& w) {
  w.u32(f.header());
  w.bytes(f.value);
  w.bytes(f.mask);
}

namespace {

// How many OXM TLVs `tlvs` holds by their headers (a bound for reserve();
// decode_oxm checks each one).
size_t count_oxms(ByteSpan tlvs) {
  size_t n = 0;
  for (size_t at = 0; at + 4 <= tlvs.size(); at += 4 + tlvs[at + 3]) ++n;
  return n;
}

}  // namespace

Result<Match, OfError> decode_match(Cursor& c) {
  size_t start = c.at();
  uint16_t type = 0, length = 0;
  if (!c.r().u16(type) || !c.r().u16(length))
    return unexpected(OfError::make(BadMatchCode::kBadLen, "ofp_match header truncated", start));
  if (type != 1)
    return unexpected(OfError::make(BadMatchCode::kBadType,
                                    fmt::format("match type {} is not OFPMT_OXM (1)", type), start));
  if (length < 4)
    return unexpected(
        OfError::make(BadMatchCode::kBadLen, fmt::format("match length {} < 4", length), start));
  size_t body = length - 4u;
  if (body + pad8(length) > c.remaining())
    return unexpected(OfError::make(
        BadMatchCode::kBadLen,
        fmt::format("match length {} (+{} padding) runs past the message", length, pad8(length)), start));
  Cursor tlvs = c.take(body);
  c.r().skip(pad8(length));
  Match m;
  m.fields.reserve(count_oxms(tlvs.rest()));
  while (!tlvs.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(OxmField f, decode_oxm(tlvs));
    m.fields.push_back(std::move(f));
  }
  return m;
}

void encode_match(const Match& m, ByteWriter& w) {
  size_t start = w.size();
  w.u16(1);  // OFPMT_OXM
  w.u16(0);
  encode_oxm_match(m, w);
  w.patch_u16(start + 2, uint16_t(w.size() - start));
  w.pad_to(start, 8);
}

}  // namespace of13

Result<Match, OfError> decode_oxm_match(ByteSpan body) {
  of13::Cursor c(body, 0);
  Match m;
  while (!c.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(OxmField f, of13::decode_oxm(c));
    m.fields.push_back(std::move(f));
  }
  return m;
}

void encode_oxm_match(const Match& m, ByteWriter& w) {
  for (const OxmField& f : m.fields) of13::encode_oxm(f, w);
}

}  // namespace flowlab::of

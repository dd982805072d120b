// OpenFlow 1.4 table configuration on the wire: table-mod with its
// properties, ofp_table_desc (the table-desc reply's entries and the body of
// a table status), and the two properties both carry (layouts in of14.h).
#include <fmt/format.h>

#include "openflow/of14/of14.h"

namespace flowlab::of::of14 {
namespace {

constexpr size_t kTableModBodyLen = 8;  // table_id, pad, config
constexpr size_t kTableDescLen = 8;     // length, table_id, pad, config
constexpr size_t kPropLen = 8;          // both properties are 8 bytes
constexpr uint16_t kPropEviction = 2;   // OFPTMPT_EVICTION
constexpr uint16_t kPropVacancy = 3;    // OFPTMPT_VACANCY
constexpr uint16_t kPropExperimenter = 0xffff;

// ofp_bad_property_code
enum class PropCode : uint16_t {
  kBadType = 0,
  kBadLen = 1,
  kBadValue = 2,
  kDupType = 4,
  kBadExperimenter = 5
};

OfError bad_prop(PropCode c, std::string msg, size_t at) {
  return OfError{ErrorType::kBadProperty, uint16_t(c), at, std::move(msg)};
}

// The properties at `at` in `wire` up to its end, into `eviction`/`vacancy`;
// `what` names the message in errors. `with_current` keeps the vacancy byte
// (a table description's); a table-mod's is ignored, as the spec says.
BasicStatus<OfError> decode_props(ByteSpan wire, size_t at, std::string_view what,
                                  std::optional<uint32_t>& eviction, std::optional<TableVacancy>& vacancy,
                                  bool with_current) {
  while (at < wire.size()) {
    if (wire.size() - at < 4)
      return unexpected(
          bad_prop(PropCode::kBadLen,
                   fmt::format("{}: {} bytes left, a property header needs 4", what, wire.size() - at), at));
    const uint16_t type = load_be16(&wire[at]);
    const uint16_t len = load_be16(&wire[at + 2]);
    if (type == kPropExperimenter)
      return unexpected(bad_prop(PropCode::kBadExperimenter,
                                 fmt::format("{}: experimenter properties are not supported", what), at));
    if (type != kPropEviction && type != kPropVacancy)
      return unexpected(bad_prop(PropCode::kBadType,
                                 fmt::format("{}: property type {} (eviction is 2, vacancy 3)", what, type),
                                 at));
    if (len != kPropLen || wire.size() - at < kPropLen)
      return unexpected(bad_prop(PropCode::kBadLen,
                                 fmt::format("{}: property type {} has length {} ({} bytes left; it is 8)",
                                             what, type, len, wire.size() - at),
                                 at + 2));
    if (type == kPropEviction) {
      if (eviction)
        return unexpected(bad_prop(PropCode::kDupType, fmt::format("{}: two eviction properties", what), at));
      eviction = load_be32(&wire[at + 4]);
      if (*eviction & ~uint32_t(7))
        return unexpected(bad_prop(
            PropCode::kBadValue,
            fmt::format("{}: eviction flags {:#x} (other 1, importance 2, lifetime 4)", what, *eviction),
            at + 4));
    } else {
      if (vacancy)
        return unexpected(bad_prop(PropCode::kDupType, fmt::format("{}: two vacancy properties", what), at));
      TableVacancy v{wire[at + 4], wire[at + 5], with_current ? wire[at + 6] : uint8_t(0)};
      if (v.down > 100 || v.up > 100 || v.down > v.up || v.vacancy > 100)
        return unexpected(
            bad_prop(PropCode::kBadValue,
                     fmt::format("{}: vacancy thresholds down {}% up {}% (percentages, down <= up)", what,
                                 v.down, v.up),
                     at + 4));
      vacancy = v;
    }
    at += kPropLen;
  }
  return {};
}

void encode_props(const std::optional<uint32_t>& eviction, const std::optional<TableVacancy>& vacancy,
                  bool with_current, Bytes& out) {
  ByteWriter w(out);
  if (eviction) {
    w.u16(kPropEviction);
    w.u16(kPropLen);
    w.u32(*eviction);
  }
  if (vacancy) {
    w.u16(kPropVacancy);
    w.u16(kPropLen);
    w.u8(vacancy->down);
    w.u8(vacancy->up);
    w.u8(with_current ? vacancy->vacancy : uint8_t(0));
    w.u8(0);
  }
}

}  // namespace

Result<of::TableMod, OfError> decode_table_mod(ByteSpan wire) {
  if (wire.size() < kHeaderLen + kTableModBodyLen)
    return unexpected(
        OfError::make(BadRequestCode::kBadLen, fmt::format("table_mod: {} bytes, at least 16", wire.size())));
  of::TableMod tm;
  tm.table_id = wire[8];
  tm.config = load_be32(&wire[12]);
  if (tm.config & ~(table_config::kEviction | table_config::kVacancyEvents | table_config::kDeprecatedMask))
    return unexpected(
        OfError::make(TableModFailedCode::kBadConfig,
                      fmt::format("table_mod: config {:#x} (eviction 4, vacancy events 8)", tm.config), 12));
  FLOWLAB_TRY(
      decode_props(wire, kHeaderLen + kTableModBodyLen, "table_mod", tm.eviction_flags, tm.vacancy, false));
  return tm;
}

void encode_table_mod(const of::TableMod& tm, Bytes& out) {
  ByteWriter w(out);
  w.u8(tm.table_id);
  w.zeros(3);
  w.u32(tm.config);
  encode_props(tm.eviction_flags, tm.vacancy, false, out);
}

Result<TableDesc, OfError> decode_table_desc(ByteSpan wire, size_t at, size_t& consumed) {
  if (wire.size() - at < kTableDescLen)
    return unexpected(OfError::make(
        BadRequestCode::kBadLen,
        fmt::format("ofp_table_desc: need {} bytes, have {}", kTableDescLen, wire.size() - at), at));
  const uint16_t len = load_be16(&wire[at]);
  if (len < kTableDescLen || len > wire.size() - at || len % 8)
    return unexpected(
        OfError::make(BadRequestCode::kBadLen,
                      fmt::format("ofp_table_desc: length {} (at least 8, a multiple of 8, at most {})", len,
                                  wire.size() - at),
                      at));
  TableDesc d;
  d.table_id = wire[at + 2];
  d.config = load_be32(&wire[at + 4]);
  FLOWLAB_TRY(decode_props(wire.first(at + len), at + kTableDescLen, "table_desc", d.eviction_flags,
                           d.vacancy, true));
  consumed = len;
  return d;
}

void encode_table_desc(const TableDesc& d, Bytes& out) {
  const size_t start = out.size();
  ByteWriter w(out);
  w.u16(0);  // length, below
  w.u8(d.table_id);
  w.zeros(1);
  w.u32(d.config);
  encode_props(d.eviction_flags, d.vacancy, true, out);
  store_be16(&out[start], uint16_t(out.size() - start));
}

Bytes table_desc_properties(const TableDesc& d) {
  Bytes out;
  encode_props(d.eviction_flags, d.vacancy, true, out);
  return out;
}

}  // namespace flowlab::of::of14

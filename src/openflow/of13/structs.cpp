// OF1.3 structures shared by several messages: ofp_port, group buckets, meter
// bands and table-features (with their properties), both ways.
//
// Table-feature properties that are plain lists (instruction/action ids of 4
// bytes, table ids, 4-byte OXM headers) decode into `ids`; anything else in a
// property (experimenter ids, unknown property types) is kept as raw bytes in
// `data` and re-encoded unchanged.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of::of13 {

Result<PortDesc, OfError> decode_port(Cursor& c) {
  if (c.remaining() < 64) return unexpected(short_error(c, "ofp_port", 64));
  ByteReader& r = c.r();
  PortDesc p;
  r.u32(p.port_no);
  r.skip(4);
  r.copy(p.hw_addr.b.data(), 6);
  r.skip(2);
  r.str(16, p.name);
  r.u32(p.config);
  r.u32(p.state);
  r.u32(p.curr);
  r.u32(p.advertised);
  r.u32(p.supported);
  r.u32(p.peer);
  r.u32(p.curr_speed);
  r.u32(p.max_speed);
  return p;
}

void encode_port(const PortDesc& p, ByteWriter& w) {
  w.u32(p.port_no);
  w.zeros(4);
  w.bytes(p.hw_addr.b.data(), 6);
  w.zeros(2);
  w.str(p.name, 16);
  w.u32(p.config);
  w.u32(p.state);
  w.u32(p.curr);
  w.u32(p.advertised);
  w.u32(p.supported);
  w.u32(p.peer);
  w.u32(p.curr_speed);
  w.u32(p.max_speed);
}

Result<std::vector<Bucket>, OfError> decode_buckets(Cursor c) {
  std::vector<Bucket> out;
  while (!c.empty()) {
    size_t start = c.at();
    uint16_t len = 0;
    if (c.remaining() < 16 || !c.r().u16(len) || len < 16 || len - 2u > c.remaining())
      return unexpected(OfError::make(BadRequestCode::kBadLen,
                                      fmt::format("bucket length {} with {} bytes left", len, c.remaining()),
                                      start));
    Cursor b = c.take(len - 2u);
    Bucket bk;
    b.r().u16(bk.weight);
    b.r().u32(bk.watch_port);
    b.r().u32(bk.watch_group);
    b.r().skip(4);
    FLOWLAB_ASSIGN_OR_RETURN(bk.actions, decode_actions(b.take(b.remaining())));
    out.push_back(std::move(bk));
  }
  return out;
}

BasicStatus<OfError> encode_buckets(const std::vector<Bucket>& buckets, ByteWriter& w) {
  for (const Bucket& b : buckets) {
    size_t start = w.size();
    w.u16(0);
    w.u16(b.weight);
    w.u32(b.watch_port);
    w.u32(b.watch_group);
    w.zeros(4);
    FLOWLAB_TRY(encode_actions(b.actions, w));
    if (w.size() - start > 0xffff)
      return unexpected(OfError::make(BadRequestCode::kBadLen, "bucket too long"));
    w.patch_u16(start, uint16_t(w.size() - start));
  }
  return {};
}

Result<std::vector<MeterBand>, OfError> decode_bands(Cursor c) {
  std::vector<MeterBand> out;
  while (!c.empty()) {
    size_t start = c.at();
    uint16_t type = 0, len = 0;
    if (c.remaining() < 16 || !c.r().u16(type) || !c.r().u16(len) || len < 16 || len - 4u > c.remaining())
      return unexpected(
          OfError::make(MeterModFailedCode::kBadBand,
                        fmt::format("meter band length {} with {} bytes left", len, c.remaining()), start));
    Cursor b = c.take(len - 4u);
    MeterBand band;
    band.type = static_cast<MeterBandType>(type);
    b.r().u32(band.rate);
    b.r().u32(band.burst_size);
    switch (band.type) {
      case MeterBandType::kDrop:
        break;
      case MeterBandType::kDscpRemark:
        b.r().u8(band.prec_level);
        break;
      case MeterBandType::kExperimenter: {
        b.r().u32(band.experimenter);
        ByteSpan rest = b.rest();
        band.data.assign(rest.begin(), rest.end());
        break;
      }
      default:
        return unexpected(OfError::make(MeterModFailedCode::kBadBand,
                                        fmt::format("unknown meter band type {}", type), start));
    }
    if (band.type != MeterBandType::kExperimenter && len != 16)
      return unexpected(
          OfError::make(MeterModFailedCode::kBadBand, fmt::format("meter band length {} != 16", len), start));
    out.push_back(std::move(band));
  }
  return out;
}

BasicStatus<OfError> encode_bands(const std::vector<MeterBand>& bands, ByteWriter& w) {
  for (const MeterBand& b : bands) {
    size_t start = w.size();
    w.u16(static_cast<uint16_t>(b.type));
    w.u16(0);
    w.u32(b.rate);
    w.u32(b.burst_size);
    switch (b.type) {
      case MeterBandType::kDrop:
        w.zeros(4);
        break;
      case MeterBandType::kDscpRemark:
        w.u8(b.prec_level);
        w.zeros(3);
        break;
      case MeterBandType::kExperimenter:
        w.u32(b.experimenter);
        w.bytes(b.data);
        break;
      default:
        return unexpected(OfError::make(MeterModFailedCode::kBadBand,
                                        fmt::format("unknown meter band type {}", static_cast<int>(b.type))));
    }
    if (w.size() - start > 0xffff)
      return unexpected(OfError::make(MeterModFailedCode::kBadBand, "band too long"));
    w.patch_u16(start + 2, uint16_t(w.size() - start));
  }
  return {};
}

namespace {

enum class IdKind { kInstOrAction, kTableId, kOxm, kExperimenter, kRaw };

IdKind prop_kind(uint16_t type) {
  if (type <= 7) return type == 2 || type == 3 ? IdKind::kTableId : IdKind::kInstOrAction;
  if (type == 8 || type == 10 || (type >= 12 && type <= 15)) return IdKind::kOxm;
  if (type >= 0xfffe) return IdKind::kExperimenter;
  return IdKind::kRaw;
}

// Splits a plain id list into ids; false when some element is not plain.
bool parse_ids(IdKind kind, ByteSpan payload, std::vector<uint32_t>& ids) {
  ByteReader r(payload);
  while (!r.empty()) {
    if (kind == IdKind::kTableId) {
      uint8_t t = 0;
      r.u8(t);
      ids.push_back(t);
    } else if (kind == IdKind::kInstOrAction) {
      uint16_t type = 0, len = 0;
      if (!r.u16(type) || !r.u16(len) || len != 4) return false;
      ids.push_back(type);
    } else {
      uint32_t h = 0;
      if (!r.u32(h) || h >> 16 == kOxmClassExperimenter) return false;
      ids.push_back(h);
    }
  }
  return true;
}

Result<TableFeatureProp, OfError> decode_prop(Cursor& c) {
  size_t start = c.at();
  uint16_t type = 0, len = 0;
  if (!c.r().u16(type) || !c.r().u16(len) || len < 4 || len - 4u > c.remaining())
    return unexpected(OfError::make(TableFeaturesFailedCode::kBadLen,
                                    fmt::format("table-features property length {}", len), start));
  Cursor b = c.take(len - 4u);
  c.r().skip(std::min(pad8(len), c.remaining()));
  TableFeatureProp p;
  p.type = static_cast<TableFeaturePropType>(type);
  IdKind kind = prop_kind(type);
  if (kind == IdKind::kExperimenter) {
    if (!b.r().u32(p.experimenter) || !b.r().u32(p.exp_type))
      return unexpected(
          OfError::make(TableFeaturesFailedCode::kBadLen, "experimenter property too short", start));
  }
  ByteSpan payload = b.rest();
  if (kind == IdKind::kExperimenter || kind == IdKind::kRaw || !parse_ids(kind, payload, p.ids)) {
    p.ids.clear();
    p.data.assign(payload.begin(), payload.end());
  }
  return p;
}

void encode_prop(const TableFeatureProp& p, ByteWriter& w) {
  size_t start = w.size();
  auto type = static_cast<uint16_t>(p.type);
  w.u16(type);
  w.u16(0);
  IdKind kind = prop_kind(type);
  if (kind == IdKind::kExperimenter) {
    w.u32(p.experimenter);
    w.u32(p.exp_type);
  }
  if (!p.data.empty() || kind == IdKind::kExperimenter || kind == IdKind::kRaw) {
    w.bytes(p.data);
  } else {
    for (uint32_t id : p.ids) {
      if (kind == IdKind::kTableId) {
        w.u8(uint8_t(id));
      } else if (kind == IdKind::kInstOrAction) {
        w.u16(uint16_t(id));
        w.u16(4);
      } else {
        w.u32(id);
      }
    }
  }
  w.patch_u16(start + 2, uint16_t(w.size() - start));
  w.pad_to(start, 8);
}

}  // namespace

Result<std::vector<TableFeatures>, OfError> decode_table_features(Cursor c) {
  std::vector<TableFeatures> out;
  while (!c.empty()) {
    size_t start = c.at();
    uint16_t len = 0;
    if (c.remaining() < 64 || !c.r().u16(len) || len < 64 || len - 2u > c.remaining())
      return unexpected(OfError::make(
          BadRequestCode::kBadLen,
          fmt::format("table-features length {} with {} bytes left", len, c.remaining()), start));
    Cursor b = c.take(len - 2u);
    TableFeatures t;
    ByteReader& r = b.r();
    r.u8(t.table_id);
    r.u8(t.command);  // OF1.5's command and features; padding before (zero)
    r.u32(t.features);
    r.str(32, t.name);
    r.u64(t.metadata_match);
    r.u64(t.metadata_write);
    r.u32(t.config);
    r.u32(t.max_entries);
    while (!b.empty()) {
      FLOWLAB_ASSIGN_OR_RETURN(TableFeatureProp p, decode_prop(b));
      t.properties.push_back(std::move(p));
    }
    out.push_back(std::move(t));
  }
  return out;
}

void encode_table_features(const std::vector<TableFeatures>& tables, ByteWriter& w) {
  for (const TableFeatures& t : tables) {
    size_t start = w.size();
    w.u16(0);
    w.u8(t.table_id);
    w.u8(t.command);
    w.u32(t.features);
    w.str(t.name, 32);
    w.u64(t.metadata_match);
    w.u64(t.metadata_write);
    w.u32(t.config);
    w.u32(t.max_entries);
    for (const TableFeatureProp& p : t.properties) encode_prop(p, w);
    w.patch_u16(start, uint16_t(w.size() - start));
  }
}

}  // namespace flowlab::of::of13

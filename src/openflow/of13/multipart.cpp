// OF1.3 multipart request and reply bodies (OFPT_MULTIPART_REQUEST/REPLY), both ways.
//
// The 8-byte multipart header (type, flags, pad) is followed by a body whose
// layout depends on the type; list bodies (flow stats, group stats, ...) are
// decoded element by element, each from a cursor limited to its own length.
// An unknown multipart type is OFPBRC_BAD_MULTIPART.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of::of13 {
namespace {

// Fixed-size body: exactly `n` bytes.
bool exact(Cursor& c, size_t n) { return c.remaining() == n; }

Result<FlowStatsRequest, OfError> decode_flow_stats_request(Cursor& c) {
  if (c.remaining() < 32) return unexpected(short_error(c, "flow stats request", 32));
  FlowStatsRequest f;
  ByteReader& r = c.r();
  r.u8(f.table_id);
  r.skip(3);
  r.u32(f.out_port);
  r.u32(f.out_group);
  r.skip(4);
  r.u64(f.cookie);
  r.u64(f.cookie_mask);
  FLOWLAB_ASSIGN_OR_RETURN(f.match, decode_match(c));
  if (!c.empty()) return unexpected(bad_len(c, "flow stats request trailing bytes"));
  return f;
}

void encode_flow_stats_request(const FlowStatsRequest& f, ByteWriter& w) {
  w.u8(f.table_id);
  w.zeros(3);
  w.u32(f.out_port);
  w.u32(f.out_group);
  w.zeros(4);
  w.u64(f.cookie);
  w.u64(f.cookie_mask);
  encode_match(f.match, w);
}

Result<ExperimenterMultipart, OfError> decode_exp(Cursor& c) {
  if (c.remaining() < 8) return unexpected(short_error(c, "experimenter multipart", 8));
  ExperimenterMultipart e;
  c.r().u32(e.experimenter);
  c.r().u32(e.exp_type);
  ByteSpan rest = c.rest();
  e.data.assign(rest.begin(), rest.end());
  return e;
}

void encode_exp(const ExperimenterMultipart& e, ByteWriter& w) {
  w.u32(e.experimenter);
  w.u32(e.exp_type);
  w.bytes(e.data);
}

// Reads a u32 id + 4 pad body.
bool id_pad(Cursor& c, uint32_t& id) { return exact(c, 8) && c.r().u32(id); }

}  // namespace

Result<MultipartRequest, OfError> decode_multipart_request(Cursor& c) {
  if (c.remaining() < 8) return unexpected(short_error(c, "multipart request header", 8));
  size_t start = c.at();
  uint16_t type = 0;
  MultipartRequest m;
  c.r().u16(type);
  c.r().u16(m.flags);
  c.r().skip(4);
  auto fixed_empty = [&](auto body) -> Result<MultipartRequest, OfError> {
    if (!c.empty()) return unexpected(bad_len(c, "multipart request body should be empty"));
    m.body = body;
    return m;
  };
  switch (static_cast<MultipartType>(type)) {
    case MultipartType::kDesc:
      return fixed_empty(DescRequest{});
    case MultipartType::kTable:
      return fixed_empty(TableStatsRequest{});
    case MultipartType::kGroupDesc:
      return fixed_empty(GroupDescRequest{});
    case MultipartType::kGroupFeatures:
      return fixed_empty(GroupFeaturesRequest{});
    case MultipartType::kMeterFeatures:
      return fixed_empty(MeterFeaturesRequest{});
    case MultipartType::kPortDesc:
      return fixed_empty(PortDescRequest{});
    case MultipartType::kFlow: {
      FLOWLAB_ASSIGN_OR_RETURN(FlowStatsRequest f, decode_flow_stats_request(c));
      m.body = f;
      return m;
    }
    case MultipartType::kAggregate: {
      FLOWLAB_ASSIGN_OR_RETURN(FlowStatsRequest f, decode_flow_stats_request(c));
      AggregateStatsRequest a;
      static_cast<FlowStatsRequest&>(a) = std::move(f);
      m.body = std::move(a);
      return m;
    }
    case MultipartType::kPortStats: {
      PortStatsRequest p;
      if (!id_pad(c, p.port_no)) return unexpected(bad_len(c, "port stats request"));
      m.body = p;
      return m;
    }
    case MultipartType::kQueue: {
      QueueStatsRequest q;
      if (!exact(c, 8)) return unexpected(bad_len(c, "queue stats request"));
      c.r().u32(q.port_no);
      c.r().u32(q.queue_id);
      m.body = q;
      return m;
    }
    case MultipartType::kGroup: {
      GroupStatsRequest g;
      if (!id_pad(c, g.group_id)) return unexpected(bad_len(c, "group stats request"));
      m.body = g;
      return m;
    }
    case MultipartType::kMeter: {
      MeterStatsRequest g;
      if (!id_pad(c, g.meter_id)) return unexpected(bad_len(c, "meter stats request"));
      m.body = g;
      return m;
    }
    case MultipartType::kMeterConfig: {
      MeterConfigRequest g;
      if (!id_pad(c, g.meter_id)) return unexpected(bad_len(c, "meter config request"));
      m.body = g;
      return m;
    }
    case MultipartType::kTableFeatures: {
      TableFeaturesRequest t;
      FLOWLAB_ASSIGN_OR_RETURN(t.tables, decode_table_features(c.take(c.remaining())));
      m.body = std::move(t);
      return m;
    }
    case MultipartType::kControllerStatus:  // OF1.5 (of15/): unknown below it
      break;
    case MultipartType::kExperimenter: {
      FLOWLAB_ASSIGN_OR_RETURN(ExperimenterMultipart e, decode_exp(c));
      m.body = std::move(e);
      return m;
    }
  }
  return unexpected(
      OfError::make(BadRequestCode::kBadMultipart, fmt::format("unknown multipart type {}", type), start));
}

BasicStatus<OfError> encode_multipart_request(const MultipartRequest& m, ByteWriter& w) {
  if (std::holds_alternative<FlowMonitorRequest>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "flow monitoring needs OpenFlow 1.4"));
  if (std::holds_alternative<ControllerStatusRequest>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "controller status needs OpenFlow 1.5"));
  if (std::holds_alternative<QueueDescRequest>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "queue description needs OpenFlow 1.4"));
  w.u16(static_cast<uint16_t>(multipart_type(m.body)));
  w.u16(m.flags);
  w.zeros(4);
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, FlowStatsRequest> || std::is_same_v<T, AggregateStatsRequest>) {
          encode_flow_stats_request(b, w);
        } else if constexpr (std::is_same_v<T, PortStatsRequest>) {
          w.u32(b.port_no);
          w.zeros(4);
        } else if constexpr (std::is_same_v<T, QueueStatsRequest>) {
          w.u32(b.port_no);
          w.u32(b.queue_id);
        } else if constexpr (std::is_same_v<T, GroupStatsRequest>) {
          w.u32(b.group_id);
          w.zeros(4);
        } else if constexpr (std::is_same_v<T, MeterStatsRequest> || std::is_same_v<T, MeterConfigRequest>) {
          w.u32(b.meter_id);
          w.zeros(4);
        } else if constexpr (std::is_same_v<T, TableFeaturesRequest>) {
          encode_table_features(b.tables, w);
        } else if constexpr (std::is_same_v<T, ExperimenterMultipart>) {
          encode_exp(b, w);
        }
      },
      m.body);
  return {};
}

}  // namespace flowlab::of::of13

// OpenFlow 1.4 on the shared model: decode_of14/encode_of14 of codec.h, what
// decode_message and encode_message use for wire version 5.
//
// The of14 codec (codec.cpp) reads and writes 1.4's own structs; this maps
// them onto of::Message and back: importance into FlowMod/FlowStats, ports'
// ethernet property into PortDesc, set-async properties into AsyncConfig (its
// `present` bits), role/table status, table-mod and table descriptions as they are, the standard bundle
// messages onto the ONF extension's experimenter messages (and OFPET_BUNDLE_FAILED
// errors onto its experimenter errors), so code above the codec handles a
// 1.4 bundle as it does a 1.3 one. What the model cannot hold is refused when
// decoding (a port-mod's optical property: OFPET_BAD_PROPERTY) or dropped
// where only a switch sends it (a port's optical property).
#include <fmt/format.h>

#include "openflow/codec.h"
#include "openflow/of14/of14.h"

namespace flowlab::of {
namespace {

constexpr uint16_t kBadPropertyType = 0;  // OFPBPC_BAD_TYPE
constexpr int kAsyncKinds = 6;            // packet-in .. request forward

std::array<uint32_t, 2>* async_kind(AsyncConfig& c, int kind) {
  std::array<uint32_t, 2>* k[kAsyncKinds] = {&c.packet_in_mask,    &c.port_status_mask,
                                             &c.flow_removed_mask, &c.role_status_mask,
                                             &c.table_status_mask, &c.requestforward_mask};
  return kind < kAsyncKinds ? k[kind] : nullptr;
}

// 1.4 properties -> the model; slot [0] master/equal (odd types), [1] slave.
AsyncConfig async_from(const of14::AsyncConfig& a) {
  AsyncConfig c;
  c.present = 0;
  for (const of14::AsyncProperty& p : a.props) {
    if (auto* k = async_kind(c, p.type >> 1)) (*k)[(p.type & 1) ? 0 : 1] = p.mask;
    c.present |= uint16_t(1u << p.type);
  }
  return c;
}

of14::AsyncConfig async_to(const AsyncConfig& c, bool reply) {
  of14::AsyncConfig a;
  a.reply = reply;
  AsyncConfig copy = c;
  for (uint16_t type = 0; type < 2 * kAsyncKinds; ++type)
    if (c.present >> type & 1) a.props.push_back({type, (*async_kind(copy, type >> 1))[(type & 1) ? 0 : 1]});
  return a;
}

Message shared(uint32_t xid, MessageBody body) { return Message{kOf14, xid, std::move(body)}; }

Result<Message, OfError> to_shared(of14::Message m) {
  const uint32_t xid = m.xid;
  return std::visit(
      [&](auto& b) -> Result<Message, OfError> {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, Message>) {
          b.version = kOf14;
          b.xid = xid;
          return std::move(b);
        } else if constexpr (std::is_same_v<T, of14::FlowMod>) {
          b.mod.importance = b.importance;
          return shared(xid, std::move(b.mod));
        } else if constexpr (std::is_same_v<T, of14::FlowStatsReply>) {
          for (size_t i = 0; i < b.flows.size(); ++i) b.flows[i].importance = b.importance[i];
          return shared(xid, MultipartReply{b.flags, FlowStatsReply{std::move(b.flows)}});
        } else if constexpr (std::is_same_v<T, of14::PortStatus>) {
          return shared(xid, PortStatus{b.reason, std::move(b.port.desc)});
        } else if constexpr (std::is_same_v<T, of14::PortMod>) {
          if (!b.other_props.empty())
            return unexpected(OfError{ErrorType::kBadProperty, kBadPropertyType, 40,
                                      fmt::format("port_mod: property type {} (optical or experimenter) is "
                                                  "not supported: ports here are Ethernet",
                                                  load_be16(&b.other_props[0]))});
          return shared(xid, std::move(b.mod));
        } else if constexpr (std::is_same_v<T, of14::PortDescReply>) {
          PortDescReply r;
          for (of14::Port& p : b.ports) r.ports.push_back(std::move(p.desc));
          return shared(xid, MultipartReply{b.flags, std::move(r)});
        } else if constexpr (std::is_same_v<T, of14::PortStatsReply>) {
          return shared(xid, MultipartReply{b.flags, PortStatsReply{std::move(b.stats)}});
        } else if constexpr (std::is_same_v<T, of14::QueueStatsReply>) {
          return shared(xid, MultipartReply{b.flags, QueueStatsReply{std::move(b.stats)}});
        } else if constexpr (std::is_same_v<T, of14::TableDescReply>) {
          return shared(xid, MultipartReply{b.flags, TableDescReply{std::move(b.tables)}});
        } else if constexpr (std::is_same_v<T, RoleStatus> || std::is_same_v<T, TableStatus> ||
                             std::is_same_v<T, RequestForward> || std::is_same_v<T, TableMod>) {
          return shared(xid, std::move(b));
        } else if constexpr (std::is_same_v<T, of14::AsyncConfig>) {
          AsyncConfig c = async_from(b);
          if (b.reply) return shared(xid, GetAsyncReply{c});
          return shared(xid, SetAsync{c});
        } else if constexpr (std::is_same_v<T, BundleControl>) {
          return shared(xid, encode_bundle_control(b));
        } else {
          static_assert(std::is_same_v<T, BundleAdd>);
          return shared(xid, encode_bundle_add(b));
        }
      },
      m.body);
}

Result<of14::Message, OfError> from_shared(const Message& m) {
  of14::Message out;
  out.xid = m.xid;
  if (const auto* f = std::get_if<FlowMod>(&m.body)) {
    out.body = of14::FlowMod{*f, f->importance};
  } else if (const auto* ps = std::get_if<PortStatus>(&m.body)) {
    out.body = of14::PortStatus{ps->reason, of14::Port{ps->desc, true, {}}};
  } else if (const auto* pm = std::get_if<PortMod>(&m.body)) {
    // advertise 0 changes nothing (as at 1.3): sent without the ethernet property.
    out.body = of14::PortMod{*pm, pm->advertise != 0, {}};
  } else if (const auto* tm = std::get_if<TableMod>(&m.body)) {
    out.body = *tm;
  } else if (const auto* rs = std::get_if<RoleStatus>(&m.body)) {
    out.body = *rs;
  } else if (const auto* ts = std::get_if<TableStatus>(&m.body)) {
    out.body = *ts;
  } else if (const auto* rf = std::get_if<RequestForward>(&m.body)) {
    out.body = *rf;
  } else if (const auto* sa = std::get_if<SetAsync>(&m.body)) {
    out.body = async_to(*sa, false);
  } else if (const auto* ga = std::get_if<GetAsyncReply>(&m.body)) {
    out.body = async_to(*ga, true);
  } else if (const auto* e = std::get_if<ExperimenterMsg>(&m.body); e && is_bundle_control(*e)) {
    // A well-formed ONF bundle message is 1.4's standard one; anything else stays an experimenter message.
    if (auto c = decode_bundle_control(*e); c.ok())
      out.body = std::move(*c);
    else
      out.body = m;
  } else if (e && is_bundle_add(*e)) {
    if (auto a = decode_bundle_add(*e); a.ok())
      out.body = std::move(*a);
    else
      out.body = m;
  } else if (const auto* err = std::get_if<ErrorMsg>(&m.body)) {
    BundleFailedCode code;
    Message copy = m;
    if (bundle_error_code(*err, code)) {
      ErrorMsg& ce = copy.as<ErrorMsg>();
      ce.type = uint16_t(ErrorType::kBundleFailed);
      ce.code = uint16_t(code);
      ce.experimenter = 0;
    }
    out.body = std::move(copy);
  } else if (const auto* mr = std::get_if<MultipartReply>(&m.body)) {
    if (const auto* fs = std::get_if<FlowStatsReply>(&mr->body)) {
      of14::FlowStatsReply r{mr->flags, fs->stats, {}};
      for (const FlowStats& s : fs->stats) r.importance.push_back(s.importance);
      out.body = std::move(r);
    } else if (const auto* pd = std::get_if<PortDescReply>(&mr->body)) {
      of14::PortDescReply r;
      r.flags = mr->flags;
      for (const PortDesc& d : pd->ports) r.ports.push_back(of14::Port{d, true, {}});
      out.body = std::move(r);
    } else if (const auto* pst = std::get_if<PortStatsReply>(&mr->body)) {
      out.body = of14::PortStatsReply{mr->flags, pst->stats};
    } else if (const auto* td = std::get_if<TableDescReply>(&mr->body)) {
      out.body = of14::TableDescReply{mr->flags, td->tables};
    } else if (const auto* q = std::get_if<QueueStatsReply>(&mr->body)) {
      out.body = of14::QueueStatsReply{mr->flags, q->stats};
    } else {
      out.body = m;
    }
  } else {
    out.body = m;
  }
  return out;
}

}  // namespace

Result<Message, OfError> decode_of14(ByteSpan wire) {
  auto m = of14::decode_of14(wire);
  if (!m.ok()) return unexpected(std::move(m.error()));
  return to_shared(std::move(*m));
}

Result<Bytes, OfError> encode_of14(const Message& msg) {
  auto m = from_shared(msg);
  if (!m.ok()) return unexpected(std::move(m.error()));
  return of14::encode_of14(*m);
}

BasicStatus<OfError> encode_of14_to(const Message& msg, Bytes& out) {
  auto wire = encode_of14(msg);
  if (!wire.ok()) return unexpected(std::move(wire.error()));
  out.insert(out.end(), wire->begin(), wire->end());
  return {};
}

}  // namespace flowlab::of

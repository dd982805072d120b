// learning-switch wire templates (see learning_switch_wire.h).
#include "controller/apps/learning_switch_wire.h"

#include <cstring>

#include "controller/flows.h"
#include "openflow/codec.h"

namespace flowlab::controller {

of::FlowMod learned_flow(uint8_t table, uint32_t in_port, const uint8_t* src, const uint8_t* dst,
                         uint32_t out, uint16_t idle) {
  of::Match m;
  m.add(of::OxmField::basic(of::OxmId::kInPort, in_port));
  m.add(mac_field(of::OxmId::kEthSrc, src));
  m.add(mac_field(of::OxmId::kEthDst, dst));
  return make_flow(table, 1, std::move(m), {of::Action::output(out)}, idle);
}

namespace {

of::PacketOut sample_packet_out(uint32_t buffer_id, uint32_t in_port, uint32_t out, ByteSpan data) {
  of::PacketOut po;
  po.buffer_id = buffer_id;
  po.in_port = in_port;
  po.actions = {of::Action::output(out)};
  if (buffer_id == of::kNoBuffer) po.data.assign(data.begin(), data.end());
  return po;
}

bool encode(uint8_t version, uint32_t xid, of::MessageBody body, Bytes& out) {
  auto w = of::encode_message(of::Message{version, xid, std::move(body)});
  if (!w.ok()) return false;
  out = std::move(*w);
  return true;
}

}  // namespace

bool LearningSwitch::Wire::put_port(uint8_t* p, uint32_t port) const {
  if (version >= of::kOf13) {
    store_be32(p, port);
    return true;
  }
  // OF1.0 ports are 16 bits; the special ports keep their low 16 bits.
  if (port >= 0xff00 && port < 0xffffff00) return false;
  store_be16(p, uint16_t(port));
  return true;
}

bool LearningSwitch::Wire::flow_mod(Bytes& buf, uint32_t xid, uint32_t in_port, const uint8_t* src,
                                    const uint8_t* dst, uint32_t out) const {
  size_t o = buf.size();
  buf.insert(buf.end(), flow.begin(), flow.end());
  uint8_t* m = buf.data() + o;
  store_be32(m + 4, xid);
  if (!put_port(m + flow_in_port, in_port) || !put_port(m + flow_port, out)) {
    buf.resize(o);
    return false;
  }
  std::memcpy(m + flow_src, src, 6);
  std::memcpy(m + flow_dst, dst, 6);
  return true;
}

bool LearningSwitch::Wire::packet_out(Bytes& buf, uint32_t xid, uint32_t buffer_id, uint32_t in_port,
                                      uint32_t port, ByteSpan data) const {
  if (buffer_id != of::kNoBuffer) data = {};
  if (out.size() + data.size() > 0xffff) return false;
  size_t o = buf.size();
  buf.insert(buf.end(), out.begin(), out.end());
  buf.insert(buf.end(), data.begin(), data.end());
  uint8_t* m = buf.data() + o;
  store_be16(m + 2, uint16_t(out.size() + data.size()));
  store_be32(m + 4, xid);
  store_be32(m + out_buffer, buffer_id);
  if (!put_port(m + out_in_port, in_port) || !put_port(m + out_port, port)) {
    buf.resize(o);
    return false;
  }
  return true;
}

auto LearningSwitch::Wire::build(uint8_t version, uint8_t table, uint16_t idle)
    -> std::shared_ptr<const Wire> {
  auto w = std::make_shared<Wire>();
  w->version = version;
  static constexpr uint8_t kZero[6] = {};
  if (!encode(version, 0, learned_flow(table, 1, kZero, kZero, 1, idle), w->flow)) return nullptr;
  if (!encode(version, 0, sample_packet_out(of::kNoBuffer, 1, 1, {}), w->out)) return nullptr;
  if (version >= of::kOf13) {  // 1.4's and 1.5's flow-mod are 1.3's (importance in the pad)
    // ofp_flow_mod (48) + ofp_match with OXM in_port(8) eth_src(10) eth_dst(10) + apply-actions(8) +
    // output(16).
    w->flow_in_port = 56, w->flow_src = 64, w->flow_dst = 74, w->flow_port = 92;
    if (version >= of::kOf15) {
      // ofp_packet_out (16: buffer_id, actions_len, pad) + ofp_match with OXM in_port (16,
      // padded) + output action (16).
      w->out_buffer = 8, w->out_in_port = 24, w->out_port = 36;
    } else {
      // ofp_packet_out (24) + output action (16).
      w->out_buffer = 8, w->out_in_port = 12, w->out_port = 28;
    }
  } else if (version == of::kOf10) {
    // ofp_match inside ofp_flow_mod: in_port @12, dl_src @14, dl_dst @20; output action @72.
    w->flow_in_port = 12, w->flow_src = 14, w->flow_dst = 20, w->flow_port = 76;
    // ofp_packet_out (16) + output action (8).
    w->out_buffer = 8, w->out_in_port = 12, w->out_port = 20;
  } else {
    return nullptr;
  }
  if (w->flow.size() < w->flow_port + 4 || w->out.size() < w->out_port + 4) return nullptr;

  // Check the layout against the codec with sample values.
  static constexpr uint8_t kSrc[6] = {0x02, 0x11, 0x22, 0x33, 0x44, 0x55},
                           kDst[6] = {0x02, 0x66, 0x77, 0x88, 0x99, 0xaa};
  Bytes data(64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = uint8_t(i * 7 + 1);
  for (uint32_t out : {uint32_t{0x0456}, of::port::kFlood, of::port::kInPort}) {
    Bytes want, got;
    if (!encode(version, 0x01020304, learned_flow(table, 0x0123, kSrc, kDst, out, idle), want))
      return nullptr;
    if (!w->flow_mod(got, 0x01020304, 0x0123, kSrc, kDst, out) || got != want) return nullptr;
    for (uint32_t buffer : {of::kNoBuffer, uint32_t{0x777}}) {
      want.clear();
      got.clear();
      if (!encode(version, 0xa0b0c0d0, sample_packet_out(buffer, 0x0123, out, data), want)) return nullptr;
      if (!w->packet_out(got, 0xa0b0c0d0, buffer, 0x0123, out, data) || got != want) return nullptr;
    }
  }
  return w;
}

}  // namespace flowlab::controller

// learning-switch app (see learning_switch.h).
#include "controller/apps/learning_switch.h"

#include <algorithm>
#include <iterator>

#include "controller/apps/learning_switch_wire.h"
#include "controller/flows.h"
#include "core/log.h"
#include "openflow/codec.h"

namespace flowlab::controller {

namespace {

bool link_local(const uint8_t* dst, uint16_t eth_type) {
  static constexpr uint8_t kBridgeGroup[5] = {0x01, 0x80, 0xc2, 0x00, 0x00};
  return eth_type == 0x88cc || (std::equal(kBridgeGroup, kBridgeGroup + 5, dst) && (dst[5] & 0xf0) == 0);
}

}  // namespace

const LearningSwitch::Wire* LearningSwitch::wire_for(Datapath& dp) {
  // One slot per version: 1.0, 1.3, 1.4 (1.3's layout, version 5), 1.5.
  static constexpr uint8_t kVersions[] = {of::kOf10, of::kOf13, of::kOf14, of::kOf15};
  const auto* v = std::find(std::begin(kVersions), std::end(kVersions), dp.version());
  if (v == std::end(kVersions)) return nullptr;
  const size_t slot = size_t(v - std::begin(kVersions));
  if (!wire_[slot]) {
    wire_[slot] = Wire::build(dp.version(), table_for(dp), idle_timeout_);
    if (!wire_[slot]) {
      log::warn("learning-switch",
                "wire templates for OpenFlow 0x{:02x} do not match the codec; using the slow path",
                dp.version());
      wire_[slot] = std::make_shared<const Wire>();  // version 0: never used, never rebuilt
    }
  }
  return wire_[slot]->version ? wire_[slot].get() : nullptr;
}

namespace {

#ifndef NDEBUG
// Debug builds: the fast path's bytes must equal the codec's.
void check_wire(ByteSpan fast, uint8_t version, of::MessageBody body) {
  uint32_t xid = load_be32(&fast[4]);
  auto want = of::encode_message(of::Message{version, xid, std::move(body)});
  if (!want.ok() || !std::equal(fast.begin(), fast.end(), want->begin(), want->end())) {
    log::error("learning-switch", "fast-path encoding differs from the codec: {}", to_hex(fast));
    std::abort();
  }
}
#endif

}  // namespace

void LearningSwitch::switch_connected(Datapath& dp) {
  {
    std::lock_guard lock(mu_);
    tables_[dp.dpid()].clear();
    wire_for(dp);
  }
  auto st = dp.flow_mod(table_miss_to_controller(table_for(dp), of::kControllerMaxLenNoBuffer));
  if (!st.ok())
    log::warn("learning-switch", "{}: cannot install the table-miss flow: {}", dp.name(), st.error().message);
}

void LearningSwitch::switch_disconnected(Datapath& dp) {
  std::lock_guard lock(mu_);
  tables_.erase(dp.dpid());
}

uint32_t LearningSwitch::learned_port(uint64_t dpid, uint64_t mac) const {
  std::lock_guard lock(mu_);
  auto t = tables_.find(dpid);
  if (t == tables_.end()) return 0;
  auto e = t->second.find(mac);
  return e == t->second.end() ? 0 : e->second;
}

void LearningSwitch::forget_mac(Datapath& dp, const uint8_t* mac) {
  // Delete the flows towards and from the MAC, in our table.
  for (of::OxmId id : {of::OxmId::kEthDst, of::OxmId::kEthSrc}) {
    of::FlowMod del;
    del.table_id = table_for(dp);
    del.command = of::FlowModCommand::kDelete;
    del.match.add(mac_field(id, mac));
    auto st = dp.flow_mod(std::move(del));
    (void)st;
  }
}

Verdict LearningSwitch::packet_in(Datapath& dp, PacketInEvent& ev) {
  const FlowKey& k = ev.key;
  if (ev.pi.data.size() < 14) return Verdict::kConsumed;
  if (link_local(k.eth_dst, k.eth_type)) return Verdict::kConsumed;  // never flooded
  uint64_t src = mac_u64(k.eth_src), dst = mac_u64(k.eth_dst);
  uint32_t out = 0;
  bool moved = false;
  const Wire* wire = nullptr;
  {
    std::lock_guard lock(mu_);
    wire = ev.narrow.fields.empty() ? wire_for(dp) : nullptr;
    auto& table = tables_[dp.dpid()];
    if (!(k.eth_src[0] & 1)) {
      auto [it, inserted] = table.try_emplace(src, ev.in_port);
      if (!inserted && it->second != ev.in_port) {
        moved = true;
        it->second = ev.in_port;
      }
    }
    if (auto it = table.find(dst); it != table.end()) out = it->second;
  }
  if (moved) {
    log::info("learning-switch", "{}: {} moved to port {}", dp.name(), MacAddr::from_u64(src).to_string(),
              ev.in_port);
    forget_mac(dp, k.eth_src);
  }
  if (out == ev.in_port) return Verdict::kConsumed;  // would go back where it came from
  thread_local Bytes buf;                            // fast-path encoding buffer, reused
  if (out != 0) {
    Status st;
    buf.clear();
    if (wire && wire->flow_mod(buf, dp.connection().next_xid(), ev.in_port, k.eth_src, k.eth_dst, out)) {
#ifndef NDEBUG
      check_wire(buf, dp.version(),
                 learned_flow(table_for(dp), ev.in_port, k.eth_src, k.eth_dst, out, idle_timeout_));
#endif
      st = dp.send_wire(buf, of::MsgType::kFlowMod);
    } else {
      of::FlowMod fm = learned_flow(table_for(dp), ev.in_port, k.eth_src, k.eth_dst, out, idle_timeout_);
      for (const auto& f : ev.narrow.fields) fm.match.add(f);
      st = dp.flow_mod(std::move(fm));
    }
    if (!st.ok()) log::debug("learning-switch", "{}: flow-mod refused: {}", dp.name(), st.error().message);
  }
  uint32_t port = out ? out : of::port::kFlood;
  Status st;
  buf.clear();
  if (wire &&
      wire->packet_out(buf, dp.connection().next_xid(), ev.pi.buffer_id, ev.in_port, port, ev.pi.data)) {
#ifndef NDEBUG
    check_wire(buf, dp.version(), packet_out_for(ev, {of::Action::output(port)}));
#endif
    st = dp.send_wire(buf, of::MsgType::kPacketOut);
  } else {
    st = dp.packet_out(packet_out_for(ev, {of::Action::output(port)}));
  }
  if (!st.ok()) log::debug("learning-switch", "{}: packet-out refused: {}", dp.name(), st.error().message);
  return Verdict::kConsumed;
}

Verdict LearningSwitch::port_status(Datapath& dp, const of::PortStatus& ps) {
  bool gone =
      ps.reason == uint8_t(of::PortStatusReason::kDelete) || (ps.desc.state & of::port_state::kLinkDown);
  if (!gone) return Verdict::kContinue;
  std::lock_guard lock(mu_);
  auto& table = tables_[dp.dpid()];
  std::erase_if(table, [&](const auto& e) { return e.second == ps.desc.port_no; });
  of::FlowMod del;
  del.table_id = table_for(dp);
  del.command = of::FlowModCommand::kDelete;
  del.out_port = ps.desc.port_no;
  auto st = dp.flow_mod(std::move(del));
  (void)st;
  return Verdict::kContinue;
}

}  // namespace flowlab::controller

// learning-switch fast path: wire templates for the two answers to a packet-in.
//
// Design: the learned flow-mod (in_port, eth_src, eth_dst -> output) and the
// packet-out are encoded ONCE per OpenFlow version by the codec, from the same
// builders the slow path uses (learned_flow(), packet_out_for()), with
// placeholder values. Each packet-in then appends a template to a reused buffer
// and patches xid, ports, MACs, buffer id and length at fixed offsets: no
// of::Message, Match, OxmField or vector allocation, no variant dispatch.
// Invariant (checked): a patched template is byte-identical to the codec's
// encoding of the same message. build() patches templates with sample values
// (ordinary and special ports, buffered and unbuffered, with data) and compares
// with encode_message(); on any difference it returns null and the app keeps
// the slow path for that version. Debug builds also compare every message sent.
// Cases the templates cannot express (an OF1.0 port above 0xff00 that is not a
// special port, fields narrowed by an earlier app, oversize data) return false
// and take the slow path.
#pragma once

#include <cstdint>
#include <memory>

#include "controller/apps/learning_switch.h"
#include "core/bytes.h"
#include "openflow/message.h"

namespace flowlab::controller {

// The flow-mod the learning switch installs for a known destination.
of::FlowMod learned_flow(uint8_t table, uint32_t in_port, const uint8_t* src, const uint8_t* dst,
                         uint32_t out, uint16_t idle);

struct LearningSwitch::Wire {
  uint8_t version = 0;
  Bytes flow, out;  // templates: learned flow-mod, packet-out without data
  size_t flow_in_port = 0, flow_src = 0, flow_dst = 0, flow_port = 0;
  size_t out_buffer = 0, out_in_port = 0, out_port = 0;

  // Null when the codec's output does not match the expected layout.
  static std::shared_ptr<const Wire> build(uint8_t version, uint8_t table, uint16_t idle);
  // Append one message to `buf`; false (buf unchanged) when the template cannot express it.
  bool flow_mod(Bytes& buf, uint32_t xid, uint32_t in_port, const uint8_t* src, const uint8_t* dst,
                uint32_t out) const;
  bool packet_out(Bytes& buf, uint32_t xid, uint32_t buffer_id, uint32_t in_port, uint32_t out,
                  ByteSpan data) const;

 private:
  bool put_port(uint8_t* p, uint32_t port) const;
};

}  // namespace flowlab::controller

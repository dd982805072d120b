// Header-rewriting actions on one packet: set-field on every settable field with
// checksum fix-ups, copy-field, push/pop VLAN, MPLS and PBB, TTL set/decrement/copy, DSCP remark.
//
// Checksums are updated incrementally (RFC 1624). When the frame carries a
// partial checksum (offload kNeedsCsum with csum_start at the L4 header), the
// L4 field holds only the pseudo-header sum: address rewrites update that sum
// and port rewrites need nothing (the ports are summed later by whoever
// completes it). Push/pop shift csum_start and hdr_len with the headers.
#pragma once

#include <cstdint>

#include "openflow/message.h"
#include "openflow/oxm.h"
#include "packet/flow_key.h"
#include "packet/packet.h"

namespace flowlab::dp {

// A packet in flight with its parsed key. key_stale: a set-field changed bytes
// the key still describes the old way; refresh() before matching on it again.
struct PacketContext {
  Packet* pkt = nullptr;
  FlowKey key;
  PacketLayers layers;
  bool key_stale = false;
  uint32_t queue_id = 0;
  uint32_t actset_output = of::port::kUnset;  // OF1.5: the action set's output port, or OFPP_UNSET

  void reparse() {
    extract_flow_key(*pkt, key, layers);
    key.actset_output = actset_output;
    key_stale = false;
  }
  void set_actset_output(uint32_t port) {
    actset_output = port;
    key.actset_output = port;
  }
  void refresh() {
    if (key_stale) reparse();
  }
};

// A layer offset the packet does not have (PacketLayers::kNone).
inline constexpr uint16_t kNoLayer = PacketLayers::kNone;

enum class ActionResult : uint8_t { kOk, kSkipped, kInvalidTtl };

// Whether the packet has an IPv4 or IPv6 header the actions can reach.
inline bool is_ip(const PacketContext& pc) {
  return (pc.layers.ipv4 || pc.layers.ipv6) && pc.layers.l3 != PacketLayers::kNone;
}

ActionResult set_field(PacketContext& pc, const of::OxmField& f);
ActionResult push_vlan(PacketContext& pc, uint16_t tpid);
ActionResult pop_vlan(PacketContext& pc);
ActionResult push_mpls(PacketContext& pc, uint16_t ethertype);
ActionResult pop_mpls(PacketContext& pc, uint16_t ethertype);
// PBB (802.1ah): push puts B-DA B-SA 0x88e7 I-TAG in front of the frame, which
// becomes the customer frame (C-DA C-SA ...); B-DA/B-SA are copied from it, the
// I-TAG's PCP from its outer VLAN tag and the I-SID from an I-TAG it already
// carries (0 otherwise). Pop removes everything up to the customer frame.
ActionResult push_pbb(PacketContext& pc, uint16_t ethertype);
ActionResult pop_pbb(PacketContext& pc);
ActionResult set_mpls_ttl(PacketContext& pc, uint8_t ttl);
ActionResult dec_mpls_ttl(PacketContext& pc);
ActionResult set_nw_ttl(PacketContext& pc, uint8_t ttl);
ActionResult dec_nw_ttl(PacketContext& pc);
ActionResult copy_ttl_out(PacketContext& pc);
ActionResult copy_ttl_in(PacketContext& pc);
// Rewrites the IP DSCP (IPv4 with header checksum fix-up, or IPv6 traffic class).
ActionResult set_dscp(PacketContext& pc, uint8_t dscp);

// Copy-field: n_bits of the source field (as the key has it now) into the
// destination field, written as a set-field of the whole new value (so the
// checksums follow it). Validation guarantees both fields are known, the
// destination settable and the bits inside both.
ActionResult copy_field(PacketContext& pc, const of::CopyField& c);

// Runs one header-rewriting action (set-field, push/pop VLAN, MPLS, PBB, TTL
// set/decrement/copy); kSkipped for any other type (outputs, groups, queues are
// the pipeline's). `of10`: OpenFlow 1.0 set_vlan_vid / set_vlan_pcp on an
// untagged frame add a tag (VID 0, PCP 0) first.
ActionResult apply_header_action(PacketContext& pc, const of::Action& a, bool of10);

// Copies a packet (bytes, offload metadata, pipeline fields) into dst.
void copy_packet(const Packet& src, Packet& dst);

}  // namespace flowlab::dp

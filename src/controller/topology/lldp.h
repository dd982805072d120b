// LLDP frames for link discovery (IEEE 802.1AB), in the form Ryu/os-ken and
// ONOS use: destination 01:80:c2:00:00:0e (nearest bridge), ethertype 0x88cc,
// chassis ID TLV subtype 7 (locally assigned) "dpid:<16 hex digits>", port ID
// TLV subtype 2 (port component) the OpenFlow port number as 4 bytes big
// endian, TTL TLV, end TLV. A frame sent on (dpid, port) and received on
// another switch's port proves the link between them.
#pragma once

#include <cstdint>
#include <optional>

#include "core/bytes.h"
#include "core/result.h"
#include "packet/addr.h"

namespace flowlab::controller::topology {

inline constexpr uint16_t kEthTypeLldp = 0x88cc;
inline constexpr MacAddr kLldpDst{{0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e}};

struct LldpId {
  uint64_t dpid = 0;
  uint32_t port_no = 0;
  bool operator==(const LldpId&) const = default;
};

// The frame announcing (dpid, port_no), sent from src (the port's hw address).
Bytes encode_lldp(const LldpId& id, MacAddr src, uint16_t ttl_s = 120);
// Parses a frame; errors name what is wrong (not LLDP, truncated TLV, a
// chassis/port ID this controller did not write).
Result<LldpId> decode_lldp(ByteSpan frame);

}  // namespace flowlab::controller::topology

// OpenFlow 1.0 wire details shared by the of10_*.cpp files (private to the codec).
//
// Every decoder here reads through one ByteReader over the whole message, so the
// reader's offset is the byte offset reported in an OfError. Decoders never read
// past the reader's span; structure lengths are checked against what is left
// before anything is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/message.h"

namespace flowlab::of::of10 {

using EncodeStatus = BasicStatus<OfError>;

// OF1.0 message types.
enum class Type : uint8_t {
  kHello = 0,
  kError = 1,
  kEchoRequest = 2,
  kEchoReply = 3,
  kVendor = 4,
  kFeaturesRequest = 5,
  kFeaturesReply = 6,
  kGetConfigRequest = 7,
  kGetConfigReply = 8,
  kSetConfig = 9,
  kPacketIn = 10,
  kFlowRemoved = 11,
  kPortStatus = 12,
  kPacketOut = 13,
  kFlowMod = 14,
  kPortMod = 15,
  kStatsRequest = 16,
  kStatsReply = 17,
  kBarrierRequest = 18,
  kBarrierReply = 19,
  kQueueGetConfigRequest = 20,
  kQueueGetConfigReply = 21,
};

// OF1.0 stats types (same numbers as the OF1.3 multipart types they become).
enum class StatsType : uint16_t {
  kDesc = 0,
  kFlow = 1,
  kAggregate = 2,
  kTable = 3,
  kPort = 4,
  kQueue = 5,
  kVendor = 0xffff,
};

inline constexpr size_t kMatchLen = 40;
inline constexpr size_t kPhyPortLen = 48;
inline constexpr uint16_t kPortMax = 0xff00;   // OFPP_MAX: highest physical port
inline constexpr uint16_t kPortNone = 0xffff;  // OFPP_NONE

// 16-bit OF1.0 port -> 32-bit model port (0xff00.. -> 0xffffff00..).
inline uint32_t widen_port(uint16_t p) { return p >= kPortMax ? 0xffff0000u | p : p; }
// 32-bit model port -> OF1.0 port; false if it has no OF1.0 spelling.
inline bool narrow_port(uint32_t p, uint16_t& out) {
  if (p < kPortMax) {
    out = static_cast<uint16_t>(p);
    return true;
  }
  if (p >= 0xffffff00u) {
    out = static_cast<uint16_t>(p & 0xffff);
    return true;
  }
  return false;
}
// narrow_port() or an OFPBRC_BAD_PORT error naming `what`.
Result<uint16_t, OfError> narrow_port_or_error(uint32_t p, std::string_view what);

// Error helpers: `what` names the structure, the offset is the reader's.
template <typename Code>
OfError err_at(Code c, size_t offset, std::string msg) {
  return OfError::make(c, std::move(msg), offset);
}
OfError truncated(const ByteReader& r, std::string_view what, size_t need);

// Port features bitmaps (curr/advertised/supported/peer): OF1.0 bits 7..11
// (copper, fiber, autoneg, pause, pause_asym) are OF1.3 bits 11..15.
uint32_t features_from_of10(uint32_t f);
uint32_t features_to_of10(uint32_t f);

// ofp_match (40 bytes) <-> Match.
Result<Match, OfError> decode_match(ByteReader& r);
EncodeStatus encode_match(const Match& m, ByteWriter& w);

// Action lists of `len` bytes at the reader's position.
Result<ActionList, OfError> decode_actions(ByteReader& r, size_t len);
EncodeStatus encode_actions(const ActionList& actions, ByteWriter& w);
// The actions of an OF1.3 instruction list that OF1.0 can express (at most one
// apply-actions instruction), or an error naming what OF1.0 lacks.
Result<const ActionList*, OfError> actions_of(const InstructionList& insts, std::string_view what);
InstructionList instructions_from(ActionList actions);

// ofp_phy_port (48 bytes) <-> PortDesc.
Result<PortDesc, OfError> decode_phy_port(ByteReader& r);
EncodeStatus encode_phy_port(const PortDesc& p, ByteWriter& w);

// Stats request/reply bodies (after the 12-byte stats header).
Result<MultipartRequest, OfError> decode_stats_request(ByteReader& r);
Result<MultipartReply, OfError> decode_stats_reply(ByteReader& r);
EncodeStatus encode_stats_request(const MultipartRequest& m, ByteWriter& w);
EncodeStatus encode_stats_reply(const MultipartReply& m, ByteWriter& w);

// Hello elements (to the end of the message) and queue_get_config_reply bodies.
Result<std::vector<HelloElement>, OfError> decode_hello_elements(ByteReader& r);
void encode_hello_elements(const std::vector<HelloElement>& elems, ByteWriter& w);
Result<QueueGetConfigReply, OfError> decode_queue_config_reply(ByteReader& r);
EncodeStatus encode_queue_config_reply(const QueueGetConfigReply& q, ByteWriter& w);

}  // namespace flowlab::of::of10

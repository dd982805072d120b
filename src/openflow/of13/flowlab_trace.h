// flowlab's trace experimenter messages (OF1.3): a client asks the switch to
// run a packet through its own pipeline, read-only, and gets the trace back
// (`flowlab ofctl trace`, docs/SWITCH.md "Trace").
//
// Both are OFPT_EXPERIMENTER with experimenter kFlowlabExperimenter
// (0x464C4142, "FLAB" in ASCII), after the 16-byte experimenter header:
//   request  (exp_type 1): in_port (u32), format (u8: 0 text, 1 JSON), 3 zero
//                          bytes, then the Ethernet frame (14 to kMaxTraceFrame bytes)
//   reply    (exp_type 2): format (u8), 3 zero bytes, then the trace as UTF-8
//                          text (no NUL), at most kMaxTraceText bytes
// A request that does not decode is answered with OFPT_ERROR
// OFPET_BAD_REQUEST (OFPBRC_BAD_LEN, OFPBRC_BAD_PORT or OFPBRC_BAD_PACKET).
//
// These functions only translate between the ExperimenterMsg the OF1.3 codec
// decodes and the request/reply; they never touch a switch.
#pragma once

#include <cstdint>
#include <string>

#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/message.h"

namespace flowlab::of {

inline constexpr uint32_t kFlowlabExperimenter = 0x464C4142;  // "FLAB"
inline constexpr uint32_t kFlowlabTraceRequest = 1;
inline constexpr uint32_t kFlowlabTraceReply = 2;
// Message (64 KB) minus the OpenFlow, experimenter and request headers.
inline constexpr size_t kMaxTraceFrame = 65535 - 16 - 8;
inline constexpr size_t kMaxTraceText = 65535 - 16 - 4;
inline constexpr size_t kMinTraceFrame = 14;  // an Ethernet header

enum class TraceFormat : uint8_t { kText = 0, kJson = 1 };

struct TraceRequest {
  uint32_t in_port = 0;
  TraceFormat format = TraceFormat::kText;
  Bytes packet;
  bool operator==(const TraceRequest&) const = default;
};

struct TraceReply {
  TraceFormat format = TraceFormat::kText;
  std::string text;
  bool operator==(const TraceReply&) const = default;
};

bool is_trace_request(const ExperimenterMsg& e);
bool is_trace_reply(const ExperimenterMsg& e);

// Errors carry the OFPT_ERROR to answer with (bad request codes above).
Result<TraceRequest, OfError> decode_trace_request(const ExperimenterMsg& e);
Result<TraceReply, OfError> decode_trace_reply(const ExperimenterMsg& e);
ExperimenterMsg encode_trace_request(const TraceRequest& r);
// Text longer than kMaxTraceText is cut there (at a UTF-8 boundary) and ends in "...\n".
ExperimenterMsg encode_trace_reply(const TraceReply& r);

}  // namespace flowlab::of

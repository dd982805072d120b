// flowlab's trace experimenter messages (see flowlab_trace.h).
#include "openflow/of13/flowlab_trace.h"

#include <fmt/format.h>

#include <algorithm>

#include "openflow/constants.h"

namespace flowlab::of {
namespace {

Unexpected<OfError> bad(BadRequestCode c, std::string msg) {
  return unexpected(OfError::make(c, std::move(msg)));
}

bool valid_port(uint32_t p) {
  return (p != 0 && p <= port::kMax) || p == port::kLocal || p == port::kController;
}

}  // namespace

bool is_trace_request(const ExperimenterMsg& e) {
  return e.experimenter == kFlowlabExperimenter && e.exp_type == kFlowlabTraceRequest;
}
bool is_trace_reply(const ExperimenterMsg& e) {
  return e.experimenter == kFlowlabExperimenter && e.exp_type == kFlowlabTraceReply;
}

Result<TraceRequest, OfError> decode_trace_request(const ExperimenterMsg& e) {
  if (!is_trace_request(e)) return bad(BadRequestCode::kBadExpType, "not a flowlab trace request");
  const Bytes& d = e.data;
  if (d.size() < 8) return bad(BadRequestCode::kBadLen, fmt::format("trace request: {} bytes < 8", d.size()));
  TraceRequest r;
  r.in_port = load_be32(d.data());
  if (!valid_port(r.in_port))
    return bad(BadRequestCode::kBadPort,
               fmt::format("trace request: in_port {:#x} is not a port", r.in_port));
  if (d[4] > uint8_t(TraceFormat::kJson))
    return bad(BadRequestCode::kBadLen, fmt::format("trace request: unknown format {}", d[4]));
  r.format = TraceFormat(d[4]);
  if (d[5] || d[6] || d[7]) return bad(BadRequestCode::kBadLen, "trace request: padding is not zero");
  const size_t n = d.size() - 8;
  if (n < kMinTraceFrame || n > kMaxTraceFrame)
    return bad(BadRequestCode::kBadPacket, fmt::format("trace request: a frame of {} bytes (needs {} to {})",
                                                       n, kMinTraceFrame, kMaxTraceFrame));
  r.packet.assign(d.begin() + 8, d.end());
  return r;
}

Result<TraceReply, OfError> decode_trace_reply(const ExperimenterMsg& e) {
  if (!is_trace_reply(e)) return bad(BadRequestCode::kBadExpType, "not a flowlab trace reply");
  const Bytes& d = e.data;
  if (d.size() < 4) return bad(BadRequestCode::kBadLen, fmt::format("trace reply: {} bytes < 4", d.size()));
  if (d[0] > uint8_t(TraceFormat::kJson))
    return bad(BadRequestCode::kBadLen, fmt::format("trace reply: unknown format {}", d[0]));
  if (d.size() - 4 > kMaxTraceText) return bad(BadRequestCode::kBadLen, "trace reply: text too long");
  if (std::find(d.begin() + 4, d.end(), uint8_t(0)) != d.end())
    return bad(BadRequestCode::kBadLen, "trace reply: text holds a NUL byte");
  TraceReply r;
  r.format = TraceFormat(d[0]);
  r.text.assign(d.begin() + 4, d.end());
  return r;
}

ExperimenterMsg encode_trace_request(const TraceRequest& r) {
  ExperimenterMsg e;
  e.experimenter = kFlowlabExperimenter;
  e.exp_type = kFlowlabTraceRequest;
  // One allocation of the whole body (an insert after a resize(8) also had GCC 12's
  // -O3 report a false -Warray-bounds inside std::vector).
  e.data.assign(8 + r.packet.size(), 0);
  store_be32(e.data.data(), r.in_port);
  e.data[4] = uint8_t(r.format);
  std::copy(r.packet.begin(), r.packet.end(), e.data.begin() + 8);
  return e;
}

ExperimenterMsg encode_trace_reply(const TraceReply& r) {
  ExperimenterMsg e;
  e.experimenter = kFlowlabExperimenter;
  e.exp_type = kFlowlabTraceReply;
  e.data.assign(4, 0);
  e.data[0] = uint8_t(r.format);
  std::string_view text = r.text;
  std::string cut;
  if (text.size() > kMaxTraceText) {
    size_t n = kMaxTraceText - 4;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0) == 0x80) --n;  // not inside a UTF-8 sequence
    cut = std::string(text.substr(0, n)) + "...\n";
    text = cut;
  }
  for (char c : text)
    if (c != '\0') e.data.push_back(static_cast<uint8_t>(c));
  return e;
}

}  // namespace flowlab::of

// The agent's answer to flowlab's trace experimenter request
// (openflow/of13/flowlab_trace.h): the packet runs through the datapath's
// trace (datapath/trace.h), read-only, on the agent thread; the reply carries
// the trace as text or JSON. A request that does not decode gets OFPT_ERROR.
#include <fmt/format.h>

#include "core/log.h"
#include "datapath/trace.h"
#include "openflow/of13/flowlab_trace.h"
#include "switch/agent.h"

namespace flowlab::sw {

void Agent::on_trace(Peer& p, const of::Message& m, ByteSpan raw) {
  const auto& e = m.as<of::ExperimenterMsg>();
  if (!of::is_trace_request(e)) {
    send_error(p,
               of::OfError::make(of::BadRequestCode::kBadExpType,
                                 fmt::format("flowlab experimenter type {} is not supported", e.exp_type)),
               raw);
    return;
  }
  auto req = of::decode_trace_request(e);
  if (!req.ok()) return send_error(p, req.error(), raw);
  Packet pkt(req->packet.size());
  pkt.assign(req->packet.data(), req->packet.size());
  pkt.in_port = req->in_port;
  const dp::Trace t = dp::trace_packet(*ctx_, pkt, fast_path_ports_ ? &fast_path_ports_ : nullptr);
  log::debug("switch", "{}: trace of {} bytes from port {}: {} outputs", p.name, pkt.size(), req->in_port,
             t.outputs.size());
  of::TraceReply r;
  r.format = req->format;
  r.text = req->format == of::TraceFormat::kJson ? dp::format_trace_json(t) : dp::format_trace_text(t);
  reply(p, m.xid, of::encode_trace_reply(r));
}

}  // namespace flowlab::sw

// libFuzzer target for flowlab's trace experimenter messages
// (openflow/of13/flowlab_trace.h) as the switch meets them: any input must
// decode or fail cleanly; a request that decodes re-encodes to the same body
// and is traced through a small pipeline (goto, select and all groups,
// set-field, a meter, CONTROLLER) and formatted, as the agent answers it; a
// reply that decodes round-trips. Input not starting like an OpenFlow 1.3
// message is flow text for `ofctl trace` (openflow/text/flow_packet.h): a
// packet it builds is traced too.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "datapath/trace.h"
#include "openflow/codec.h"
#include "openflow/of13/flowlab_trace.h"
#include "openflow/text/flow_packet.h"
#include "openflow/text/flow_text.h"

namespace {

using namespace flowlab;

struct Ports : dp::PortView {
  void list_ports(std::vector<uint32_t>& out) const override { out = {1, 2, 3}; }
  bool is_live(uint32_t p) const override { return p != 3; }
};
struct NoOut : dp::OutputSink, dp::ControllerSink {
  void output(const Packet&, uint32_t, uint32_t) override { std::abort(); }  // the trace sends nothing
  void packet_in(const dp::PacketInInfo&, const Packet&) override { std::abort(); }
};

dp::DatapathConfig config() {
  dp::DatapathConfig c;
  c.n_tables = 4;
  return c;
}

struct Rig {
  Ports ports;
  NoOut sink;
  dp::Datapath dp{config(), &ports};
  dp::ForwardingContext ctx{dp, sink, sink};
  Rig() {
    auto mm = of::parse_meter_mod("meter=1,kbps,bands=type=drop,rate=1000", of::MeterModCommand::kAdd);
    (void)dp.meter_mod(*mm, 1);
    for (const char* g :
         {"group_id=1,type=select,bucket=weight:1,watch_port:3,actions=output:3,"
          "bucket=weight:2,actions=set_field:00:00:00:00:00:09->eth_dst,output:2",
          "group_id=2,type=all,bucket=actions=output:1,bucket=actions=push_vlan:0x8100,group:1"}) {
      auto gm = of::parse_group_mod(g, of::GroupModCommand::kAdd);
      (void)dp.group_mod(*gm, 1);
    }
    for (const char* f : {"table=0,priority=10,tcp,actions=meter:1,set_field:10.0.0.9->ip_dst,goto_table:1",
                          "table=0,priority=5,udp,actions=dec_ttl,write_actions(group:2),goto_table:2",
                          "table=0,priority=1,arp,actions=FLOOD", "table=0,priority=0,actions=CONTROLLER:64",
                          "table=1,priority=5,ip,nw_dst=10.0.0.9,actions=group:1,goto_table:3",
                          "table=2,priority=1,vlan_tci=0/0x1000,actions=write_actions(output:IN_PORT)"}) {
      auto fm = of::parse_flow_mod(f);
      (void)dp.flow_mod(*fm, 1);
    }
  }
  void trace(ByteSpan frame, uint32_t in_port) {
    Packet p(frame.size() + 64);
    p.assign(frame.data(), frame.size());
    p.in_port = in_port;
    const std::function<bool(uint32_t)> usable = [](uint32_t no) { return no != 2; };
    const dp::Trace t = dp::trace_packet(ctx, p, &usable);
    if (dp::format_trace_text(t).empty() || dp::format_trace_json(t).empty()) std::abort();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace flowlab::of;
  static auto* rig = new Rig();  // NOLINT: one pipeline for the whole run
  ByteSpan in(data, size);
  if (size == 0 || data[0] != kOf13) {
    auto p = packet_from_flow_text(std::string_view(reinterpret_cast<const char*>(data), size));
    if (p.ok()) rig->trace(p->frame, p->in_port ? p->in_port : 1);
    return 0;
  }
  auto msg = decode_message(in);
  if (!msg.ok()) return 0;
  const auto* e = std::get_if<ExperimenterMsg>(&msg->body);
  if (!e) return 0;
  if (auto req = decode_trace_request(*e); req.ok()) {
    if (encode_trace_request(*req) != *e) std::abort();
    rig->trace(req->packet, req->in_port);
  }
  if (auto rep = decode_trace_reply(*e); rep.ok()) {
    auto again = decode_trace_reply(encode_trace_reply(*rep));
    if (!again.ok() || *again != *rep) std::abort();
  }
  return 0;
}

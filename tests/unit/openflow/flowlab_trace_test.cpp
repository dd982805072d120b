// flowlab's trace experimenter messages (of13/flowlab_trace.h) through the
// OF1.3 codec, and packets built from flow text (text/flow_packet.h).
#include "openflow/of13/flowlab_trace.h"

#include <gtest/gtest.h>

#include "openflow/codec.h"
#include "openflow/text/flow_packet.h"
#include "openflow/text/flow_text.h"
#include "packet/flow_key.h"

namespace flowlab::of {
namespace {

FlowKey key_of(const Bytes& frame) {
  FlowKey k;
  PacketLayers l;
  extract_flow_key(frame.data(), frame.size(), 1, 0, 0, k, l);
  return k;
}

TEST(FlowlabTrace, RequestAndReplyRoundTripThroughTheCodec) {
  TraceRequest req{7, TraceFormat::kJson, Bytes(60, 0xab)};
  Message m{kOf13, 42, encode_trace_request(req)};
  auto wire = encode_message(m);
  ASSERT_TRUE(wire.ok());
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  auto r = decode_trace_request(back->as<ExperimenterMsg>());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(*r, req);

  TraceReply rep{TraceFormat::kText, "Table 0: ...\n"};
  auto r2 = decode_trace_reply(encode_trace_reply(rep));
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(*r2, rep);
}

TEST(FlowlabTrace, MalformedRequestsAreBadRequestErrors) {
  ExperimenterMsg e = encode_trace_request({1, TraceFormat::kText, Bytes(60, 0)});
  ExperimenterMsg shortm = e;
  shortm.data.resize(5);
  EXPECT_EQ(decode_trace_request(shortm).error().code, uint16_t(BadRequestCode::kBadLen));
  ExperimenterMsg port0 = e;
  port0.data[3] = 0;
  EXPECT_EQ(decode_trace_request(port0).error().code, uint16_t(BadRequestCode::kBadPort));
  ExperimenterMsg tiny = e;
  tiny.data.resize(8 + 13);
  EXPECT_EQ(decode_trace_request(tiny).error().code, uint16_t(BadRequestCode::kBadPacket));
  ExperimenterMsg fmt = e;
  fmt.data[4] = 9;
  EXPECT_FALSE(decode_trace_request(fmt).ok());
  ExperimenterMsg other = e;
  other.exp_type = 99;
  EXPECT_EQ(decode_trace_request(other).error().code, uint16_t(BadRequestCode::kBadExpType));
}

TEST(FlowlabTrace, LongReplyIsCut) {
  TraceReply rep{TraceFormat::kText, std::string(kMaxTraceText + 100, 'x')};
  auto r = decode_trace_reply(encode_trace_reply(rep));
  ASSERT_TRUE(r.ok());
  EXPECT_LE(r->text.size(), kMaxTraceText);
  EXPECT_TRUE(r->text.ends_with("...\n"));
}

TEST(FlowPacket, TcpFromFlowText) {
  auto p = packet_from_flow_text("in_port=3,tcp,nw_src=10.0.0.1,nw_dst=10.0.0.2,tp_dst=80,dl_vlan=5");
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->in_port, 3u);
  FlowKey k = key_of(p->frame);
  EXPECT_EQ(k.eth_type, 0x0800);
  EXPECT_EQ(k.vlan_vid, 0x1005);
  EXPECT_EQ(k.ip_proto, 6);
  EXPECT_EQ(k.ipv4_src, 0x0a000001u);
  EXPECT_EQ(k.ipv4_dst, 0x0a000002u);
  EXPECT_EQ(k.tp_src, 49152);
  EXPECT_EQ(k.tp_dst, 80);
}

TEST(FlowPacket, OtherProtocols) {
  FlowKey k = key_of(*packet_from_match(parse_flow_mod("udp6,ipv6_dst=fd00::9,udp_src=53", {})->match));
  EXPECT_EQ(k.eth_type, 0x86dd);
  EXPECT_EQ(k.ip_proto, 17);
  EXPECT_EQ(k.tp_src, 53);
  EXPECT_EQ(k.ipv6_dst[15], 9);
  k = key_of(packet_from_flow_text("arp,arp_tpa=10.0.0.7,arp_op=2")->frame);
  EXPECT_EQ(k.eth_type, 0x0806);
  EXPECT_EQ(k.arp_op, 2);
  EXPECT_EQ(k.arp_tpa, 0x0a000007u);
  k = key_of(packet_from_flow_text("icmp,icmp_type=0,dl_src=00:11:22:33:44:55")->frame);
  EXPECT_EQ(k.ip_proto, 1);
  EXPECT_EQ(k.icmp_type, 0);
  EXPECT_EQ(k.eth_src[5], 0x55);
  k = key_of(packet_from_flow_text("ip,nw_proto=47,nw_tos=32")->frame);
  EXPECT_EQ(k.ip_proto, 47);
  EXPECT_EQ(k.ip_dscp, 8);
  k = key_of(packet_from_flow_text("in_port=1")->frame);
  EXPECT_EQ(k.eth_type, 0x88b5);
}

TEST(FlowPacket, ErrorsNameTheProblem) {
  auto bad = packet_from_flow_text("in_port=1,tcp,foo=2");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("foo"), std::string::npos);
  auto md = packet_from_flow_text("metadata=5");
  ASSERT_FALSE(md.ok());
  EXPECT_NE(md.error().message.find("metadata"), std::string::npos);
  EXPECT_FALSE(packet_from_flow_text("in_port=1,actions=output:2").ok());
}

}  // namespace
}  // namespace flowlab::of

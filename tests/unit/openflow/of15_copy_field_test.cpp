// Copy-field on the wire: OpenFlow 1.5's OFPAT_COPY_FIELD (28, 24 bytes) and,
// at 1.3/1.4, the ONF extension's experimenter action 3200 (32 bytes), both
// the model's copy-field action; OpenFlow 1.0 has none. The flow text is
// ovs-ofctl's `move:`. Built without os-ken (of15_codec_test.cpp has its
// vectors).
#include <gtest/gtest.h>

#include "openflow/codec.h"
#include "openflow/text/flow_text.h"

namespace flowlab::of {
namespace {

CopyField ip_bits() {
  CopyField c;
  c.n_bits = 8;
  c.src_offset = 0;
  c.dst_offset = 8;
  c.src = 0x80001604;  // ipv4_src
  c.dst = 0x80001804;  // ipv4_dst
  return c;
}

Message flow_mod(uint8_t version) {
  FlowMod fm;
  fm.priority = 5;
  fm.match.add(OxmField::basic(OxmId::kEthType, 0x0800));
  fm.instructions.push_back(Instruction::apply({Action::copy_field(ip_bits()), Action::output(2)}));
  return make_message(version, 7, fm);
}

// The first action of the flow-mod's first instruction.
size_t first_action(const Bytes& wire) {
  const size_t mlen = load_be16(&wire[50]);
  return 48 + ((mlen + 7) & ~size_t(7)) + 8;
}

TEST(CopyFieldWire, Of15IsAction28) {
  auto wire = encode_message(flow_mod(kOf15));
  ASSERT_TRUE(wire.ok()) << wire.error().to_string();
  const size_t a = first_action(*wire);
  const Bytes want = {0, 28, 0, 24, 0, 8, 0, 0, 0, 8, 0, 0, 0x80, 0, 0x16, 4, 0x80, 0, 0x18, 4, 0, 0, 0, 0};
  EXPECT_EQ(Bytes(wire->begin() + long(a), wire->begin() + long(a + 24)), want);
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->as<FlowMod>().instructions, flow_mod(kOf15).as<FlowMod>().instructions);
  auto again = encode_message(*back);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *wire);
}

TEST(CopyFieldWire, Of13And14AreTheOnfExtension) {
  for (uint8_t v : {kOf13, kOf14}) {
    auto wire = encode_message(flow_mod(v));
    ASSERT_TRUE(wire.ok()) << wire.error().to_string();
    const size_t a = first_action(*wire);
    const Bytes want = {0xff, 0xff, 0, 32, 0x4f, 0x4e, 0x46, 0, 0x0c, 0x80, 0,    0, 0, 8, 0, 0,
                        0,    8,    0, 0,  0x80, 0,    0x16, 4, 0x80, 0,    0x18, 4, 0, 0, 0, 0};
    EXPECT_EQ(Bytes(wire->begin() + long(a), wire->begin() + long(a + 32)), want) << int(v);
    auto back = decode_message(*wire);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(back->as<FlowMod>().instructions, flow_mod(v).as<FlowMod>().instructions);
    Bytes bad = *wire;  // an ONF copy-field of the wrong length
    store_be16(&bad[a + 2], 40);
    bad.insert(bad.begin() + long(a + 32), 8, 0);
    store_be16(&bad[2], uint16_t(bad.size()));
    store_be16(&bad[a - 6], uint16_t(load_be16(&bad[a - 6]) + 8));  // the instruction's length
    auto refused = decode_message(bad);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().type, ErrorType::kBadAction);
    EXPECT_EQ(refused.error().code, uint16_t(BadActionCode::kBadLen));
  }
}

TEST(CopyFieldWire, Of10HasNone) {
  auto wire = encode_message(flow_mod(kOf10));
  ASSERT_FALSE(wire.ok());
  EXPECT_EQ(wire.error().code, uint16_t(BadActionCode::kBadType));
}

TEST(CopyFieldWire, Of15InPacketOutAndGroupBuckets) {
  PacketOut po;
  po.in_port = 1;
  po.actions = {Action::copy_field(ip_bits()), Action::output(2)};
  po.data = Bytes(60, 0xab);
  auto pw = encode_message(make_message(kOf15, 3, po));
  ASSERT_TRUE(pw.ok()) << pw.error().to_string();
  EXPECT_EQ(load_be16(&(*pw)[12]), 24 + 16);  // actions_len: 1.5's copy-field and output
  auto pb = decode_message(*pw);
  ASSERT_TRUE(pb.ok()) << pb.error().to_string();
  EXPECT_EQ(pb->as<PacketOut>().actions, po.actions);
  EXPECT_EQ(pb->as<PacketOut>().data, po.data);
  GroupMod g;
  g.group_id = 3;
  g.type = GroupType::kAll;
  Bucket b;
  b.actions = po.actions;
  g.buckets = {b, b};
  g.buckets[0].bucket_id = 0;  // what a bucket without an id gets at 1.5: its place
  g.buckets[1].bucket_id = 1;
  auto gw = encode_message(make_message(kOf15, 4, g));
  ASSERT_TRUE(gw.ok()) << gw.error().to_string();
  EXPECT_EQ(load_be16(&(*gw)[16]), 2 * (8 + 24 + 16));  // bucket_array_len
  auto gb = decode_message(*gw);
  ASSERT_TRUE(gb.ok()) << gb.error().to_string();
  EXPECT_EQ(gb->as<GroupMod>().buckets, g.buckets);
}

TEST(CopyFieldText, MoveAsOvsOfctlWritesIt) {
  // ovs-ofctl 3.1 `-O OpenFlow15 parse-flow` prints these flows this way.
  const std::pair<const char*, const char*> cases[] = {
      {"ip,actions=move:eth_src[]->eth_dst[],move:ip_src[0..7]->ip_dst[8..15],output:1",
       "move:NXM_OF_ETH_SRC[]->NXM_OF_ETH_DST[],move:NXM_OF_IP_SRC[0..7]->NXM_OF_IP_DST[8..15],output:1"},
      {"actions=copy_field:NXM_OF_ETH_SRC[0..15]->NXM_OF_ETH_DST[8..23],move:eth_src[1]->eth_dst[47]",
       "move:NXM_OF_ETH_SRC[0..15]->NXM_OF_ETH_DST[8..23],move:NXM_OF_ETH_SRC[1]->NXM_OF_ETH_DST[47]"},
      {"vlan_tci=0x1000/0x1000,actions=move:OXM_OF_VLAN_VID[]->OXM_OF_METADATA[0..12]",
       "move:OXM_OF_VLAN_VID[]->OXM_OF_METADATA[0..12]"},
      {"tcp,actions=move:tcp_src[]->NXM_OF_TCP_DST[]", "move:NXM_OF_TCP_SRC[]->NXM_OF_TCP_DST[]"},
  };
  for (const auto& [in, want] : cases) {
    auto fm = parse_flow_mod(in);
    ASSERT_TRUE(fm.ok()) << in << ": " << fm.error().message;
    EXPECT_EQ(format_instructions(fm->instructions), want) << in;
  }
  for (const char* bad : {"actions=move:eth_src[]->ip_dst[]", "actions=move:eth_src->eth_dst[]",
                          "actions=move:eth_src[0..48]->eth_dst[0..48]", "actions=move:nosuch[]->eth_dst[]",
                          "actions=move:eth_src[5..2]->eth_dst[5..2]", "actions=move:eth_src[]"}) {
    auto fm = parse_flow_mod(bad);
    EXPECT_FALSE(fm.ok()) << bad;
  }
}

TEST(TcpFlagsText, OvsOfctlSyntax) {
  // input -> what ovs-ofctl 3.1 prints for it
  const std::pair<const char*, const char*> cases[] = {
      {"+syn-ack", "+syn-ack"},
      {"+syn", "+syn"},
      {"-ack", "-ack"},
      {"+fin+syn-rst", "+fin+syn-rst"},
      {"0x002/0x012", "+syn-ack"},
      {"+cwr-ece+urg", "+urg-ece+cwr"},
      {"0x012", "syn|ack"},
      {"syn|ack", "syn|ack"},
      {"0x012/0x0ff", "-fin+syn-rst-psh+ack-urg-ece-cwr"},
      {"+[200]", "+[200]"},
      {"0", "0"},
      {"+ns", "+ns"},
  };
  for (const auto& [in, want] : cases) {
    const std::string flow = std::string("tcp,tcp_flags=") + in + ",actions=drop";
    auto fm = parse_flow_mod(flow);
    ASSERT_TRUE(fm.ok()) << flow << ": " << fm.error().message;
    EXPECT_EQ(format_match(fm->match), std::string("tcp,tcp_flags=") + want) << flow;
    auto again = parse_flow_mod(std::string("tcp,tcp_flags=") + want + ",actions=drop");
    ASSERT_TRUE(again.ok()) << want;
    EXPECT_EQ(again->match, fm->match) << want;
  }
  for (const char* bad : {"+SYN", "+syn+syn", "+syn-syn", "+bogus", "syn|+ack", "+"}) {
    auto fm = parse_flow_mod(std::string("tcp,tcp_flags=") + bad + ",actions=drop");
    EXPECT_FALSE(fm.ok()) << bad;
  }
}

TEST(ActsetOutputText, OvsOfctlSyntax) {
  // As ovs-ofctl 3.1 writes and prints it: a port number or a reserved port's name.
  auto fm = parse_flow_mod("table=1,priority=20,actset_output=2,icmp,actions=clear_actions");
  ASSERT_TRUE(fm.ok()) << fm.error().message;
  const OxmField* f = fm->match.find(OxmId::kActsetOutput);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value_u64(), 2u);
  EXPECT_EQ(fm->table_id, 1);
  EXPECT_EQ(format_match(fm->match), "actset_output=2,icmp");  // as ovs-ofctl 3.1 prints it
  auto local = parse_flow_mod("actset_output=LOCAL,actions=drop");
  ASSERT_TRUE(local.ok()) << local.error().message;
  EXPECT_EQ(local->match.find(OxmId::kActsetOutput)->value_u64(), port::kLocal);
  EXPECT_EQ(format_match(local->match), "actset_output=LOCAL");
  EXPECT_FALSE(parse_flow_mod("actset_output=bogus,actions=drop").ok());
}

}  // namespace
}  // namespace flowlab::of

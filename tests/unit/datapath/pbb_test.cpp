// PBB (802.1ah): push_pbb / pop_pbb round trips, pbb_isid (masked) and pbb_uca
// matches, set-field on both, the action-set order, and other actions working
// on the customer frame after pop_pbb (goto_table, then match the inner headers).
#include <gtest/gtest.h>

#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

Action push_pbb(uint16_t ethertype = hdr::kEthTypePbb) {
  Action a = Action::simple(of::ActionType::kPushPbb);
  a.ethertype = ethertype;
  return a;
}

of::Match pbb_match() {
  of::Match m;
  m.add(f(OxmId::kEthType, hdr::kEthTypePbb));
  return m;
}

TEST(Pbb, PushCopiesMacsAndVlanPcpSetIsidThenPopRestoresTheFrame) {
  Rig rig;
  of::Match m1;
  m1.add(f(OxmId::kInPort, 1));
  rig.add(
      add_flow(0, 10, m1, {push_pbb(), Action::set_field(f(OxmId::kPbbIsid, 0x123456)), Action::output(2)}));
  const Bytes cust = FrameBuilder()
                         .eth(mac(0x0a0000000002), mac(0x0a0000000001))
                         .vlan(10, 5)
                         .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
                         .tcp(1, 2)
                         .payload(20)
                         .build();
  rig.send(cust, 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  const Bytes wrapped = pbb_frame(cust, 0x123456, 5);
  EXPECT_EQ(rig.out.sent[0].data, wrapped);

  // Port 3: pop_pbb gives back the customer frame byte for byte.
  of::Match m3 = pbb_match();
  m3.fields.insert(m3.fields.begin(), f(OxmId::kInPort, 3));
  rig.add(add_flow(0, 10, m3, {Action::simple(of::ActionType::kPopPbb), Action::output(2)}));
  rig.send(wrapped, 3);
  ASSERT_EQ(rig.out.sent.size(), 2u);
  EXPECT_EQ(rig.out.sent[1].data, cust);
}

TEST(Pbb, PushOnAPbbFrameKeepsTheIsidAndActionSetPushesPbbBeforeVlan) {
  Rig rig;
  // Written in the "wrong" order: the action set runs push_pbb before push_vlan.
  of::FlowMod fm = add_flow(0, 10, {}, {});
  fm.instructions.push_back(
      of::Instruction::write({Action::push_vlan(hdr::kEthTypeQinQ), push_pbb(), Action::output(2)}));
  rig.add(fm);
  const Bytes cust =
      FrameBuilder().eth(mac(2), mac(1)).ipv4(ip4("10.0.0.1"), ip4("10.0.0.2")).udp(1, 2).payload(30).build();
  const Bytes inner = pbb_frame(cust, 0xabcdef, 0, false, 0x0b0000000002, 0x0b0000000001);
  rig.send(inner, 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  // push_pbb: new B-MACs copied from the current outer MACs, I-SID kept from the old I-TAG;
  // then push_vlan (S-tag, VID 0) goes after the new B-MACs.
  Bytes want = pbb_frame(inner, 0xabcdef);
  want.insert(want.begin() + 12, {0x88, 0xa8, 0x00, 0x00});
  EXPECT_EQ(rig.out.sent[0].data, want);
}

TEST(Pbb, MatchIsidMaskedAndUcaSetFieldsAndInnerMatchAfterPop) {
  Rig rig;
  // Table 0: I-SIDs 0x1000xx with UCA=1 -> clear UCA, set a new I-SID, out 2.
  of::Match m = pbb_match();
  m.add(fm_(OxmId::kPbbIsid, 0x100000, 0xffff00)).add(f(OxmId::kPbbUca, 1));
  rig.add(add_flow(0, 20, m,
                   {Action::set_field(f(OxmId::kPbbUca, 0)), Action::set_field(f(OxmId::kPbbIsid, 0x200001)),
                    Action::output(2)}));
  // Other PBB frames: pop, then table 1 matches the customer's TCP port.
  of::FlowMod pop = add_flow(0, 10, pbb_match(), {Action::simple(of::ActionType::kPopPbb)});
  pop.instructions.push_back(of::Instruction::goto_table(1));
  rig.add(pop);
  of::Match tcp80;
  tcp80.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 6)).add(f(OxmId::kTcpDst, 80));
  rig.add(add_flow(1, 10, tcp80, {Action::set_field(f(OxmId::kTcpDst, 8080)), Action::output(3)}));

  const Bytes cust = tcp_frame("10.0.0.1", "10.0.0.2", 1234, 80);
  rig.send(pbb_frame(cust, 0x1000ab, 0, true), 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  EXPECT_EQ(rig.out.sent[0].port, 2u);
  EXPECT_EQ(rig.out.sent[0].data, pbb_frame(cust, 0x200001, 0, false));

  rig.send(pbb_frame(cust, 0x1000ab, 0, false), 1);  // UCA 0: not the first flow
  rig.send(pbb_frame(cust, 0x1001ab, 0, true), 1);   // outside the mask
  ASSERT_EQ(rig.out.sent.size(), 3u);
  const Bytes rewritten = tcp_frame("10.0.0.1", "10.0.0.2", 1234, 8080);
  for (size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(rig.out.sent[i].port, 3u);
    EXPECT_EQ(rig.out.sent[i].data, rewritten);  // popped, port rewritten, checksum fixed
  }
}

// os-ken sends pbb_uca in OF1.3 as ONF EXT-256 (an experimenter OXM): match
// and set-field in that form behave as the basic field, prerequisite included.
TEST(Pbb, OnfExt256PbbUcaMatchAndSetField) {
  auto ext256 = [](uint8_t v) {
    of::OxmField x;
    x.oxm_class = of::kOxmClassExperimenter;
    x.field = 0;
    x.value = {0x4f, 0x4e, 0x46, 0x00, 0x0a, 0x00, v};
    return x;
  };
  Rig rig;
  of::Match m = pbb_match();
  m.add(ext256(1));
  rig.add(add_flow(0, 10, m, {Action::set_field(ext256(0)), Action::output(2)}));
  const Bytes cust = tcp_frame();
  rig.send(pbb_frame(cust, 0x42, 0, false), 1);  // UCA 0: no match
  rig.send(pbb_frame(cust, 0x42, 0, true), 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  EXPECT_EQ(rig.out.sent[0].data, pbb_frame(cust, 0x42, 0, false));
  of::Match no_pre;
  no_pre.add(ext256(1));
  EXPECT_FALSE(rig.dp.flow_mod(add_flow(0, 1, no_pre, {Action::output(2)}), rig.now).ok());
}

TEST(Pbb, ValidationAndFieldsParse) {
  Rig rig;
  auto bad = rig.dp.flow_mod(add_flow(0, 1, {}, {push_pbb(0x8100)}), rig.now);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, uint16_t(of::BadActionCode::kBadArgument));
  of::Match m;
  m.add(f(OxmId::kPbbUca, 1));  // no eth_type=0x88e7
  auto pre = rig.dp.flow_mod(add_flow(0, 1, m, {Action::output(2)}), rig.now);
  ASSERT_FALSE(pre.ok());
  EXPECT_EQ(pre.error().code, uint16_t(of::BadMatchCode::kBadPrereq));

  FlowKey k;
  PacketLayers l;
  const Bytes fr = pbb_frame(tcp_frame(), 0xfedcba, 3, true);
  extract_flow_key(fr.data(), fr.size(), 1, 0, 0, k, l);
  EXPECT_EQ(k.eth_type, hdr::kEthTypePbb);
  EXPECT_EQ(k.pbb_isid, 0xfedcbau);
  EXPECT_EQ(k.pbb_uca, 1);
  EXPECT_EQ(l.l2_5, 14);
}

}  // namespace
}  // namespace flowlab::dp

// Copy-field (OpenFlow 1.5 OFPAT_COPY_FIELD): bits of one field copied into
// another, the frame that leaves compared byte for byte with one built with the
// new value (so the checksums that cover it are checked); later tables see the
// copy; what the switch refuses answers with the spec's error.
#include <gtest/gtest.h>

#include "datapath/fast_path_decision.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

uint32_t oxm_id(OxmId id) {
  return uint32_t(of::kOxmClassBasic) << 16 | uint32_t(id) << 9 | of::oxm_info(id)->length;
}

Action copy(OxmId src, OxmId dst, uint16_t n_bits, uint16_t src_off = 0, uint16_t dst_off = 0) {
  of::CopyField c;
  c.n_bits = n_bits;
  c.src_offset = src_off;
  c.dst_offset = dst_off;
  c.src = oxm_id(src);
  c.dst = oxm_id(dst);
  return Action::copy_field(c);
}

of::Match tcp_match() {
  of::Match m;
  m.add(f(OxmId::kEthType, 0x0800)).add(f(OxmId::kIpProto, 6));
  return m;
}

Bytes sent_one(Rig& rig) {
  EXPECT_EQ(rig.out.sent.size(), 1u);
  return rig.out.sent.empty() ? Bytes{} : rig.out.sent[0].data;
}

TEST(CopyField, WholeMacSourceIntoDestination) {
  Rig rig;
  rig.add(add_flow(0, 10, {}, {copy(OxmId::kEthSrc, OxmId::kEthDst, 48), Action::output(2)}));
  rig.send(tcp_frame(), 1);
  const Bytes got = sent_one(rig);
  Bytes want = tcp_frame();
  std::copy(want.begin() + 6, want.begin() + 12, want.begin());
  EXPECT_EQ(got, want);
}

TEST(CopyField, BitsOfTheSourceAddressIntoTheDestinationAddressFixTheChecksums) {
  // ipv4_src 10.0.0.1 bits 0..7 (0x01) into ipv4_dst bits 8..15: 10.0.0.2 -> 10.0.1.2.
  Rig rig;
  rig.add(add_flow(0, 10, tcp_match(), {copy(OxmId::kIpv4Src, OxmId::kIpv4Dst, 8, 0, 8), Action::output(2)}));
  rig.send(tcp_frame("10.0.0.1", "10.0.0.2", 1234, 80), 1);
  EXPECT_EQ(sent_one(rig), tcp_frame("10.0.0.1", "10.0.1.2", 1234, 80));  // IPv4 and TCP checksums too
}

TEST(CopyField, PortIntoPortAndALaterTableSeesIt) {
  Rig rig;
  of::FlowMod t0 = add_flow(0, 10, tcp_match(), {copy(OxmId::kTcpSrc, OxmId::kTcpDst, 16)});
  t0.instructions.push_back(of::Instruction::goto_table(1));
  rig.add(t0);
  of::Match post = tcp_match();
  post.add(f(OxmId::kTcpDst, 1234));
  rig.add(add_flow(1, 10, post, {Action::output(3)}));
  rig.add(add_flow(1, 1, {}, {Action::output(4)}));
  rig.send(tcp_frame("10.0.0.1", "10.0.0.2", 1234, 80), 1);
  ASSERT_EQ(rig.out.sent.size(), 1u);
  EXPECT_EQ(rig.out.sent[0].port, 3u);
  EXPECT_EQ(rig.out.sent[0].data, tcp_frame("10.0.0.1", "10.0.0.2", 1234, 1234));
}

TEST(CopyField, AfterASetFieldTheCopyReadsTheNewValue) {
  Rig rig;
  rig.add(add_flow(0, 10, {},
                   {Action::set_field(f(OxmId::kEthSrc, 0x020000000099)),
                    copy(OxmId::kEthSrc, OxmId::kEthDst, 48), Action::output(2)}));
  rig.send(tcp_frame(), 1);
  const Bytes got = sent_one(rig);
  ASSERT_GE(got.size(), 12u);
  EXPECT_EQ(Bytes(got.begin(), got.begin() + 6), Bytes({0x02, 0, 0, 0, 0, 0x99}));
  EXPECT_EQ(Bytes(got.begin() + 6, got.begin() + 12), Bytes({0x02, 0, 0, 0, 0, 0x99}));
}

TEST(CopyField, RefusedWithTheSpecError) {
  Rig rig;
  auto code = [&](of::FlowMod fm) -> int {
    auto r = rig.dp.flow_mod(fm, rig.now);
    return r.ok() ? -1 : r.error().code;
  };
  // bits past the field (tcp_src has 16)
  EXPECT_EQ(code(add_flow(0, 1, tcp_match(), {copy(OxmId::kTcpSrc, OxmId::kTcpDst, 8, 12, 0)})),
            int(of::BadActionCode::kBadSetArgument));
  // a destination set-field may not write
  EXPECT_EQ(code(add_flow(0, 1, tcp_match(), {copy(OxmId::kTcpSrc, OxmId::kInPort, 16)})),
            int(of::BadActionCode::kBadSetType));
  // an experimenter-class OXM
  Action exp = copy(OxmId::kEthSrc, OxmId::kEthDst, 48);
  exp.copy.src = 0xffff0006;
  EXPECT_EQ(code(add_flow(0, 1, {}, {exp})), int(of::BadActionCode::kBadSetType));
  // the match does not guarantee an IPv4 header
  EXPECT_EQ(code(add_flow(0, 1, {}, {copy(OxmId::kIpv4Src, OxmId::kIpv4Dst, 32)})),
            int(of::BadActionCode::kMatchInconsistent));
  // in write-actions (the action set)
  of::FlowMod w;
  w.instructions.push_back(of::Instruction::write({copy(OxmId::kEthSrc, OxmId::kEthDst, 48)}));
  EXPECT_EQ(code(w), int(of::BadActionCode::kUnsupportedOrder));
  // metadata: set-field cannot write it, so neither can copy-field here
  EXPECT_EQ(code(add_flow(0, 1, {}, {copy(OxmId::kInPort, OxmId::kMetadata, 32)})),
            int(of::BadActionCode::kBadSetType));
}

TEST(CopyField, StaysOutOfTheKernelFastPath) {
  Rig rig;
  rig.add(add_flow(0, 10, {}, {copy(OxmId::kEthSrc, OxmId::kEthDst, 48), Action::output(2)}));
  const Bytes frame = tcp_frame();
  FlowKey key;
  PacketLayers layers;
  extract_flow_key(frame.data(), frame.size(), 1, 0, 0, key, layers);
  EXPECT_FALSE(decide_for_fast_path(rig.ctx, key, [](uint32_t) { return true; }).has_value());
  // the same flow with set-field instead is cached there (the check above can fail)
  Rig other;
  other.add(add_flow(0, 10, {}, {Action::set_field(f(OxmId::kEthDst, 0x0a0000000001)), Action::output(2)}));
  EXPECT_TRUE(decide_for_fast_path(other.ctx, key, [](uint32_t) { return true; }).has_value());
}

}  // namespace
}  // namespace flowlab::dp

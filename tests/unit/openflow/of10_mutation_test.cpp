// OF1.0 decoder robustness beyond the shared vectors: seeds of every OF1.0
// message kind (built from the model) are mutated a few thousand times. The
// decoder must never crash or read past the buffer (ASan), must report an
// offset inside the message, and what decodes and re-encodes must reach a
// fixed point after one round.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

std::vector<Bytes> seeds() {
  std::vector<Message> msgs;
  auto add = [&](MessageBody b) { msgs.push_back(Message{kOf10, 7, std::move(b)}); };
  HelloElement bitmap;
  bitmap.bitmaps = {0x12};
  add(Hello{{bitmap}});
  add(ErrorMsg{2, 4, 0, Bytes(12, 1)});
  add(EchoRequest{Bytes(5, 2)});
  add(ExperimenterMsg{0x2320, 0, Bytes(8, 3)});
  FeaturesReply f;
  f.ports.resize(2);
  f.ports[0].port_no = 1;
  f.ports[1].port_no = port::kLocal;
  add(f);
  add(SetConfig{});
  PacketIn pi;
  pi.match.add(OxmField::basic(OxmId::kInPort, 2));
  pi.data = Bytes(20, 4);
  add(pi);
  FlowRemoved fr;
  fr.match.add(OxmField::basic(OxmId::kEthType, 0x0800)).add(OxmField::basic(OxmId::kIpProto, 17));
  fr.match.add(OxmField::basic(OxmId::kUdpDst, 53));
  add(fr);
  PortStatus ps;
  ps.desc.port_no = 3;
  add(ps);
  PacketOut po;
  po.actions = {Action::output(1), Action::pop_vlan()};
  po.data = Bytes(14, 5);
  add(po);
  FlowMod fm;
  fm.match.add(OxmField::basic(OxmId::kEthType, 0x0806)).add(OxmField::basic(OxmId::kArpOp, 1));
  Action vendor;
  vendor.type = ActionType::kExperimenter;
  vendor.experimenter = 0x2320;
  vendor.data = Bytes(8, 6);
  fm.instructions = {Instruction::apply(
      {Action::set_field(OxmField::basic(OxmId::kVlanVid, 0x1005)), vendor, Action::output(2)})};
  add(fm);
  add(PortMod{});
  FlowStats fs;
  fs.instructions = {Instruction::apply({Action::output(1)})};
  add(MultipartRequest{0, FlowStatsRequest{}});
  add(MultipartRequest{0, PortStatsRequest{}});
  add(MultipartRequest{0, QueueStatsRequest{}});
  add(MultipartReply{0, FlowStatsReply{{fs, fs}}});
  add(MultipartReply{0, TableStatsReply{{TableStats{}}}});
  add(MultipartReply{0, PortStatsReply{{PortStats{}}}});
  add(MultipartReply{0, QueueStatsReply{{QueueStats{}}}});
  add(MultipartReply{0, AggregateStatsReply{}});
  add(MultipartReply{0, DescReply{"a", "b", "c", "d", "e"}});
  add(MultipartReply{0, ExperimenterMultipart{1, 0, Bytes(4, 7)}});
  QueueGetConfigReply q;
  q.port = 1;
  q.queues.resize(2);
  q.queues[0].properties.resize(1);
  q.queues[0].properties[0].rate = 10;
  add(q);
  add(QueueGetConfigRequest{1});
  add(BarrierRequest{});

  std::vector<Bytes> out;
  for (const Message& m : msgs) {
    auto wire = encode_of10(m);
    EXPECT_TRUE(wire.ok()) << to_string(m.type()) << ": " << wire.error().to_string();
    if (wire.ok()) out.push_back(*wire);
  }
  return out;
}

TEST(Of10Mutation, EveryMessageKindSurvivesMutation) {
  const std::vector<Bytes> corpus = seeds();
  ASSERT_GE(corpus.size(), 25u);
  std::mt19937 rng(777);
  int decoded = 0, stable = 0;
  constexpr int kRounds = 5000;
  for (int i = 0; i < kRounds; ++i) {
    Bytes b = corpus[rng() % corpus.size()];
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % b.size();
      switch (rng() % 4) {
        case 0:
          b[at] = static_cast<uint8_t>(rng());
          break;
        case 1:
          b[at] ^= static_cast<uint8_t>(1u << (rng() % 8));
          break;
        case 2:
          b.resize(std::max<size_t>(1, rng() % (b.size() + 1)));
          break;
        case 3:
          b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), static_cast<uint8_t>(rng()));
          break;
      }
    }
    if (b.size() >= 8 && rng() % 8 != 0) {
      b[0] = kOf10;
      store_be16(&b[2], static_cast<uint16_t>(b.size()));
    }
    auto m = decode_message(b);
    if (!m.ok()) {
      EXPECT_LE(m.error().offset, b.size()) << m.error().to_string();
      continue;
    }
    ++decoded;
    auto e1 = encode_message(*m);
    if (!e1.ok()) continue;
    auto m2 = decode_message(*e1);
    ASSERT_TRUE(m2.ok()) << m2.error().to_string() << "\ninput " << to_hex(b);
    auto e2 = encode_message(*m2);
    ASSERT_TRUE(e2.ok()) << e2.error().to_string();
    ASSERT_EQ(to_hex(*e2), to_hex(*e1)) << "input " << to_hex(b);
    ++stable;
  }
  EXPECT_GT(decoded, kRounds / 10);
  EXPECT_GT(stable, kRounds / 20);
}

}  // namespace
}  // namespace flowlab::of

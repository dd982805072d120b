// Group types (all, select, indirect, fast-failover), group-mod validation,
// chaining, deletion removing flows, and group stats/desc/features.
#include <gtest/gtest.h>

#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;
using of::Action;
using of::OxmId;

of::GroupMod group(uint32_t id, of::GroupType type, std::vector<of::Bucket> buckets) {
  of::GroupMod gm;
  gm.group_id = id;
  gm.type = type;
  gm.buckets = std::move(buckets);
  return gm;
}
of::Bucket bucket(of::ActionList acts, uint16_t weight = 0, uint32_t watch_port = of::port::kAny,
                  uint32_t watch_group = of::group::kAny) {
  of::Bucket b;
  b.actions = std::move(acts);
  b.weight = weight;
  b.watch_port = watch_port;
  b.watch_group = watch_group;
  return b;
}
void add_group(Rig& r, const of::GroupMod& gm) {
  auto res = r.dp.group_mod(gm, r.now);
  ASSERT_TRUE(res.ok()) << res.error().to_string();
}
of::OfError group_error(Rig& r, const of::GroupMod& gm) {
  auto res = r.dp.group_mod(gm, r.now);
  EXPECT_FALSE(res.ok());
  return res.ok() ? of::OfError{} : res.error();
}

TEST(Groups, AllClonesPerBucket) {
  Rig r;
  add_group(r, group(1, of::GroupType::kAll,
                     {bucket({Action::set_field(f(OxmId::kEthDst, 0xaa)), Action::output(2)}),
                      bucket({Action::output(3)})}));
  r.add(add_flow(0, 1, {}, {Action::group(1), Action::output(4)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(r.out.sent[0].data[5], 0xaa);
  EXPECT_EQ(r.out.sent[1].data, tcp_frame());  // the second bucket saw the original
  EXPECT_EQ(r.out.sent[2].data, tcp_frame());  // and so did the action after the group
  auto st = r.dp.group_stats({}, r.now);
  ASSERT_EQ(st.stats.size(), 1u);
  EXPECT_EQ(st.stats[0].packet_count, 1u);
  EXPECT_EQ(st.stats[0].ref_count, 1u);
  ASSERT_EQ(st.stats[0].buckets.size(), 2u);
  EXPECT_EQ(st.stats[0].buckets[1].packet_count, 1u);
  EXPECT_EQ(st.stats[0].buckets[1].byte_count, tcp_frame().size());
}

TEST(Groups, SelectSpreadsFlowsByWeightAndKeepsFlowsSticky) {
  Rig r;
  add_group(
      r, group(2, of::GroupType::kSelect, {bucket({Action::output(2)}, 1), bucket({Action::output(3)}, 3)}));
  r.add(add_flow(0, 1, {}, {Action::group(2)}));
  std::map<uint32_t, int> hits;
  for (int i = 0; i < 400; ++i) {
    r.out.sent.clear();
    r.send(tcp_frame("10.0.0.1", "10.0.0.2", uint16_t(1000 + i)));
    ASSERT_EQ(r.out.sent.size(), 1u);
    ++hits[r.out.sent[0].port];
    uint32_t first = r.out.sent[0].port;
    r.send(tcp_frame("10.0.0.1", "10.0.0.2", uint16_t(1000 + i)));
    EXPECT_EQ(r.out.sent[1].port, first);  // same 5-tuple, same bucket
  }
  EXPECT_GT(hits[2], 50);
  EXPECT_GT(hits[3], 200);
  // A bucket whose watch port is down is skipped.
  add_group(r, [] {
    auto gm = group(2, of::GroupType::kSelect,
                    {bucket({Action::output(2)}, 1, 2), bucket({Action::output(3)}, 1, 3)});
    gm.command = of::GroupModCommand::kModify;
    return gm;
  }());
  r.ports.down = {3};
  r.out.sent.clear();
  for (int i = 0; i < 20; ++i) r.send(tcp_frame("10.0.0.1", "10.0.0.2", uint16_t(i)));
  for (const auto& s : r.out.sent) EXPECT_EQ(s.port, 2u);
}

// Traffic that differs only in MACs (non-IP and IP alike), in VLAN, or in ARP
// addresses spreads over the buckets by weight; each flow keeps its bucket.
TEST(Groups, SelectHashCoversL2VlanAndArp) {
  Rig r;
  add_group(
      r, group(3, of::GroupType::kSelect, {bucket({Action::output(2)}, 1), bucket({Action::output(3)}, 1)}));
  r.add(add_flow(0, 1, {}, {Action::group(3)}));
  auto spread = [&](auto make) {
    std::map<uint32_t, int> hits;
    for (int i = 0; i < 200; ++i) {
      r.out.sent.clear();
      const Bytes fr = make(i);
      r.send(fr);
      r.send(fr);
      EXPECT_EQ(r.out.sent.size(), 2u);
      if (r.out.sent.size() != 2) return hits;
      EXPECT_EQ(r.out.sent[0].port, r.out.sent[1].port);  // one flow, one bucket
      ++hits[r.out.sent[0].port];
    }
    return hits;
  };
  auto l2 = spread([](int i) {
    return FrameBuilder().eth(mac(0x020000000000 + uint64_t(i)), mac(1)).eth_type(0x88b5).payload(46).build();
  });
  EXPECT_GT(l2[2], 60);
  EXPECT_GT(l2[3], 60);
  auto ip_macs = spread([](int i) {
    return FrameBuilder()
        .eth(mac(2), mac(0x020000000000 + uint64_t(i)))
        .ipv4(ip4("10.0.0.1"), ip4("10.0.0.2"))
        .udp(1, 2)
        .payload(20)
        .build();
  });
  EXPECT_GT(ip_macs[2], 60);
  EXPECT_GT(ip_macs[3], 60);
  auto vlans = spread([](int i) {
    return FrameBuilder().eth(mac(2), mac(1)).vlan(uint16_t(i + 1)).eth_type(0x88b5).payload(46).build();
  });
  EXPECT_GT(vlans[2], 60);
  EXPECT_GT(vlans[3], 60);
  auto arp = spread([](int i) {
    return FrameBuilder()
        .eth(mac(0xffffffffffff), mac(1))
        .arp(hdr::kArpRequest, mac(1), Ipv4Addr{0x0a000000u + uint32_t(i)}, mac(0), ip4("10.0.0.254"))
        .build();
  });
  EXPECT_GT(arp[2], 60);
  EXPECT_GT(arp[3], 60);
}

TEST(Groups, IndirectAndChaining) {
  Rig r;
  add_group(r, group(5, of::GroupType::kIndirect, {bucket({Action::output(4)})}));
  add_group(r, group(6, of::GroupType::kIndirect, {bucket({Action::set_queue(2), Action::group(5)})}));
  r.add(add_flow(0, 1, {}, {Action::group(6)}));
  r.send(tcp_frame());
  ASSERT_EQ(r.out.ports(), std::vector<uint32_t>{4});
  EXPECT_EQ(r.out.sent[0].queue, 2u);
  auto e = group_error(
      r, group(7, of::GroupType::kIndirect, {bucket({Action::output(1)}), bucket({Action::output(2)})}));
  EXPECT_EQ(e.code, uint16_t(of::GroupModFailedCode::kInvalidGroup));
  // Loop: 5 -> 6 -> 5.
  auto loop = group(5, of::GroupType::kIndirect, {bucket({Action::group(6)})});
  loop.command = of::GroupModCommand::kModify;
  EXPECT_EQ(group_error(r, loop).code, uint16_t(of::GroupModFailedCode::kLoop));
  // Group 5 is chained from 6: cannot be deleted.
  of::GroupMod del;
  del.command = of::GroupModCommand::kDelete;
  del.group_id = 5;
  EXPECT_EQ(group_error(r, del).code, uint16_t(of::GroupModFailedCode::kChainedGroup));
}

TEST(Groups, FastFailoverPicksFirstLiveBucket) {
  Rig r;
  add_group(r, group(3, of::GroupType::kFastFailover,
                     {bucket({Action::output(2)}, 0, 2), bucket({Action::output(3)}, 0, 3)}));
  r.add(add_flow(0, 1, {}, {Action::group(3)}));
  r.send(tcp_frame());
  r.ports.down = {2};
  r.send(tcp_frame());
  r.ports.down = {2, 3};
  r.send(tcp_frame());
  EXPECT_EQ(r.out.ports(), (std::vector<uint32_t>{2, 3}));
  auto e = group_error(r, group(4, of::GroupType::kFastFailover, {bucket({Action::output(2)})}));
  EXPECT_EQ(e.code, uint16_t(of::GroupModFailedCode::kBadWatch));
}

TEST(Groups, ModErrorsAndDeleteRemovesFlows) {
  Rig r;
  add_group(r, group(1, of::GroupType::kAll, {bucket({Action::output(2)})}));
  EXPECT_EQ(group_error(r, group(1, of::GroupType::kAll, {})).code,
            uint16_t(of::GroupModFailedCode::kGroupExists));
  auto mod = group(9, of::GroupType::kAll, {});
  mod.command = of::GroupModCommand::kModify;
  EXPECT_EQ(group_error(r, mod).code, uint16_t(of::GroupModFailedCode::kUnknownGroup));
  EXPECT_EQ(group_error(r, group(of::group::kAll, of::GroupType::kAll, {})).code,
            uint16_t(of::GroupModFailedCode::kInvalidGroup));
  auto e = group_error(r, group(2, of::GroupType::kAll, {bucket({Action::group(77)})}));
  EXPECT_EQ(e.code, uint16_t(of::BadActionCode::kBadOutGroup));
  EXPECT_EQ(group_error(r, group(2, of::GroupType::kAll, {bucket({Action::output(1)}, 5)})).code,
            uint16_t(of::GroupModFailedCode::kWeightUnsupported));
  auto fm = add_flow(0, 1, {}, {Action::group(1)});
  fm.flags = of::flow_mod_flags::kSendFlowRem;
  r.add(fm);
  of::GroupMod del;
  del.command = of::GroupModCommand::kDelete;
  del.group_id = 1;
  auto res = r.dp.group_mod(del, r.now);
  ASSERT_TRUE(res.ok());
  ASSERT_EQ(res->size(), 1u);
  EXPECT_EQ((*res)[0].reason, uint8_t(of::FlowRemovedReason::kGroupDelete));
  EXPECT_EQ(r.dp.flow_count(), 0u);
  EXPECT_TRUE(r.dp.group_desc().groups.empty());
}

TEST(Groups, DescAndFeatures) {
  Rig r;
  add_group(r, group(8, of::GroupType::kSelect, {bucket({Action::output(2)}, 2)}));
  auto d = r.dp.group_desc();
  ASSERT_EQ(d.groups.size(), 1u);
  EXPECT_EQ(d.groups[0].group_id, 8u);
  EXPECT_EQ(d.groups[0].type, of::GroupType::kSelect);
  EXPECT_EQ(d.groups[0].buckets[0].weight, 2);
  auto feat = r.dp.group_features();
  EXPECT_EQ(feat.types, 0xfu);
  EXPECT_TRUE(feat.actions[0] & (1u << uint16_t(of::ActionType::kSetField)));
}

}  // namespace
}  // namespace flowlab::dp

// OpenFlow 1.5 codec: every vector os-ken makes (osken_of15_vectors.py, run
// with Debian's /usr/bin/python3 and python3-os-ken) decodes into the shared
// model at version 6 with the fields the script built it with and re-encodes
// to the same bytes; what 1.5 has and flowlab does not do is refused with the
// spec's error type and code; truncations fail cleanly.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "openflow/codec.h"
#include "openflow/of15/of15.h"
#include "openflow/print/print.h"
#include "openflow/text/flow_text.h"
#include "osken_vectors.h"

namespace flowlab::of {
namespace {

using nlohmann::json;

using osken_vectors::from_hex;
using osken_vectors::Vector;

// name -> vector; empty when python3-os-ken is not installed.
std::map<std::string, Vector> load_vectors() { return osken_vectors::load("osken_of15_vectors.py"); }

const std::map<std::string, Vector>& vectors() {
  static const auto v = load_vectors();
  return v;
}

#define NEED_OSKEN()                                                        \
  if (vectors().empty()) GTEST_SKIP() << "python3-os-ken is not installed"; \
  (void)0

Message decoded(const std::string& name) {
  auto m = decode_message(vectors().at(name).wire);
  EXPECT_TRUE(m.ok()) << name << ": " << (m.ok() ? "" : m.error().to_string());
  return m.ok() ? *m : Message{};
}

const json& fields(const std::string& name) { return vectors().at(name).fields; }

// `wire` with its header length set to its size.
Bytes sized(Bytes wire) {
  store_be16(&wire[2], uint16_t(wire.size()));
  return wire;
}

void expect_refused(const Bytes& wire, ErrorType type, uint16_t code, const char* what) {
  auto m = decode_message(wire);
  ASSERT_FALSE(m.ok()) << what;
  EXPECT_EQ(m.error().type, type) << what << ": " << m.error().to_string();
  EXPECT_EQ(m.error().code, code) << what << ": " << m.error().to_string();
  EXPECT_FALSE(m.error().message.empty()) << what;
}

TEST(Of15Codec, EveryOskenVectorRoundTrips) {
  NEED_OSKEN();
  EXPECT_GE(vectors().size(), 21u);
  for (const auto& [name, v] : vectors()) {
    auto m = decode_message(v.wire);
    ASSERT_TRUE(m.ok()) << name << ": " << m.error().to_string();
    EXPECT_EQ(m->version, kOf15) << name;
    EXPECT_EQ(m->xid, 0x1234u) << name;
    auto again = encode_message(*m);
    ASSERT_TRUE(again.ok()) << name << ": " << again.error().to_string();
    EXPECT_EQ(*again, v.wire) << name;
    EXPECT_EQ(v.wire[1], v.fields["type"].get<int>()) << name;
  }
}

TEST(Of15Codec, HelloNegotiatesVersion6) {
  NEED_OSKEN();
  const Message hello = decoded("hello");
  ASSERT_TRUE(hello.is<Hello>());
  EXPECT_EQ(negotiate_version(version_bitmap({kOf10, kOf13, kOf14, kOf15}), hello), kOf15);
  EXPECT_EQ(negotiate_version(version_bitmap({kOf10, kOf13, kOf14}), hello), kOf14);
  auto ours = encode_message(make_hello(kOf15, version_bitmap({kOf10, kOf13, kOf14, kOf15})));
  ASSERT_TRUE(ours.ok());
  EXPECT_EQ((*ours)[0], kOf15);
}

TEST(Of15Codec, FlowModMatchesTheNewOxmFields) {
  NEED_OSKEN();
  const Message m = decoded("flow_mod_tcp_flags_packet_type");
  const auto& fm = m.as<FlowMod>();
  EXPECT_EQ(fm.priority, fields("flow_mod_tcp_flags_packet_type")["priority"].get<int>());
  EXPECT_EQ(fm.importance, 5);
  ASSERT_EQ(fm.match.fields.size(), 5u);
  const OxmField* flags = fm.match.find(OxmId::kTcpFlags);
  ASSERT_NE(flags, nullptr);
  EXPECT_EQ(flags->value_u64(), 0x002u);
  EXPECT_EQ(flags->mask_u64(), 0x012u);
  const OxmField* pt = fm.match.find(OxmId::kPacketType);
  ASSERT_NE(pt, nullptr);
  EXPECT_EQ(pt->value_u64(), 0u);
  EXPECT_EQ(oxm_info(OxmId::kPacketType)->name, "packet_type");
  EXPECT_EQ(oxm_info(OxmId::kActsetOutput)->length, 4);
  EXPECT_FALSE(validate_match(fm.match).has_value());
}

TEST(Of15Codec, ActsetOutputMatchAndTheFirstEgressTableRequest) {
  NEED_OSKEN();
  const Message m = decoded("flow_mod_actset_output");
  const auto& fm = m.as<FlowMod>();
  EXPECT_EQ(fm.table_id, 2);
  const OxmField* as = fm.match.find(OxmId::kActsetOutput);
  ASSERT_NE(as, nullptr);
  EXPECT_EQ(as->value_u64(), fields("flow_mod_actset_output")["actset_output"].get<uint64_t>());
  EXPECT_EQ(format_match(fm.match), "actset_output=2");

  const Message tf = decoded("table_features_first_egress");
  const auto* req = std::get_if<TableFeaturesRequest>(&tf.as<MultipartRequest>().body);
  ASSERT_NE(req, nullptr);
  ASSERT_EQ(req->tables.size(), 1u);
  const json& want = fields("table_features_first_egress");
  EXPECT_EQ(req->tables[0].table_id, want["table_id"].get<int>());
  EXPECT_EQ(req->tables[0].command, want["command"].get<int>());
  EXPECT_EQ(req->tables[0].features, want["features"].get<uint32_t>());
  EXPECT_EQ(req->tables[0].features, table_features::kEgressTable | table_features::kFirstEgress);
  EXPECT_EQ(req->tables[0].name, "table2");
  // The reply the switch writes carries the flags the same way (1.4's padding at 1.5).
  MultipartReply reply;
  TableFeatures t = req->tables[0];
  t.command = 0;
  reply.body = TableFeaturesReply{{t}};
  Message rm{kOf15, 9, reply};
  auto wire = encode_message(rm);
  ASSERT_TRUE(wire.ok()) << wire.error().to_string();
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  const auto* r = std::get_if<TableFeaturesReply>(&back->as<MultipartReply>().body);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->tables.at(0).features, table_features::kEgressTable | table_features::kFirstEgress);
  EXPECT_NE(format_message(*back).find("features=egress first_egress"), std::string::npos)
      << format_message(*back);
}

TEST(Of15Codec, MeterActionIsTheMeterInstruction) {
  NEED_OSKEN();
  const Message fm_msg = decoded("flow_mod_meter_action");
  const auto& fm = fm_msg.as<FlowMod>();
  ASSERT_EQ(fm.instructions.size(), 3u);
  EXPECT_EQ(fm.instructions[0].type, InstructionType::kMeter);
  EXPECT_EQ(fm.instructions[0].meter_id, 5u);
  EXPECT_EQ(fm.instructions[1].type, InstructionType::kApplyActions);
  ASSERT_EQ(fm.instructions[1].actions.size(), 1u);
  EXPECT_EQ(fm.instructions[1].actions[0].port, 2u);
  EXPECT_EQ(fm.instructions[2].type, InstructionType::kGotoTable);
  const Message only_msg = decoded("flow_mod_meter_only");
  const auto& only = only_msg.as<FlowMod>();
  ASSERT_EQ(only.instructions.size(), 2u);
  EXPECT_EQ(only.instructions[0].meter_id, 7u);
  EXPECT_TRUE(only.instructions[1].actions.empty());
  // A model flow-mod with a meter instruction and no apply-actions gets one at 1.5.
  FlowMod built;
  built.instructions.push_back(Instruction{});
  built.instructions[0].type = InstructionType::kMeter;
  built.instructions[0].meter_id = 9;
  auto wire = encode_message(make_message(kOf15, 1, built));
  ASSERT_TRUE(wire.ok());
  auto back = decode_message(*wire);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  const auto& b = back->as<FlowMod>();
  ASSERT_EQ(b.instructions.size(), 2u);
  EXPECT_EQ(b.instructions[0].meter_id, 9u);
  // on the wire: apply-actions (4) holding OFPAT_METER (29) with meter 9
  const size_t ins = wire->size() - 16;
  EXPECT_EQ(load_be16(&(*wire)[ins]), 4);
  EXPECT_EQ(load_be16(&(*wire)[ins + 8]), 29);
  EXPECT_EQ(load_be32(&(*wire)[ins + 12]), 9u);
}

TEST(Of15Codec, CopyFieldInFlowModPacketOutAndBuckets) {
  NEED_OSKEN();
  constexpr uint32_t kEthSrc = 0x80000806, kEthDst = 0x80000606, kIpv4Src = 0x80001604, kIpv4Dst = 0x80001804;
  const Message fm_msg = decoded("flow_mod_copy_field");
  const auto& fm = fm_msg.as<FlowMod>();
  ASSERT_EQ(fm.instructions.size(), 2u);  // meter, apply-actions
  const ActionList& acts = fm.instructions[1].actions;
  ASSERT_EQ(acts.size(), 3u);
  ASSERT_EQ(acts[0].type, ActionType::kCopyField);
  EXPECT_EQ(acts[0].copy.n_bits, 48);
  EXPECT_EQ(acts[0].copy.src, kEthSrc);
  EXPECT_EQ(acts[0].copy.dst, kEthDst);
  ASSERT_EQ(acts[1].type, ActionType::kCopyField);
  EXPECT_EQ(acts[1].copy.n_bits, 8);
  EXPECT_EQ(acts[1].copy.dst_offset, 8);
  EXPECT_EQ(acts[1].copy.src, kIpv4Src);
  EXPECT_EQ(acts[1].copy.dst, kIpv4Dst);
  const Message po_msg = decoded("packet_out_copy_field");
  const auto& po = po_msg.as<PacketOut>();
  ASSERT_EQ(po.actions.size(), 2u);
  EXPECT_EQ(po.actions[0].type, ActionType::kCopyField);
  EXPECT_EQ(po.actions[0].copy.n_bits, 16);
  EXPECT_EQ(po.data.size(), 60u);
  const Message g_msg = decoded("group_mod_copy_field");
  const auto& g = g_msg.as<GroupMod>();
  ASSERT_EQ(g.buckets.size(), 1u);
  ASSERT_EQ(g.buckets[0].actions.size(), 2u);
  EXPECT_EQ(g.buckets[0].actions[0].copy.src, kEthSrc);
  // The same flow-mod at 1.3: the ONF extension's action, and back.
  Message m13 = fm_msg;
  m13.version = kOf13;
  auto w13 = encode_message(m13);
  ASSERT_TRUE(w13.ok()) << w13.error().to_string();
  auto back = decode_message(*w13);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->as<FlowMod>().instructions, fm.instructions);
}

TEST(Of15Codec, PacketOutCarriesInPortInItsMatch) {
  NEED_OSKEN();
  const Message po_msg = decoded("packet_out");
  const auto& po = po_msg.as<PacketOut>();
  EXPECT_EQ(po.in_port, uint32_t(fields("packet_out")["in_port"].get<int>()));
  EXPECT_EQ(po.data.size(), 60u);
  ASSERT_EQ(po.actions.size(), 1u);
  EXPECT_EQ(po.actions[0].port, port::kFlood);
}

TEST(Of15Codec, GroupsWithBucketProperties) {
  NEED_OSKEN();
  const Message sel_msg = decoded("group_mod_select");
  const auto& sel = sel_msg.as<GroupMod>();
  EXPECT_EQ(sel.group_id, 4u);
  EXPECT_EQ(sel.type, GroupType::kSelect);
  ASSERT_EQ(sel.buckets.size(), 2u);
  EXPECT_EQ(sel.buckets[0].weight, 3);
  EXPECT_EQ(sel.buckets[1].weight, 1);
  const Message ff_msg = decoded("group_mod_ff");
  const auto& ff = ff_msg.as<GroupMod>();
  ASSERT_EQ(ff.buckets.size(), 1u);
  EXPECT_EQ(ff.buckets[0].watch_port, 1u);
  EXPECT_EQ(ff.buckets[0].watch_group, 9u);
  const Message desc_msg = decoded("group_desc_reply");
  const auto& desc = desc_msg.as<MultipartReply>();
  const auto& groups = std::get<GroupDescReply>(desc.body).groups;
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].group_id, 4u);
  ASSERT_EQ(groups[0].buckets.size(), 1u);
  EXPECT_EQ(groups[0].buckets[0].weight, 5);
  const Message req = decoded("group_desc_request");
  EXPECT_TRUE(std::holds_alternative<GroupDescRequest>(req.as<MultipartRequest>().body));
}

TEST(Of15Codec, StatsAreOxs) {
  NEED_OSKEN();
  const Message fr_msg = decoded("flow_removed");
  const auto& fr = fr_msg.as<FlowRemoved>();
  EXPECT_EQ(fr.packet_count, 10u);
  EXPECT_EQ(fr.byte_count, 1500u);
  EXPECT_EQ(fr.duration_sec, 30u);
  EXPECT_EQ(fr.duration_nsec, 500u);
  EXPECT_EQ(fr.table_id, 1);
  EXPECT_EQ(fr.priority, 300);
  EXPECT_EQ(fr.cookie, 7u);
  EXPECT_EQ(fr.match.fields.size(), 4u);
  const Message flows_msg = decoded("flow_desc_reply");
  const auto& flows = std::get<FlowStatsReply>(flows_msg.as<MultipartReply>().body).stats;
  ASSERT_EQ(flows.size(), 1u);
  EXPECT_EQ(flows[0].packet_count, 100u);
  EXPECT_EQ(flows[0].byte_count, 6400u);
  EXPECT_EQ(flows[0].duration_sec, 12u);
  EXPECT_EQ(flows[0].importance, 42);
  ASSERT_EQ(flows[0].instructions.size(), 2u);
  EXPECT_EQ(flows[0].instructions[0].meter_id, 5u);
  const Message agg_msg = decoded("aggregate_reply");
  const auto& agg = std::get<AggregateStatsReply>(agg_msg.as<MultipartReply>().body);
  EXPECT_EQ(agg.flow_count, 3u);
  EXPECT_EQ(agg.packet_count, 200u);
  EXPECT_EQ(agg.byte_count, 9000u);
  const Message pin_msg = decoded("packet_in");
  const auto& pin = pin_msg.as<PacketIn>();
  EXPECT_EQ(pin.data.size(), 42u);
}

TEST(Of15Codec, FlowStatsAndIdleTime) {
  NEED_OSKEN();
  const Message req_msg = decoded("flow_stats_request");
  const auto& req = std::get<FlowStatsRequest>(req_msg.as<MultipartRequest>().body);
  EXPECT_TRUE(req.stats_only);
  ASSERT_EQ(req.match.fields.size(), 1u);
  const Message rep_msg = decoded("flow_stats_reply");
  const auto& rep = std::get<FlowStatsReply>(rep_msg.as<MultipartReply>().body);
  EXPECT_TRUE(rep.stats_only);
  ASSERT_EQ(rep.stats.size(), 1u);
  EXPECT_EQ(rep.stats[0].priority, 300);
  EXPECT_EQ(rep.stats[0].table_id, 1);
  EXPECT_EQ(rep.stats[0].packet_count, 100u);
  EXPECT_TRUE(rep.stats[0].has_idle_time);
  EXPECT_EQ(rep.stats[0].idle_sec, 5u);
  EXPECT_EQ(rep.stats[0].idle_nsec, 6u);
  const Message fr_msg = decoded("flow_removed_idle");
  EXPECT_TRUE(fr_msg.as<FlowRemoved>().has_idle_time);
  EXPECT_EQ(fr_msg.as<FlowRemoved>().idle_sec, 7u);
  EXPECT_EQ(fr_msg.as<FlowRemoved>().idle_nsec, 8u);
  // the flow desc reply os-ken built has no idle_time: none is made up
  const Message desc_msg = decoded("flow_desc_reply");
  EXPECT_FALSE(std::get<FlowStatsReply>(desc_msg.as<MultipartReply>().body).stats[0].has_idle_time);
  EXPECT_FALSE(std::get<FlowStatsReply>(desc_msg.as<MultipartReply>().body).stats_only);
}

TEST(Of15Codec, BundlesCarry15MessagesAndRefuseScheduledCommits) {
  NEED_OSKEN();
  const Message add = decoded("bundle_add_flow_mod");
  auto again = encode_message(add);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, vectors().at("bundle_add_flow_mod").wire);
  Bytes timed = vectors().at("bundle_open").wire;
  store_be16(&timed[14], 1 | of15::kBundleFlagTime);
  expect_refused(timed, ErrorType::kBundleFailed, of15::kBundleSchedNotSupported, "OFPBF_TIME");
  Bytes timed_add = vectors().at("bundle_add_flow_mod").wire;
  store_be16(&timed_add[14], of15::kBundleFlagTime);
  expect_refused(timed_add, ErrorType::kBundleFailed, of15::kBundleSchedNotSupported, "OFPBF_TIME add");
}

TEST(Of15Codec, UnsupportedPartsAnswerTheSpecError) {
  NEED_OSKEN();
  const Bytes meter = vectors().at("flow_mod_meter_action").wire;
  // the apply-actions' first action (meter, 8 bytes) is at the end of the match + 8
  const size_t match_len = load_be16(&meter[50]);
  const size_t first_action = 48 + ((match_len + 7) & ~size_t(7)) + 8;
  ASSERT_EQ(load_be16(&meter[first_action]), of15::kActionMeter);
  Bytes copy_field = meter;  // 8 bytes: too short for its two OXM ids
  store_be16(&copy_field[first_action], of15::kActionCopyField);
  expect_refused(copy_field, ErrorType::kBadAction, uint16_t(BadActionCode::kBadLen), "copy-field");
  // meter second: swap the meter and the output action (16 bytes)
  Bytes second = meter;
  std::copy(meter.begin() + long(first_action) + 8, meter.begin() + long(first_action) + 24,
            second.begin() + long(first_action));
  std::copy(meter.begin() + long(first_action), meter.begin() + long(first_action) + 8,
            second.begin() + long(first_action) + 16);
  expect_refused(second, ErrorType::kBadAction, uint16_t(BadActionCode::kUnsupportedOrder), "meter second");
  Bytes write = meter;
  store_be16(&write[first_action - 8], 3);  // write-actions
  expect_refused(write, ErrorType::kBadAction, uint16_t(BadActionCode::kUnsupportedOrder), "meter in write");
  Bytes deprecated = meter;  // the goto-table instruction (last 8 bytes) as type 6
  store_be16(&deprecated[deprecated.size() - 8], of15::kInstructionMeter);
  expect_refused(deprecated, ErrorType::kBadInstruction, uint16_t(BadInstructionCode::kUnknownInst),
                 "inst 6");
  Bytes trigger = meter;
  store_be16(&trigger[trigger.size() - 8], of15::kInstructionStatTrigger);
  expect_refused(trigger, ErrorType::kBadInstruction, uint16_t(BadInstructionCode::kUnsupInst),
                 "stat trigger");
  Bytes unknown = vectors().at("group_mod_select").wire;
  store_be16(&unknown[8], 4);  // between INSERT_BUCKET (3) and REMOVE_BUCKET (5): none
  expect_refused(unknown, ErrorType::kGroupModFailed, uint16_t(GroupModFailedCode::kBadCommand),
                 "group command 4");
  Bytes props = sized([] {
    Bytes g = vectors().at("group_mod_delete").wire;
    for (uint8_t b : {0xff, 0xff, 0x00, 0x0c, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0}) g.push_back(b);
    return g;
  }());
  expect_refused(props, ErrorType::kBadProperty, 0, "group property");
  Bytes bundle_features = vectors().at("aggregate_request").wire;
  store_be16(&bundle_features[8], 19);  // OFPMP_BUNDLE_FEATURES
  expect_refused(bundle_features, ErrorType::kBadRequest, uint16_t(BadRequestCode::kBadMultipart),
                 "OFPMP_BUNDLE_FEATURES");
  Bytes one_group = vectors().at("group_desc_request").wire;
  store_be32(&one_group[16], 4);
  expect_refused(one_group, ErrorType::kBadRequest, uint16_t(BadRequestCode::kBadMultipart), "group desc 4");
  Bytes po = vectors().at("packet_out").wire;
  store_be32(&po[20], 0x80000404);  // the match's in_port TLV as metadata's header
  expect_refused(po, ErrorType::kBadMatch, uint16_t(BadMatchCode::kBadField), "packet_out metadata match");
}

TEST(Of15Codec, TruncationsFailCleanly) {
  NEED_OSKEN();
  for (const auto& [name, v] : vectors()) {
    for (size_t n = 8; n < v.wire.size(); ++n) {
      Bytes cut = sized(Bytes(v.wire.begin(), v.wire.begin() + long(n)));
      auto m = decode_message(cut);
      if (m.ok()) (void)encode_message(*m);  // what decodes, encodes without a crash
    }
  }
}

TEST(Of15Codec, ErrorRepliesAreAtVersion6) {
  NEED_OSKEN();
  const Bytes& req = vectors().at("flow_mod_meter_action").wire;
  Message e = make_error_reply(OfError::make(BadActionCode::kBadType, "x"), req);
  EXPECT_EQ(e.version, kOf15);
  auto wire = encode_message(e);
  ASSERT_TRUE(wire.ok());
  EXPECT_EQ((*wire)[0], kOf15);
  EXPECT_EQ((*wire)[1], uint8_t(MsgType::kError));
}

}  // namespace
}  // namespace flowlab::of

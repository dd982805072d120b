// Ryu action JSON <-> actions/instructions: the action types of Ryu's
// ofctl_rest documentation, their string form in flow stats, and the errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "rest/ryu_json.h"

namespace flowlab::rest {
namespace {

using ::testing::HasSubstr;

using of::Action;
using of::ActionType;
using of::Instruction;
using of::InstructionType;

of::InstructionList decode(const char* text, uint8_t version = of::kOf13, const of::Match& m = {}) {
  auto r = instructions_from_json(Json::parse(text), m, version);
  EXPECT_TRUE(r.ok()) << text << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : of::InstructionList{};
}

std::string error_of(const char* text, uint8_t version = of::kOf13) {
  auto r = instructions_from_json(Json::parse(text), {}, version);
  EXPECT_FALSE(r.ok()) << text;
  return r.ok() ? "" : r.error().message;
}

of::ActionList apply_of(const of::InstructionList& insts) {
  for (const auto& i : insts)
    if (i.type == InstructionType::kApplyActions) return i.actions;
  return {};
}

TEST(RyuActions, OutputFromDocs) {
  auto insts = decode(R"([{"type": "OUTPUT", "port": 2}])");
  ASSERT_EQ(insts.size(), 1u);
  EXPECT_EQ(insts[0], Instruction::apply({Action::output(2, 0xffe5)}));
  auto ctl = apply_of(decode(R"([{"type": "OUTPUT", "port": "CONTROLLER", "max_len": 128}])"));
  EXPECT_EQ(ctl, of::ActionList{Action::output(of::port::kController, 128)});
}

TEST(RyuActions, EveryPlainAction) {
  auto acts = apply_of(decode(R"([
      {"type": "COPY_TTL_OUT"}, {"type": "COPY_TTL_IN"}, {"type": "SET_MPLS_TTL", "mpls_ttl": 64},
      {"type": "DEC_MPLS_TTL"}, {"type": "PUSH_VLAN", "ethertype": 33024}, {"type": "POP_VLAN"},
      {"type": "PUSH_MPLS", "ethertype": 34887}, {"type": "POP_MPLS", "ethertype": 2054},
      {"type": "SET_QUEUE", "queue_id": 7}, {"type": "GROUP", "group_id": 1},
      {"type": "SET_NW_TTL", "nw_ttl": 64}, {"type": "DEC_NW_TTL"},
      {"type": "PUSH_PBB", "ethertype": 35047}, {"type": "POP_PBB"}])"));
  ASSERT_EQ(acts.size(), 14u);
  EXPECT_EQ(acts[0].type, ActionType::kCopyTtlOut);
  EXPECT_EQ(acts[1].type, ActionType::kCopyTtlIn);
  EXPECT_EQ(acts[2], Action::set_mpls_ttl(64));
  EXPECT_EQ(acts[3].type, ActionType::kDecMplsTtl);
  EXPECT_EQ(acts[4], Action::push_vlan(0x8100));
  EXPECT_EQ(acts[5], Action::pop_vlan());
  EXPECT_EQ(acts[6], Action::push_mpls(0x8847));
  EXPECT_EQ(acts[7], Action::pop_mpls(0x0806));
  EXPECT_EQ(acts[8], Action::set_queue(7));
  EXPECT_EQ(acts[9], Action::group(1));
  EXPECT_EQ(acts[10], Action::set_nw_ttl(64));
  EXPECT_EQ(acts[11].type, ActionType::kDecNwTtl);
  EXPECT_EQ(acts[12].type, ActionType::kPushPbb);
  EXPECT_EQ(acts[12].ethertype, 0x88e7);
  EXPECT_EQ(acts[13].type, ActionType::kPopPbb);
}

TEST(RyuActions, SetField) {
  // Ryu docs: {"type": "SET_FIELD", "field": "vlan_vid", "value": 4102} sets VLAN 6 (OFPVID_PRESENT | 6).
  auto acts = apply_of(decode(R"([{"type": "SET_FIELD", "field": "vlan_vid", "value": 4102},
                                  {"type": "SET_FIELD", "field": "eth_dst", "value": "00:00:00:00:00:02"},
                                  {"type": "SET_FIELD", "field": "ipv4_dst", "value": "10.0.0.9"}])"));
  ASSERT_EQ(acts.size(), 3u);
  EXPECT_EQ(acts[0], Action::set_field(of::OxmField::basic(of::OxmId::kVlanVid, 0x1006)));
  EXPECT_EQ(acts[1], Action::set_field(of::OxmField::basic(of::OxmId::kEthDst, 2)));
  EXPECT_EQ(acts[2], Action::set_field(of::OxmField::basic(of::OxmId::kIpv4Dst, 0x0a000009)));
  EXPECT_EQ(action_to_string(acts[0]), "SET_FIELD: {vlan_vid:4102}");
  EXPECT_EQ(action_to_string(acts[1]), "SET_FIELD: {eth_dst:00:00:00:00:00:02}");
  EXPECT_EQ(action_to_string(acts[2]), "SET_FIELD: {ipv4_dst:10.0.0.9}");
}

TEST(RyuActions, Instructions) {
  auto insts = decode(R"([{"type": "WRITE_ACTIONS", "actions": [{"type": "OUTPUT", "port": 3}]},
                          {"type": "CLEAR_ACTIONS"}, {"type": "GOTO_TABLE", "table_id": 1},
                          {"type": "WRITE_METADATA", "metadata": 1, "metadata_mask": 1},
                          {"type": "METER", "meter_id": 2}, {"type": "OUTPUT", "port": 1}])");
  // Canonical OF1.3 order: meter, apply, clear, write, write-metadata, goto.
  ASSERT_EQ(insts.size(), 6u);
  EXPECT_EQ(insts[0], Instruction::meter(2));
  EXPECT_EQ(insts[1], Instruction::apply({Action::output(1, 0xffe5)}));
  EXPECT_EQ(insts[2], Instruction::clear());
  EXPECT_EQ(insts[3], Instruction::write({Action::output(3, 0xffe5)}));
  EXPECT_EQ(insts[4], Instruction::write_metadata(1, 1));
  EXPECT_EQ(insts[5], Instruction::goto_table(1));
  Json j = instructions_to_json(insts);
  EXPECT_EQ(j, Json::parse(R"(["METER:2", "OUTPUT:1", "CLEAR_ACTIONS", {"WRITE_ACTIONS": ["OUTPUT:3"]},
                              "WRITE_METADATA:0x1/0x1", "GOTO_TABLE:1"])"));
  EXPECT_EQ(decode(R"([{"type": "WRITE_METADATA", "metadata": "0x10"}])")[0],
            Instruction::write_metadata(0x10, UINT64_MAX));
}

TEST(RyuActions, Of10Names) {
  of::Match ip;
  ip.add(of::OxmField::basic(of::OxmId::kEthType, 0x0800));
  ip.add(of::OxmField::basic(of::OxmId::kIpProto, 6));
  auto acts = apply_of(decode(R"([{"type": "SET_DL_SRC", "dl_src": "00:00:00:00:00:05"},
                                  {"type": "SET_NW_DST", "nw_dst": "10.0.0.5"},
                                  {"type": "SET_TP_DST", "tp_dst": 8080},
                                  {"type": "STRIP_VLAN"}, {"type": "OUTPUT", "port": 1}])",
                              of::kOf10, ip));
  ASSERT_EQ(acts.size(), 5u);
  EXPECT_EQ(acts[0], Action::set_field(of::OxmField::basic(of::OxmId::kEthSrc, 5)));
  EXPECT_EQ(acts[1], Action::set_field(of::OxmField::basic(of::OxmId::kIpv4Dst, 0x0a000005)));
  EXPECT_EQ(acts[2], Action::set_field(of::OxmField::basic(of::OxmId::kTcpDst, 8080)));
  EXPECT_EQ(acts[3], Action::pop_vlan());
}

TEST(RyuActions, ToStringForms) {
  EXPECT_EQ(action_to_string(Action::output(2)), "OUTPUT:2");
  EXPECT_EQ(action_to_string(Action::output(of::port::kController)), "OUTPUT:CONTROLLER");
  EXPECT_EQ(action_to_string(Action::output(of::port::kLocal)), "OUTPUT:LOCAL");
  EXPECT_EQ(action_to_string(Action::push_vlan(0x8100)), "PUSH_VLAN:33024");
  EXPECT_EQ(action_to_string(Action::group(3)), "GROUP:3");
  EXPECT_EQ(action_to_string(Action::set_queue(1)), "SET_QUEUE:1");
  EXPECT_EQ(action_to_string(Action::simple(ActionType::kDecNwTtl)), "DEC_NW_TTL");
}

TEST(RyuActions, Errors) {
  EXPECT_THAT(error_of(R"({"type": "OUTPUT"})"), HasSubstr("expected a list"));
  EXPECT_THAT(error_of(R"([{"type": "JUMP"}])"), HasSubstr("unknown type 'JUMP'"));
  EXPECT_THAT(error_of(R"([{"port": 1}])"), HasSubstr("\"type\""));
  EXPECT_THAT(error_of(R"([{"type": "OUTPUT"}])"), HasSubstr("needs 'port'"));
  EXPECT_THAT(error_of(R"([{"type": "OUTPUT", "port": "SOMEWHERE"}])"), HasSubstr("port"));
  EXPECT_THAT(error_of(R"([{"type": "OUTPUT", "port": 1, "max_len": 70000}])"), HasSubstr("max_len"));
  EXPECT_THAT(error_of(R"([{"type": "PUSH_VLAN"}])"), HasSubstr("ethertype"));
  EXPECT_THAT(error_of(R"([{"type": "GROUP"}])"), HasSubstr("group_id"));
  EXPECT_THAT(error_of(R"([{"type": "SET_FIELD", "field": "nope", "value": 1}])"),
              HasSubstr("unknown field 'nope'"));
  EXPECT_THAT(error_of(R"([{"type": "SET_FIELD", "field": "eth_dst", "value": "1,output:3"}])"),
              HasSubstr("value"));
  EXPECT_THAT(error_of(R"([{"type": "GOTO_TABLE"}])"), HasSubstr("table_id"));
  EXPECT_THAT(error_of(R"([{"type": "GOTO_TABLE", "table_id": 1}])", of::kOf10), HasSubstr("OpenFlow 1.3"));
  EXPECT_THAT(error_of(R"([{"type": "CLEAR_ACTIONS"}, {"type": "CLEAR_ACTIONS"}])"), HasSubstr("twice"));
  auto bucket = actions_from_json(Json::parse(R"([{"type": "GOTO_TABLE", "table_id": 1}])"));
  EXPECT_FALSE(bucket.ok());
}

}  // namespace
}  // namespace flowlab::rest

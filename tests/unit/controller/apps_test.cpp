// The apps against a fake switch over loopback: hub, learning-switch, firewall
// (stacked before learning-switch), for OpenFlow 1.3 and 1.0; plus runtime
// behaviour (handshake, stats, multipart replies delivered by xid).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "controller/app_registry.h"
#include "controller/apps/firewall.h"
#include "controller/apps/hub.h"
#include "controller/apps/learning_switch.h"
#include "fake_switch.h"

namespace flowlab::controller {
namespace {

using namespace testing;
using of::OxmId;

constexpr uint64_t kMacA = 0x0000000000aa, kMacB = 0x0000000000bb, kBcast = 0xffffffffffff;

std::vector<std::unique_ptr<App>> stack_of(std::initializer_list<std::string_view> names,
                                           const AppConfig& cfg = {}) {
  std::vector<std::unique_ptr<App>> v;
  for (auto n : names) {
    auto a = make_app(n, cfg);
    EXPECT_TRUE(a.ok()) << a.error().message;
    v.push_back(std::move(*a));
  }
  return v;
}

const of::Action& first_action(const of::FlowMod& fm) { return fm.instructions.at(0).actions.at(0); }

class VersionTest : public ::testing::TestWithParam<uint8_t> {};

TEST_P(VersionTest, HubInstallsOnlyTableMissAndFloodsEveryPacketIn) {
  ControllerRunner c(stack_of({"hub"}));
  FakeSwitch sw(c.port(), GetParam());
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(1));
  auto fms = sw.all<of::FlowMod>();
  ASSERT_EQ(fms.size(), 1u);
  EXPECT_EQ(fms[0].priority, 0);
  EXPECT_TRUE(fms[0].match.empty());
  EXPECT_EQ(first_action(fms[0]).port, of::port::kController);
  EXPECT_EQ(first_action(fms[0]).max_len, of::kControllerMaxLenNoBuffer);
  Bytes frame = eth_frame(kMacB, kMacA, 0x0800);
  sw.packet_in(1, frame);
  sw.packet_in(2, eth_frame(kMacA, kMacB, 0x0800), 77);
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(2));
  auto pos = sw.all<of::PacketOut>();
  EXPECT_EQ(pos[0].buffer_id, of::kNoBuffer);
  EXPECT_EQ(pos[0].data, frame);
  EXPECT_EQ(pos[0].in_port, 1u);
  ASSERT_EQ(pos[0].actions.size(), 1u);
  EXPECT_EQ(pos[0].actions[0].port, of::port::kFlood);
  EXPECT_EQ(pos[1].buffer_id, 77u);
  EXPECT_TRUE(pos[1].data.empty());
  EXPECT_EQ(sw.all<of::FlowMod>().size(), 1u);  // still only the table-miss
  for (const auto& m : sw.messages()) {
    if (!m.is<of::Hello>()) {
      EXPECT_EQ(m.version, GetParam());
    }
  }
  EXPECT_EQ(c.controller().stats().packet_in_answered, 2u);
}

TEST_P(VersionTest, LearningSwitchFloodsUnknownThenInstallsLearnedFlow) {
  ControllerRunner c(stack_of({"learning-switch"}));
  FakeSwitch sw(c.port(), GetParam());
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(1));
  EXPECT_EQ(first_action(sw.all<of::FlowMod>()[0]).max_len, of::kControllerMaxLenNoBuffer);
  sw.packet_in(1, eth_frame(kBcast, kMacA, 0x0806));  // A (port 1) broadcasts
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(1));
  EXPECT_EQ(sw.all<of::PacketOut>()[0].actions.at(0).port, of::port::kFlood);
  sw.packet_in(2, eth_frame(kMacA, kMacB, 0x0806));  // B (port 2) answers A
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(2));
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(2));
  auto fm = sw.all<of::FlowMod>()[1];
  EXPECT_EQ(fm.priority, 1);
  EXPECT_EQ(fm.idle_timeout, 60);
  EXPECT_TRUE(has_field(fm.match, OxmId::kInPort, 2));
  EXPECT_TRUE(has_field(fm.match, OxmId::kEthSrc, kMacB));
  EXPECT_TRUE(has_field(fm.match, OxmId::kEthDst, kMacA));
  EXPECT_EQ(first_action(fm).port, 1u);
  EXPECT_EQ(sw.all<of::PacketOut>()[1].actions.at(0).port, 1u);
}

INSTANTIATE_TEST_SUITE_P(EveryVersion, VersionTest,
                         ::testing::Values(of::kOf15, of::kOf14, of::kOf13, of::kOf10));

TEST(LearningSwitch, LinkLocalNotFloodedAndMovesDeleteFlows) {
  ControllerRunner c(stack_of({"learning-switch"}));
  FakeSwitch sw(c.port(), of::kOf13);
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(1));
  sw.packet_in(1, eth_frame(0x0180c200000e, kMacA, 0x88cc));  // LLDP
  sw.packet_in(1, eth_frame(0x0180c2000000, kMacA, 0x0800));  // STP group address
  sw.packet_in(1, eth_frame(kBcast, kMacA, 0x0806));
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(1));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(sw.all<of::PacketOut>().size(), 1u);  // only the broadcast was flooded
  // A moves from port 1 to port 3: flows to and from A are deleted.
  sw.packet_in(3, eth_frame(kBcast, kMacA, 0x0806));
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(3));
  auto fms = sw.all<of::FlowMod>();
  EXPECT_EQ(fms[1].command, of::FlowModCommand::kDelete);
  EXPECT_TRUE(has_field(fms[1].match, OxmId::kEthDst, kMacA));
  EXPECT_EQ(fms[2].command, of::FlowModCommand::kDelete);
  EXPECT_TRUE(has_field(fms[2].match, OxmId::kEthSrc, kMacA));
}

class FirewallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + fmt::format("fw_rules_{}.yaml", ::getpid());
    write(R"(default: deny
security_groups:
  - name: server
    targets: [{ip: 10.0.0.2}]
    ingress:
      - {protocol: tcp, port: 5201}
      - {protocol: icmp, icmp_type: 8}
  - name: client
    targets: [{port: 1}]
    egress:
      - {protocol: any}
)");
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) {
    std::ofstream f(path_);
    f << text;
  }
  std::string path_;
};

TEST_F(FirewallTest, RuleSetDecisions) {
  auto rs = FwRuleSet::load_file(path_);
  ASSERT_TRUE(rs.ok()) << rs.error().message;
  FwPacket p;
  p.src = {1, 1, kMacA, 0x0a000001};
  p.dst = {1, 2, kMacB, 0x0a000002};
  p.proto = 6;
  p.tp_src = 40000;
  p.tp_dst = 5201;
  EXPECT_TRUE(rs->decide(p).allow) << rs->decide(p).why;
  p.tp_dst = 5202;
  EXPECT_FALSE(rs->decide(p).allow);
  p.proto = 1;
  p.icmp_type = 8;
  EXPECT_TRUE(rs->decide(p).allow);
  p.icmp_type = 13;
  EXPECT_FALSE(rs->decide(p).allow);
  // Server-initiated traffic: the server has no egress rule.
  FwPacket q;
  q.src = {1, 2, kMacB, 0x0a000002};
  q.dst = {1, 1, kMacA, 0x0a000001};
  q.proto = 6;
  q.tp_dst = 22;
  EXPECT_FALSE(q.src.ip == 0);
  EXPECT_FALSE(rs->decide(q).allow);
  // Neither end covered: default deny.
  FwPacket r;
  r.src = {1, 5, 1, 0x0b000001};
  r.dst = {1, 6, 2, 0x0b000002};
  r.proto = 17;
  EXPECT_FALSE(rs->decide(r).allow);
}

TEST_F(FirewallTest, BadYamlNamesFileLineAndRule) {
  auto r = FwRuleSet::parse(
      "security_groups:\n  - name: s\n    targets: [{ip: 10.0.0.2}]\n    ingress:\n"
      "      - {protocol: tcp, port: 5201}\n      - {protocol: tpc, port: 80}\n",
      "rules.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("rules.yaml:6"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("ingress rule 2"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("tpc"), std::string::npos) << r.error().message;
  auto s = FwRuleSet::parse("security_groups: [\n  {name: x\n", "bad.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("bad.yaml:"), std::string::npos) << s.error().message;
  auto t = FwRuleSet::parse("security_groups:\n  - targets: [{ip: 10.0.0.999}]\n", "t.yaml");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message.find("t.yaml:2"), std::string::npos) << t.error().message;
}

TEST_F(FirewallTest, StackedBeforeLearningSwitchAllowsAndDeniesWithFlows) {
  AppConfig cfg;
  cfg.config_file = path_;
  ControllerRunner c(stack_of({"firewall", "learning-switch"}, cfg));
  FakeSwitch sw(c.port(), of::kOf13);
  // Base flows: firewall table 0 (miss, ARP, 2x DHCP, 4x ND), learning-switch table 1 miss.
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(9));
  auto base = sw.all<of::FlowMod>();
  EXPECT_EQ(base[0].table_id, 0);
  EXPECT_EQ(base[0].priority, 0);
  EXPECT_EQ(base[1].instructions.at(0).type, of::InstructionType::kGotoTable);
  EXPECT_EQ(base[1].instructions.at(0).table_id, 1);
  EXPECT_EQ(base.back().table_id, 1);
  size_t n0 = base.size();
  // Allowed: h1 (port 1) -> 10.0.0.2:5201.
  sw.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 6, 40000, 5201));
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(1));  // the learning switch forwarded it (flood)
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(n0 + 2));
  auto fms = sw.all<of::FlowMod>();
  const auto& fwd = fms[n0];
  EXPECT_EQ(fwd.priority, Firewall::kPriority);
  EXPECT_TRUE(has_field(fwd.match, OxmId::kTcpDst, 5201));
  EXPECT_TRUE(has_field(fwd.match, OxmId::kIpv4Src, 0x0a000001));
  EXPECT_EQ(fwd.instructions.at(0).type, of::InstructionType::kGotoTable);
  const auto& rev = fms[n0 + 1];
  EXPECT_TRUE(has_field(rev.match, OxmId::kTcpSrc, 5201));
  EXPECT_TRUE(has_field(rev.match, OxmId::kIpv4Src, 0x0a000002));
  // Denied: 5202 gets a drop flow and no packet-out.
  sw.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 6, 40001, 5202));
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(n0 + 3));
  auto drop = sw.all<of::FlowMod>()[n0 + 2];
  EXPECT_TRUE(has_field(drop.match, OxmId::kTcpDst, 5202));
  EXPECT_TRUE(drop.instructions.empty());
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(sw.all<of::PacketOut>().size(), 1u);
  // Return traffic of the allowed connection (from table 0 before the flows land) passes.
  sw.packet_in(2, ipv4_frame(kMacA, kMacB, 0x0a000002, 0x0a000001, 6, 5201, 40000));
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(2));
}

TEST_F(FirewallTest, Of10NarrowsLearnedFlowsToTheAllowedConnection) {
  AppConfig cfg;
  cfg.config_file = path_;
  ControllerRunner c(stack_of({"firewall", "learning-switch"}, cfg));
  FakeSwitch sw(c.port(), of::kOf10);
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(2));
  sw.packet_in(2, eth_frame(kBcast, kMacB, 0x0806));  // B learned on port 2 through ARP
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(1));
  sw.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 6, 40000, 5201));
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(2));
  auto fms = sw.all<of::FlowMod>();
  const auto& l2 = fms.back();
  EXPECT_EQ(l2.priority, 1);
  EXPECT_TRUE(has_field(l2.match, OxmId::kEthDst, kMacB));
  EXPECT_TRUE(has_field(l2.match, OxmId::kTcpDst, 5201));  // narrowed by the firewall
  EXPECT_TRUE(has_field(l2.match, OxmId::kEthType, 0x0800));
}

TEST_F(FirewallTest, ReloadKeepsOldRulesOnErrorAndAppliesNewOnes) {
  auto fw = Firewall::load(path_);
  ASSERT_TRUE(fw.ok()) << fw.error().message;
  write(
      "security_groups:\n  - name: s\n    targets: [{ip: 10.0.0.2}]\n    ingress:\n      - {protocol: tcp, "
      "port: 99999}\n");
  auto st = (*fw)->reload();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find(path_ + ":5"), std::string::npos) << st.error().message;
  // Now a valid file that also allows 5202: a stacked controller sees it after reload.
  write(
      "security_groups:\n  - name: s\n    targets: [{ip: 10.0.0.2}]\n    ingress:\n      - {protocol: tcp, "
      "port: 5201-5202}\n");
  EXPECT_TRUE((*fw)->reload().ok());
}

TEST_F(FirewallTest, SighupStyleReloadThroughControllerDeletesFirewallFlows) {
  AppConfig cfg;
  cfg.config_file = path_;
  ControllerRunner c(stack_of({"firewall", "learning-switch"}, cfg));
  FakeSwitch sw(c.port(), of::kOf13);
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(9));
  sw.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 6, 40001, 5202));
  ASSERT_TRUE(sw.wait_count<of::FlowMod>(10));  // drop flow
  write(
      "security_groups:\n  - name: s\n    targets: [{ip: 10.0.0.2}]\n    ingress:\n      - {protocol: tcp, "
      "port: 5201-5202}\n");
  ASSERT_TRUE(c.controller().reload().ok());
  ASSERT_TRUE(sw.wait([](const auto& ms) {
    for (const auto& m : ms)
      if (m.template is<of::FlowMod>() &&
          m.template as<of::FlowMod>().command == of::FlowModCommand::kDelete &&
          m.template as<of::FlowMod>().cookie_mask == Firewall::kCookieMask)
        return true;
    return false;
  }));
  size_t pos_before = sw.all<of::PacketOut>().size();
  sw.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 6, 40001, 5202));
  ASSERT_TRUE(sw.wait_count<of::PacketOut>(pos_before + 1));  // now allowed and forwarded
}

// An app that asks for the switch description and records the reply.
class DescAsker : public App {
 public:
  std::string_view name() const override { return "desc-asker"; }
  void switch_connected(Datapath& dp) override {
    auto r = dp.multipart(of::DescRequest{}, [this](Datapath&, const of::Message& m) {
      if (m.is<of::MultipartReply>()) got = true;
    });
    EXPECT_TRUE(r.ok());
  }
  std::atomic<bool> got{false};
};

TEST(Runtime, MultipartReplyDeliveredToRequesterAndStatsJson) {
  auto asker = std::make_unique<DescAsker>();
  auto* a = asker.get();
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(std::move(asker));
  apps.push_back(std::make_unique<Hub>());
  ControllerOptions o;
  o.stats_json = ::testing::TempDir() + fmt::format("ctl_stats_{}.json", ::getpid());
  {
    ControllerRunner c(std::move(apps), o);
    FakeSwitch sw(c.port(), of::kOf13, 0x42);
    ASSERT_TRUE(sw.wait([](const auto& ms) {
      for (const auto& m : ms)
        if (m.template is<of::MultipartRequest>() &&
            std::holds_alternative<of::DescRequest>(m.template as<of::MultipartRequest>().body))
          return true;
      return false;
    }));
    of::MultipartReply rep;
    rep.body = of::DescReply{"m", "h", "s", "n", "d"};
    uint32_t xid = 0;
    for (const auto& m : sw.messages())
      if (m.is<of::MultipartRequest>() &&
          std::holds_alternative<of::DescRequest>(m.as<of::MultipartRequest>().body))
        xid = m.xid;
    // Answer with the request's xid.
    sw.send(rep);  // wrong xid (fresh one): must not be delivered
    std::this_thread::sleep_for(50ms);
    EXPECT_FALSE(a->got);
    sw.send(rep, xid);
    for (int i = 0; i < 300 && !a->got; ++i) std::this_thread::sleep_for(5ms);
    EXPECT_TRUE(a->got);
    for (int i = 0; i < 5; ++i) sw.packet_in(1, eth_frame(kBcast, kMacA, 0x0800));
    ASSERT_TRUE(sw.wait_count<of::PacketOut>(5));
    EXPECT_EQ(c.controller().stats().packet_in_received, 5u);
    EXPECT_EQ(c.controller().stats().switches_connected, 1u);
  }
  std::ifstream f(o.stats_json);
  ASSERT_TRUE(f.good());
  auto j = nlohmann::json::parse(f);
  EXPECT_EQ(j["packet_in"]["received"], 5);
  EXPECT_EQ(j["packet_in"]["answered"], 5);
  EXPECT_EQ(j["handling_time"]["packet_in"]["count"], 5);
  std::remove(o.stats_json.c_str());
}

}  // namespace
}  // namespace flowlab::controller

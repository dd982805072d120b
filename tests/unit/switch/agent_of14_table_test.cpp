// The switch's agent and OpenFlow 1.4 table configuration over a loopback
// controller connection at version 5, on tables of a few flows
// (SwitchOptions::table_size): table-mod and table-desc, vacancy events with
// their hysteresis, eviction by importance then remaining life (flow-removed
// reason EVICTION), TABLE_FULL without eviction, a 1.3 table-mod leaving the
// 1.4 config alone.
#include <algorithm>

#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

using of::MsgType;

struct Of14TableTest : ::testing::Test {
  TestController ctl{{of::kOf14}};
  std::unique_ptr<SwitchFixture> fx;
  void start(uint32_t table_size) {
    SwitchOptions o = options_with_controller(ctl.port());
    o.table_size = table_size;
    fx = std::make_unique<SwitchFixture>(o, 2);
    ASSERT_TRUE(ctl.wait_ready()) << "switch never connected to the controller";
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  void barrier() { ASSERT_TRUE(ctl.wait_xid(ctl.send(of::BarrierRequest{}))); }
  of::TableDesc desc(uint8_t table) {
    auto r = ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::TableDescRequest{}}));
    EXPECT_TRUE(r && r->is<of::MultipartReply>());
    if (!r || !r->is<of::MultipartReply>()) return {};
    const auto& tables = std::get<of::TableDescReply>(r->as<of::MultipartReply>().body).tables;
    EXPECT_EQ(tables.size(), 64u);
    return table < tables.size() ? tables[table] : of::TableDesc{};
  }
  // A flow in `table` matching in_port=`n` (one flow per n).
  void add(uint8_t table, uint32_t n, uint16_t importance = 0, uint16_t hard_timeout = 0) {
    of::FlowMod fm = flow(n, {of::Action::output(2)});
    fm.table_id = table;
    fm.importance = importance;
    fm.hard_timeout = hard_timeout;
    fm.flags = of::flow_mod_flags::kSendFlowRem;
    ctl.send(fm);
  }
  void del(uint32_t n) {
    of::FlowMod fm = flow(n, {});
    fm.command = of::FlowModCommand::kDeleteStrict;
    fm.instructions.clear();
    ctl.send(fm);
  }
  std::vector<uint32_t> in_ports(uint8_t table) {
    of::FlowStatsRequest rq;
    rq.table_id = table;
    auto r = ctl.wait_xid(ctl.send(of::MultipartRequest{0, rq}));
    std::vector<uint32_t> out;
    if (!r || !r->is<of::MultipartReply>()) return out;
    for (const auto& f : std::get<of::FlowStatsReply>(r->as<of::MultipartReply>().body).stats)
      if (const of::OxmField* in = f.match.find(of::OxmId::kInPort)) out.push_back(uint32_t(in->value_u64()));
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(Of14TableTest, TableModSetsWhatTableDescReports) {
  start(10);
  of::TableDesc d = desc(0);
  EXPECT_EQ(d.config, 0u);
  ASSERT_TRUE(d.vacancy.has_value());
  EXPECT_EQ(d.vacancy->vacancy, 100);
  EXPECT_EQ(d.eviction_flags, of::eviction_flag::kImportance | of::eviction_flag::kLifetime);

  ctl.send(of::TableMod{3, of::table_config::kEviction | of::table_config::kVacancyEvents,
                        of::eviction_flag::kImportance, of::TableVacancy{20, 70, 0}});
  add(3, 1);
  add(3, 2);
  barrier();
  d = desc(3);
  EXPECT_EQ(d.table_id, 3);
  EXPECT_EQ(d.config, of::table_config::kEviction | of::table_config::kVacancyEvents);
  EXPECT_EQ(d.vacancy, (of::TableVacancy{20, 70, 80}));
  EXPECT_EQ(desc(0).config, 0u);  // only table 3 changed

  // A table that does not exist: OFPTMFC_BAD_TABLE.
  auto e = ctl.wait_xid(ctl.send(of::TableMod{200, 0, {}, {}}));
  ASSERT_TRUE(e && e->is<of::ErrorMsg>());
  EXPECT_EQ(e->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kTableModFailed));
  EXPECT_EQ(e->as<of::ErrorMsg>().code, uint16_t(of::TableModFailedCode::kBadTable));
  // OFPTT_ALL sets every table.
  ctl.send(of::TableMod{of::table::kAll, of::table_config::kEviction, {}, {}});
  barrier();
  EXPECT_EQ(desc(0).config, of::table_config::kEviction);
  EXPECT_EQ(desc(63).config, of::table_config::kEviction);
}

// Table of 10: vacancy_down 30%, vacancy_up 60%. The 8th flow takes the free
// share to 20%: VACANCY_DOWN, once (the 9th says nothing). Deleting back to
// 4 flows (60%) says nothing; the 7th delete (70%) is VACANCY_UP.
TEST_F(Of14TableTest, VacancyEventsFireOncePerCrossing) {
  start(10);
  ctl.send(of::TableMod{0, of::table_config::kVacancyEvents, {}, of::TableVacancy{30, 60, 0}});
  for (uint32_t n = 1; n <= 7; ++n) add(0, n);
  barrier();
  EXPECT_EQ(ctl.count(MsgType::kTableStatus), 0u) << "30% free is not under vacancy_down 30%";
  add(0, 8);
  auto down = ctl.wait_for(MsgType::kTableStatus);
  ASSERT_TRUE(down.has_value()) << "no VACANCY_DOWN at 20% free";
  const auto& ts = down->as<of::TableStatus>();
  EXPECT_EQ(ts.reason, of::TableStatusReason::kVacancyDown);
  EXPECT_EQ(ts.table_id, 0);
  EXPECT_EQ(ts.config, of::table_config::kVacancyEvents);
  // Its properties: the table description's, vacancy 20%.
  const Bytes vacancy_prop = {0, 3, 0, 8, 30, 60, 20, 0};
  EXPECT_NE(std::search(ts.properties.begin(), ts.properties.end(), vacancy_prop.begin(), vacancy_prop.end()),
            ts.properties.end());
  add(0, 9);
  for (uint32_t n = 9; n >= 5; --n) del(n);  // 4 flows left: 60%, not over vacancy_up
  barrier();
  EXPECT_EQ(ctl.count(MsgType::kTableStatus), 0u);
  del(4);
  auto up = ctl.wait_for(MsgType::kTableStatus);
  ASSERT_TRUE(up.has_value()) << "no VACANCY_UP at 70% free";
  EXPECT_EQ(up->as<of::TableStatus>().reason, of::TableStatusReason::kVacancyUp);
  // Down is armed again.
  for (uint32_t n = 4; n <= 8; ++n) add(0, n);
  auto again = ctl.wait_for(MsgType::kTableStatus);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->as<of::TableStatus>().reason, of::TableStatusReason::kVacancyDown);
}

// Eviction on: a full table takes the new flow and drops the one of lowest
// importance (flow-removed reason EVICTION), among equals the one whose
// timeout ends first. Eviction off (table 1): OFPFMFC_TABLE_FULL.
TEST_F(Of14TableTest, FullTableEvictsByImportanceThenLifetime) {
  start(3);
  ctl.send(of::TableMod{0, of::table_config::kEviction, {}, {}});
  add(0, 1, 5);
  add(0, 2, 1, 300);
  add(0, 3, 1, 100);
  add(0, 4, 9);  // evicts in_port=3: importance 1 and 100 s left
  barrier();
  EXPECT_EQ(in_ports(0), (std::vector<uint32_t>{1, 2, 4}));
  auto fr = ctl.wait_for(MsgType::kFlowRemoved);
  ASSERT_TRUE(fr.has_value()) << "no flow-removed for the evicted flow";
  EXPECT_EQ(fr->as<of::FlowRemoved>().reason, uint8_t(of::FlowRemovedReason::kEviction));
  EXPECT_EQ(fr->as<of::FlowRemoved>().hard_timeout, 100);
  add(0, 5, 2);  // evicts in_port=2 (importance 1)
  barrier();
  EXPECT_EQ(in_ports(0), (std::vector<uint32_t>{1, 4, 5}));

  for (uint32_t n = 1; n <= 3; ++n) add(1, n);
  of::FlowMod fm = flow(4, {of::Action::output(2)});
  fm.table_id = 1;
  auto full = ctl.wait_xid(ctl.send(fm));
  ASSERT_TRUE(full && full->is<of::ErrorMsg>()) << "a full table without eviction took a flow";
  EXPECT_EQ(full->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kFlowModFailed));
  EXPECT_EQ(full->as<of::ErrorMsg>().code, uint16_t(of::FlowModFailedCode::kTableFull));
  EXPECT_EQ(in_ports(1), (std::vector<uint32_t>{1, 2, 3}));
}

// A 1.3 controller's table-mod (config 0, no properties in 1.3) leaves the
// table's 1.4 configuration as it was; a bad table still gets BAD_TABLE.
TEST(AgentOf14TableMixed, Of13TableModLeavesTheConfig) {
  TestController c14{{of::kOf14}}, c13{{of::kOf13}};
  SwitchOptions o = options_with_controller(c14.port());
  o.controllers.push_back(options_with_controller(c13.port()).controllers[0]);
  SwitchFixture fx(o, 2);
  ASSERT_TRUE(c14.wait_ready());
  ASSERT_TRUE(c13.wait_ready());
  c14.send(of::TableMod{0, of::table_config::kEviction, {}, {}});
  ASSERT_TRUE(c14.wait_xid(c14.send(of::BarrierRequest{})));
  c13.send(of::TableMod{0, 0, {}, {}});
  auto bad = c13.wait_xid(c13.send(of::TableMod{100, 0, {}, {}}));
  ASSERT_TRUE(bad && bad->is<of::ErrorMsg>());
  EXPECT_EQ(bad->as<of::ErrorMsg>().code, uint16_t(of::TableModFailedCode::kBadTable));
  auto r = c14.wait_xid(c14.send(of::MultipartRequest{0, of::TableDescRequest{}}));
  ASSERT_TRUE(r && r->is<of::MultipartReply>());
  EXPECT_EQ(std::get<of::TableDescReply>(r->as<of::MultipartReply>().body).tables.at(0).config,
            of::table_config::kEviction);
  if (fx.sw) fx.sw->stop();
}

}  // namespace
}  // namespace flowlab::sw::testing

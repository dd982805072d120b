// The switch's agent and OpenFlow 1.5's first egress table over a loopback
// controller connection: a table features request with a body sets it (the
// reply names it), its errors, and a 1.3 connection's request with a body
// refused (its reply's features, padding at 1.3, stay zero).
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

of::TableFeatures entry(uint8_t table, uint8_t command, uint32_t features) {
  of::TableFeatures t;
  t.table_id = table;
  t.command = command;
  t.features = features;
  t.name = "t";
  return t;
}

std::optional<of::Message> ask(TestController& ctl, std::vector<of::TableFeatures> tables) {
  return ctl.wait_xid(ctl.send(of::MultipartRequest{0, of::TableFeaturesRequest{std::move(tables)}}));
}

// The features flags of `table` in the replies to a table features request.
uint32_t features_of(TestController& ctl, const std::optional<of::Message>& first, uint8_t table) {
  std::vector<of::Message> replies;
  if (first) replies.push_back(*first);
  while (!replies.empty() && replies.back().is<of::MultipartReply>() &&
         (replies.back().as<of::MultipartReply>().flags & 1)) {
    auto more = ctl.wait_xid(first->xid);
    if (!more) break;
    replies.push_back(*more);
  }
  for (const of::Message& m : replies)
    if (m.is<of::MultipartReply>())
      if (const auto* r = std::get_if<of::TableFeaturesReply>(&m.as<of::MultipartReply>().body))
        for (const auto& t : r->tables)
          if (t.table_id == table) return t.features;
  ADD_FAILURE() << "no table " << int(table) << " in the reply: "
                << (first ? (first->is<of::ErrorMsg>()
                                 ? fmt::format("error {}/{}", first->as<of::ErrorMsg>().type,
                                               first->as<of::ErrorMsg>().code)
                                 : fmt::format("type {}", int(first->type())))
                          : std::string("none"));
  return ~0u;
}

void expect_error(const std::optional<of::Message>& m, of::TableFeaturesFailedCode code) {
  ASSERT_TRUE(m && m->is<of::ErrorMsg>());
  EXPECT_EQ(m->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kTableFeaturesFailed));
  EXPECT_EQ(m->as<of::ErrorMsg>().code, uint16_t(code));
}

TEST(AgentOf15Egress, TableFeaturesRequestSetsTheFirstEgressTable) {
  TestController ctl{{of::kOf15}};
  SwitchFixture fx(options_with_controller(ctl.port()), 2);
  ASSERT_TRUE(ctl.wait_ready());
  // The switch tells a 1.5 controller that it connected (xid 0, as the first request's).
  ASSERT_TRUE(ctl.wait_for(of::MsgType::kControllerStatus));
  using namespace of::table_features;
  auto r = ask(ctl, {entry(3, kModify, kEgressTable | kFirstEgress)});
  EXPECT_EQ(features_of(ctl, r, 3), kIngressTable | kEgressTable | kFirstEgress);
  EXPECT_EQ(fx.sw->datapath().first_egress(), 3);
  expect_error(ask(ctl, {entry(0, kModify, kFirstEgress)}), of::TableFeaturesFailedCode::kBadFeatures);
  expect_error(ask(ctl, {entry(1, kModify, kFirstEgress), entry(2, kModify, kFirstEgress)}),
               of::TableFeaturesFailedCode::kBadFeatures);
  expect_error(ask(ctl, {entry(200, kModify, kFirstEgress)}), of::TableFeaturesFailedCode::kBadTable);
  expect_error(ask(ctl, {entry(2, kEnable, 0)}), of::TableFeaturesFailedCode::kBadCommand);
  EXPECT_EQ(fx.sw->datapath().first_egress(), 3);
  // MODIFY of another table leaves it; REPLACE with no table marked ends egress.
  r = ask(ctl, {entry(5, kModify, kEgressTable)});
  EXPECT_EQ(features_of(ctl, r, 3), kIngressTable | kEgressTable | kFirstEgress);
  r = ask(ctl, {entry(0, kReplace, kIngressTable)});
  EXPECT_EQ(features_of(ctl, r, 3), kIngressTable | kEgressTable);
  EXPECT_EQ(fx.sw->datapath().first_egress(), 0);
  fx.sw->stop();
}

TEST(AgentOf15Egress, At13ABodyIsRefusedAndTheFlagsStayZero) {
  TestController ctl{{of::kOf13}};
  SwitchFixture fx(options_with_controller(ctl.port()), 2);
  ASSERT_TRUE(ctl.wait_ready());
  using namespace of::table_features;
  expect_error(ask(ctl, {entry(3, kModify, kEgressTable | kFirstEgress)}),
               of::TableFeaturesFailedCode::kEperm);
  EXPECT_EQ(fx.sw->datapath().first_egress(), 0);
  auto r = ask(ctl, {});
  EXPECT_EQ(features_of(ctl, r, 3), 0u);
  fx.sw->stop();
}

}  // namespace
}  // namespace flowlab::sw::testing

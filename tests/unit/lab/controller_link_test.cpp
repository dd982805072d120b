// A case's `controller_link`: parsed into a shape for both directions of the
// control channel, and bad values rejected with file:line and key.
#include <gtest/gtest.h>

#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

std::string scenario(const std::string& case_extra, const std::string& sw = "kind: flowlab, controller: c1") {
  return "name: x\n"
         "hosts: {h1: {addr: 10.0.0.1/24}, h2: {addr: 10.0.0.2/24}}\n"
         "switches: {s1: {" +
         sw +
         "}}\n"
         "controllers: {c1: {kind: flowlab, apps: [hub]}}\n"
         "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p2]\n"
         "cases:\n  - name: near\n  - name: far\n" +
         case_extra;
}

TEST(ControllerLink, ParsedPerCase) {
  auto s = parse_scenario(scenario("    controller_link: {delay: 5ms, bw: 10M}\n"), "c.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->cases.size(), 2u);
  EXPECT_FALSE(s->cases[0].controller_link.has_value());
  ASSERT_TRUE(s->cases[1].controller_link.has_value());
  EXPECT_EQ(s->cases[1].controller_link->delay_ns.value_or(0), 5000000u);
  EXPECT_EQ(s->cases[1].controller_link->bw_bps.value_or(0), 10000000u);
}

struct Bad {
  std::string extra, sw, expect;
};

class ControllerLinkErrors : public ::testing::TestWithParam<Bad> {};

TEST_P(ControllerLinkErrors, NameFileLineAndKey) {
  const Bad& b = GetParam();
  auto s = b.sw.empty() ? parse_scenario(scenario(b.extra), "c.yaml")
                        : parse_scenario(scenario(b.extra, b.sw), "c.yaml");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(b.expect), std::string::npos) << s.error().message;
}

INSTANTIATE_TEST_SUITE_P(
    All, ControllerLinkErrors,
    ::testing::Values(
        Bad{"    controller_link: {delay: -1ms}\n", "", "c.yaml:11: key 'delay'"},
        Bad{"    controller_link: {latency: 5ms}\n", "", "key 'latency': unknown key in controller_link"},
        Bad{"    controller_link: 5ms\n", "", "expected a mapping of bw, delay, jitter, loss, queue"},
        Bad{"    controller_link: {}\n", "", "key 'controller_link': nothing to shape"},
        Bad{"    controller_link: {delay: 5ms}\n", "kind: linux-bridge",
            "key 'controller_link': no switch of the case uses a controller"}),
    [](const ::testing::TestParamInfo<Bad>& i) { return "case" + std::to_string(i.index); });

}  // namespace
}  // namespace flowlab::lab

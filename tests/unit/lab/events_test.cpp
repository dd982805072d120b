// Events: parsing (flaps expanded), checks against the scenario with file:line
// errors, and the timeline firing them in order at their times.
#include "lab/scenario/events.h"

#include <gtest/gtest.h>

#include "core/clock.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

std::string scenario(const std::string& events,
                     const std::string& tests = "  - {type: probe, from: h1, to: h2, duration: 20}\n") {
  return "name: t\nhosts:\n  h1: {addr: 10.0.0.1/24}\n  h2: {addr: 10.0.0.2/24}\n"
         "switches:\n  s1: {kind: flowlab, controller: c1}\n"
         "controllers:\n  c1: {kind: flowlab, apps: [learning-switch]}\n"
         "links:\n  - endpoints: [h1:eth0, s1:p1]\n  - endpoints: [h2:eth0, s1:p2]\n"
         "tests:\n" +
         tests + "events:\n" + events;
}

TEST(Events, ParsesEveryActionAndExpandsFlaps) {
  auto s = parse_scenario(scenario("  - {at: 5s, link: [h1, s1], do: down}\n"
                                   "  - {at: 8s, node: c1, do: kill}\n"
                                   "  - {at: 12s, node: c1, do: start}\n"
                                   "  - {at: 15s, link: [s1, h2], set: {loss: 5%}}\n"
                                   "  - {at: 1s, link: [h1, s1:p1], do: flap, period: 1s, count: 2}\n"
                                   "  - {at: 6s, link: [h1, s1], do: up}\n"),
                          "/x/e.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  const auto& ev = s->events;
  ASSERT_EQ(ev.size(), 9u);
  // Sorted by time: flap down 1, up 1.5, down 2, up 2.5, then 5, 6, 8, 12, 15.
  EXPECT_EQ(ev[0].action, EventAction::kLinkDown);
  EXPECT_DOUBLE_EQ(ev[0].at_s, 1.0);
  EXPECT_EQ(ev[1].action, EventAction::kLinkUp);
  EXPECT_DOUBLE_EQ(ev[1].at_s, 1.5);
  EXPECT_DOUBLE_EQ(ev[3].at_s, 2.5);
  EXPECT_EQ(ev[0].flap, 0);
  EXPECT_EQ(ev[4].action, EventAction::kLinkDown);
  EXPECT_EQ(ev[4].link_a, "h1");
  EXPECT_EQ(ev[6].action, EventAction::kKill);
  EXPECT_EQ(ev[6].node, "c1");
  EXPECT_EQ(ev[7].action, EventAction::kStart);
  EXPECT_EQ(ev[8].action, EventAction::kSet);
  EXPECT_EQ(*ev[8].set.a_to_b.loss_pct, 5.0);
  EXPECT_EQ(*ev[8].set.b_to_a.loss_pct, 5.0);
  EXPECT_EQ(ev[6].line, 16);
}

TEST(Events, NestedFlapForm) {
  auto s = parse_scenario(scenario("  - {at: 2, link: [h1, s1], do: {flap: {period: 200ms, count: 3}}}\n"),
                          "/x/e.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->events.size(), 6u);
  EXPECT_DOUBLE_EQ(s->events[5].at_s, 2.5);
}

void expect_error(const std::string& events, const std::string& want, const std::string& tests = {}) {
  auto s = tests.empty() ? parse_scenario(scenario(events), "/x/e.yaml")
                         : parse_scenario(scenario(events, tests), "/x/e.yaml");
  ASSERT_FALSE(s.ok()) << events;
  EXPECT_NE(s.error().message.find(want), std::string::npos) << s.error().message;
}

TEST(Events, BadInputIsAnErrorWithFileAndLine) {
  expect_error("  - {at: 25s, node: c1, do: kill}\n",
               "/x/e.yaml:15: key 'at': event at 25 s is past the probe test's duration (20 s)");
  expect_error("  - {at: 5s, node: c9, do: kill}\n", "/x/e.yaml:15: key 'node': unknown node 'c9'");
  expect_error("  - {at: 5s, node: h1, do: kill}\n", "unknown node 'h1'");
  expect_error("  - {at: 5s, link: [h1, h2], do: down}\n",
               "/x/e.yaml:15: key 'link': no link between 'h1' and 'h2'");
  expect_error("  - {at: 5x, link: [h1, s1], do: down}\n", "/x/e.yaml:15: key 'at': '5x'");
  expect_error("  - {at: -1s, link: [h1, s1], do: down}\n", "key 'at'");
  expect_error("  - {at: 1s, link: [h1, s1], do: explode}\n", "unknown action 'explode'");
  expect_error("  - {at: 1s, node: c1, do: down}\n", "'down' acts on a link");
  expect_error("  - {at: 1s, link: [h1, s1], do: kill}\n", "'kill' acts on a node");
  expect_error("  - {at: 1s, link: [h1, s1], do: flap}\n", "flap needs period and count");
  expect_error("  - {at: 1s, link: [h1, s1], do: flap, period: 0s, count: 2}\n", "key 'period'");
  expect_error("  - {at: 1s, link: [h1, s1], set: {loss: 200%}}\n", "key 'loss'");
  expect_error("  - {at: 1s, node: c1, set: {loss: 2%}}\n", "name a link");
  expect_error("  - {at: 1s, link: [h1, s1], do: down, when: now}\n", "key 'when': unknown key in event");
  expect_error("  - {link: [h1, s1], do: down}\n", "key 'at'");
  expect_error("  - {at: 1s, node: c1, do: kill}\n", "events run during a probe test",
               "  - {type: ping, from: h1, to: h2}\n");
  // A flap whose last up falls past the test.
  expect_error("  - {at: 18s, link: [h1, s1], do: flap, period: 1s, count: 3}\n",
               "past the probe test's duration");
}

TEST(Events, RunDuringAnyTestWithEventsTrue) {
  // An iperf with `events: true` carries the schedule; its duration bounds it.
  auto s = parse_scenario(scenario("  - {at: 1s, node: s1, do: kill}\n",
                                   "  - {type: iperf3-tcp, from: h1, to: h2, duration: 4, events: true}\n"
                                   "  - {type: ping, from: h1, to: h2}\n"),
                          "/x/e.yaml");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_TRUE(s->tests[0].events);
  EXPECT_FALSE(s->tests[1].events);  // only probes run them by default
  expect_error("  - {at: 5s, node: c1, do: kill}\n",
               "/x/e.yaml:15: key 'at': event at 5 s is past the iperf3-tcp test's duration (4 s)",
               "  - {type: iperf3-tcp, from: h1, to: h2, duration: 4, events: true}\n");
  // A ping lasts count x interval: 10 x 0.2 s.
  expect_error("  - {at: 2s, node: c1, do: kill}\n", "past the ping test's duration (2 s)",
               "  - {type: ping, from: h1, to: h2, events: true}\n");
  expect_error("  - {at: 1s, node: c1, do: kill}\n", "key 'events': events run during a test of known length",
               "  - {type: pingall, events: true}\n");
  expect_error("  - {at: 1s, node: c1, do: kill}\n", "key 'events'",
               "  - {type: ping, from: h1, to: h2, events: maybe}\n");
  // A probe can opt out; then nothing carries the events.
  expect_error("  - {at: 1s, node: c1, do: kill}\n", "events run during a probe test",
               "  - {type: probe, from: h1, to: h2, events: false}\n");
}

TEST(Events, FindLinkMatchesEitherOrderAndPorts) {
  std::vector<std::pair<std::string, std::string>> links = {{"h1:eth0", "s1:p1"}, {"h2:eth0", "s1:p2"}};
  EventSpec e;
  e.link_a = "s1";
  e.link_b = "h2";
  EXPECT_EQ(find_link(e, links), 1);
  e.link_a = "s1:p1";
  e.link_b = "h1";
  EXPECT_EQ(find_link(e, links), 0);
  e.link_a = "s1:p2";
  EXPECT_EQ(find_link(e, links), -1);
}

TEST(Timeline, FiresInOrderAtTheirTimesAndRecordsResults) {
  std::vector<EventSpec> evs(3);
  evs[0].at_s = 0.05;
  evs[0].label = "first";
  evs[1].at_s = 0.15;
  evs[1].label = "second";
  evs[2].at_s = 30;  // never reached: stopped before
  evs[2].label = "late";
  std::vector<std::string> seen;
  Timeline tl(evs, [&](const EventSpec& e) -> Status {
    seen.push_back(e.label);
    if (e.label == "second") return fail("boom");
    return ok_status();
  });
  uint64_t t0 = monotonic_ns();
  tl.start(t0);
  while (monotonic_ns() - t0 < 400'000'000) usleep(10'000);
  tl.stop();
  ASSERT_EQ(seen, (std::vector<std::string>{"first", "second"}));
  auto f = tl.fired();
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0]["status"], "ok");
  EXPECT_GE(f[0]["fired_at_s"].get<double>(), 0.05);
  EXPECT_LT(f[0]["fired_at_s"].get<double>(), 0.14);
  EXPECT_EQ(f[1]["status"], "failed");
  EXPECT_EQ(f[1]["error"], "boom");
  EXPECT_GE(f[1]["fired_at_s"].get<double>(), 0.15);
  EXPECT_EQ(f[2]["status"], "not fired");
}

TEST(Timeline, RunHereOnTheCallingThreadUntilCancelled) {
  std::vector<EventSpec> evs(2);
  evs[0].at_s = 0.02;
  evs[0].label = "now";
  evs[1].at_s = 30;
  evs[1].label = "never";
  auto caller = std::this_thread::get_id();
  std::thread::id fired_on;
  Timeline tl(evs, [&](const EventSpec&) -> Status {
    fired_on = std::this_thread::get_id();
    return ok_status();
  });
  std::thread canceller([&] {
    usleep(150'000);
    tl.cancel();
  });
  tl.run_here(monotonic_ns());
  canceller.join();
  EXPECT_EQ(fired_on, caller);
  auto f = tl.fired();
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0]["status"], "ok");
  EXPECT_EQ(f[1]["status"], "not fired");
}

}  // namespace
}  // namespace flowlab::lab

// Faults on a schedule: a scenario's `events`, their checks, and the timeline that
// fires them while a test runs.
//
//   events:
//     - {at: 5s, link: [s1, s2], do: down}     # also: up; flap {period: 1s, count: 5}
//     - {at: 8s, node: c1, do: kill}            # SIGKILL a controller or switch process
//     - {at: 12s, node: c1, do: start}          # start it again, same arguments
//     - {at: 15s, link: [h1, s1], set: {loss: 5%}}
//
// `at` is counted from the start of the test the events run during: every probe
// test, and any test with `events: true` (a ping, an iperf); each such test runs
// the whole schedule from its own start.
// A flap is expanded here into down/up pairs: down at at + k x period, up half a
// period later, k = 0 .. count-1. The timeline does not know what a link or a
// node is: the runner hands it one callback that performs an event.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "lab/scenario/shaping.h"

namespace YAML {
class Node;
}

namespace flowlab::lab {

enum class EventAction { kLinkDown, kLinkUp, kKill, kStart, kSet };
std::string_view to_string(EventAction a);

struct EventSpec {
  double at_s = 0;
  EventAction action = EventAction::kLinkDown;
  std::string node;            // kill / start
  std::string link_a, link_b;  // link events: the two nodes (or node:ifname)
  LinkShapes set;              // kSet: applied to both directions
  std::string label;           // "5s link s1-s2 down", for reports
  int line = 0;
  int flap = -1;  // index of the flap it came from, -1: none
  bool is_link() const {
    return action == EventAction::kLinkDown || action == EventAction::kLinkUp || action == EventAction::kSet;
  }
};

// Parses the `events` list (sorted by time; flaps expanded). Errors: "FILE:LINE: key 'K': ...".
Result<std::vector<EventSpec>> parse_events(const YAML::Node& list, const std::string& path);

// What the checks need to know of the scenario.
struct EventScope {
  std::vector<std::string> nodes;                          // switches and controllers (kill/start)
  std::vector<std::pair<std::string, std::string>> links;  // "node:if" of both ends, per link
  double duration_s = 0;                                   // of the shortest test they run during; 0: none
  std::string test_kind = "probe";                         // that test's type, for messages
};
// Unknown node or link, an event at or past the test's duration, no test to run
// during: an error naming the file and the event's line.
Status check_events(const std::vector<EventSpec>& events, const EventScope& scope, const std::string& path);
// Index of the link an event names (ends in any order; "s1" matches "s1:p1"), -1 if none.
int find_link(const EventSpec& e, const std::vector<std::pair<std::string, std::string>>& links);

// Fires events at t0 + at on a thread of its own, one after the other, and
// records when each actually fired and what it returned.
class Timeline {
 public:
  using Fire = std::function<Status(const EventSpec&)>;
  Timeline(std::vector<EventSpec> events, Fire fire) : events_(std::move(events)), fire_(std::move(fire)) {}
  Timeline(const Timeline&) = delete;
  Timeline& operator=(const Timeline&) = delete;
  ~Timeline() { stop(); }

  void start(uint64_t t0_ns);  // CLOCK_MONOTONIC
  // Runs the events on the calling thread instead. Use this when events start
  // processes: a child's PR_SET_PDEATHSIG fires when the *thread* that forked it
  // ends, so processes started from a short-lived thread would die with it.
  void run_here(uint64_t t0_ns);
  // From another thread: no further event fires (run_here returns soon).
  void cancel() { stop_ = true; }
  // Waits for the thread; events not due yet are recorded as not fired.
  void stop();
  // [{label, do, at_s, fired_at_s, fired_ns, took_s, status: ok|failed|not fired, error, line}]
  nlohmann::json fired() const;
  const std::vector<EventSpec>& events() const { return events_; }

 private:
  void run();
  std::vector<EventSpec> events_;
  Fire fire_;
  uint64_t t0_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  nlohmann::json fired_ = nlohmann::json::array();
};

}  // namespace flowlab::lab

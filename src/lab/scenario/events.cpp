// Events: parsing, checks and the timeline (see events.h).
#include "lab/scenario/events.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/scenario/scenario_yaml.h"

namespace flowlab::lab {

namespace {

using yaml_parse::key_error;

constexpr int kMaxFlaps = 10000;

// "5s", "500ms", "1.5" (seconds).
Result<double> seconds(const YAML::Node& n, const std::string& path, std::string_view key) {
  if (!n.IsScalar()) return key_error(n, path, key, "expected a time (5s, 500ms)");
  const std::string& t = n.Scalar();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  bool number_only = end != t.c_str() && *end == '\0';
  if (!number_only) {
    auto ns = parse_duration_ns(t);
    if (!ns.ok()) return key_error(n, path, key, fmt::format("'{}': {}", t, ns.error().message));
    return double(*ns) / 1e9;
  }
  if (v < 0) return key_error(n, path, key, fmt::format("'{}': a time cannot be negative", t));
  return v;
}

std::string node_of(const std::string& end) { return end.substr(0, end.find(':')); }

bool end_matches(const std::string& want, const std::string& end) {
  return want.find(':') == std::string::npos ? node_of(end) == want : end == want;
}

}  // namespace

std::string_view to_string(EventAction a) {
  switch (a) {
    case EventAction::kLinkDown:
      return "down";
    case EventAction::kLinkUp:
      return "up";
    case EventAction::kKill:
      return "kill";
    case EventAction::kStart:
      return "start";
    case EventAction::kSet:
      return "set";
  }
  return "?";
}

Result<std::vector<EventSpec>> parse_events(const YAML::Node& list, const std::string& path) {
  std::vector<EventSpec> out;
  if (!list.IsSequence()) return key_error(list, path, "events", "expected a list of events");
  int flaps = 0;
  for (const auto& n : list) {
    if (!n.IsMap()) return key_error(n, path, "events", "each event is a mapping {at, link|node, do|set}");
    for (const auto& kv : n) {
      auto k = kv.first.as<std::string>();
      if (k != "at" && k != "link" && k != "node" && k != "do" && k != "set" && k != "period" && k != "count")
        return key_error(kv.first, path, k,
                         "unknown key in event (allowed: at, link, node, do, set, period, count)");
    }
    EventSpec e;
    e.line = n.Mark().line + 1;
    if (!n["at"]) return key_error(n, path, "at", "an event needs 'at' (5s)");
    FLOWLAB_ASSIGN_OR_RETURN(e.at_s, seconds(n["at"], path, "at"));
    if (n["link"] && n["node"])
      return key_error(n, path, "link", "an event names a link or a node, not both");
    if (n["link"]) {
      auto l = n["link"];
      if (!l.IsSequence() || l.size() != 2 || !l[0].IsScalar() || !l[1].IsScalar())
        return key_error(l, path, "link", "expected the link's two ends [s1, s2]");
      e.link_a = l[0].Scalar();
      e.link_b = l[1].Scalar();
    } else if (n["node"]) {
      if (!n["node"].IsScalar()) return key_error(n["node"], path, "node", "expected a node name");
      e.node = n["node"].Scalar();
    } else {
      return key_error(n, path, "link", "an event needs 'link: [A, B]' or 'node: NAME'");
    }
    if (n["set"] && n["do"]) return key_error(n, path, "set", "an event has 'do' or 'set', not both");
    if (n["set"]) {
      if (e.link_a.empty())
        return key_error(n["set"], path, "set", "'set' changes a link's shaping: name a link");
      FLOWLAB_ASSIGN_OR_RETURN(LinkShape s, parse_shape_map(n["set"], path, "set"));
      if (s.empty())
        return key_error(n["set"], path, "set", "nothing to set (bw, delay, jitter, loss, queue)");
      e.set.a_to_b = e.set.b_to_a = s;
      e.action = EventAction::kSet;
      e.label = fmt::format("{:g}s link {}-{} set", e.at_s, e.link_a, e.link_b);
      out.push_back(e);
      continue;
    }
    if (!n["do"])
      return key_error(n, path, "do", "an event needs 'do' (down, up, flap, kill, start) or 'set'");
    std::string what;
    YAML::Node flap_args = n;
    if (n["do"].IsMap() && n["do"]["flap"]) {  // do: {flap: {period: 1s, count: 5}}
      what = "flap";
      flap_args = n["do"]["flap"];
    } else if (n["do"].IsScalar()) {
      what = n["do"].Scalar();
    } else {
      return key_error(n["do"], path, "do", "expected down, up, flap, kill or start");
    }
    bool link_action = what == "down" || what == "up" || what == "flap";
    bool node_action = what == "kill" || what == "start";
    if (!link_action && !node_action)
      return key_error(n["do"], path, "do",
                       fmt::format("unknown action '{}' (down, up, flap, kill, start)", what));
    if (link_action && e.link_a.empty())
      return key_error(n["do"], path, "do",
                       fmt::format("'{}' acts on a link: name one with link: [A, B]", what));
    if (node_action && e.node.empty())
      return key_error(n["do"], path, "do",
                       fmt::format("'{}' acts on a node: name one with node: NAME", what));
    if ((n["period"] || n["count"]) && what != "flap")
      return key_error(n, path, n["period"] ? "period" : "count", "period/count belong to do: flap");
    if (what == "kill" || what == "start") {
      e.action = what == "kill" ? EventAction::kKill : EventAction::kStart;
      e.label = fmt::format("{:g}s {} {}", e.at_s, what, e.node);
      out.push_back(e);
    } else if (what == "down" || what == "up") {
      e.action = what == "down" ? EventAction::kLinkDown : EventAction::kLinkUp;
      e.label = fmt::format("{:g}s link {}-{} {}", e.at_s, e.link_a, e.link_b, what);
      out.push_back(e);
    } else {
      if (!flap_args.IsMap() || !flap_args["period"] || !flap_args["count"])
        return key_error(n["do"], path, "do", "flap needs period and count (do: flap, period: 1s, count: 5)");
      FLOWLAB_ASSIGN_OR_RETURN(double period, seconds(flap_args["period"], path, "period"));
      if (period <= 0) return key_error(flap_args["period"], path, "period", "must be > 0");
      int count = 0;
      try {
        count = flap_args["count"].as<int>();
      } catch (const YAML::Exception&) {
        return key_error(flap_args["count"], path, "count", "expected an integer");
      }
      if (count < 1 || count > kMaxFlaps)
        return key_error(flap_args["count"], path, "count", fmt::format("must be 1..{}", kMaxFlaps));
      for (int k = 0; k < count; ++k) {
        EventSpec d = e, u = e;
        d.flap = u.flap = flaps;
        d.at_s = e.at_s + k * period;
        u.at_s = d.at_s + period / 2;
        d.action = EventAction::kLinkDown;
        u.action = EventAction::kLinkUp;
        d.label = fmt::format("{:g}s link {}-{} down (flap {}/{})", d.at_s, e.link_a, e.link_b, k + 1, count);
        u.label = fmt::format("{:g}s link {}-{} up (flap {}/{})", u.at_s, e.link_a, e.link_b, k + 1, count);
        out.push_back(d);
        out.push_back(u);
      }
      ++flaps;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const EventSpec& x, const EventSpec& y) { return x.at_s < y.at_s; });
  return out;
}

int find_link(const EventSpec& e, const std::vector<std::pair<std::string, std::string>>& links) {
  for (size_t i = 0; i < links.size(); ++i) {
    const auto& [x, y] = links[i];
    if ((end_matches(e.link_a, x) && end_matches(e.link_b, y)) ||
        (end_matches(e.link_a, y) && end_matches(e.link_b, x)))
      return int(i);
  }
  return -1;
}

Status check_events(const std::vector<EventSpec>& events, const EventScope& scope, const std::string& path) {
  for (const auto& e : events) {
    std::string_view key = e.is_link() ? "link" : "node";
    if (scope.duration_s <= 0)
      return fail(
          "{}:{}: key 'at': events run during a probe test (or a test with events: true), and the scenario "
          "has "
          "none",
          path, e.line);
    if (e.at_s >= scope.duration_s)
      return fail("{}:{}: key 'at': event at {:g} s is past the {} test's duration ({:g} s)", path, e.line,
                  e.at_s, scope.test_kind, scope.duration_s);
    if (e.is_link()) {
      if (find_link(e, scope.links) < 0)
        return fail("{}:{}: key '{}': no link between '{}' and '{}'", path, e.line, key, e.link_a, e.link_b);
    } else if (std::find(scope.nodes.begin(), scope.nodes.end(), e.node) == scope.nodes.end()) {
      return fail("{}:{}: key '{}': unknown node '{}' (kill/start act on a switch or a controller)", path,
                  e.line, key, e.node);
    }
  }
  return ok_status();
}

void Timeline::start(uint64_t t0_ns) {
  stop();
  t0_ = t0_ns;
  stop_ = false;
  fired_ = nlohmann::json::array();
  thread_ = std::thread([this] { run(); });
}

void Timeline::run_here(uint64_t t0_ns) {
  stop();
  t0_ = t0_ns;
  stop_ = false;
  fired_ = nlohmann::json::array();
  run();
}

void Timeline::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void Timeline::run() {
  for (const auto& e : events_) {
    uint64_t due = t0_ + uint64_t(e.at_s * 1e9);
    while (!stop_ && !interrupted() && monotonic_ns() < due) {
      uint64_t left = due - monotonic_ns();
      struct timespec ts {
        0, long(std::min<uint64_t>(left, 20'000'000))
      };
      nanosleep(&ts, nullptr);
    }
    nlohmann::json r = {{"label", e.label}, {"do", to_string(e.action)}, {"at_s", e.at_s}, {"line", e.line}};
    if (!e.node.empty()) r["node"] = e.node;
    if (!e.link_a.empty()) r["link"] = {e.link_a, e.link_b};
    if (e.action == EventAction::kSet) r["set"] = e.set.a_to_b.to_json();
    if (stop_ || interrupted() || monotonic_ns() < due) {
      r["status"] = "not fired";
      std::lock_guard lock(mu_);
      fired_.push_back(r);
      continue;
    }
    uint64_t t = monotonic_ns();
    Status st = fire_(e);
    uint64_t done = monotonic_ns();
    r["fired_ns"] = t;
    r["fired_at_s"] = double(t - t0_) / 1e9;
    r["took_s"] = double(done - t) / 1e9;
    r["status"] = st.ok() ? "ok" : "failed";
    if (!st.ok()) r["error"] = st.error().message;
    std::lock_guard lock(mu_);
    fired_.push_back(r);
  }
}

nlohmann::json Timeline::fired() const {
  std::lock_guard lock(mu_);
  return fired_;
}

}  // namespace flowlab::lab

// Events performed on a running case (see case_events.h).
#include "lab/run/case_events.h"

#include <thread>

#include "core/clock.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

namespace {

std::string end_name(const Endpoint& e) { return e.node + ":" + e.ifname; }

Status set_link(CaseHandles& h, int i, bool up) {
  const auto& [a, b] = h.link_ends[size_t(i)];
  // Up: the second end first, so that when the first (usually the host) comes up
  // it has carrier at once and its first ARP request is not lost.
  const LinkEnd* order[2] = {up ? &b : &a, up ? &a : &b};
  for (const LinkEnd* e : order)
    if (!e->ns.empty() && !e->ifname.empty())  // across machines, an agent holds one end of a cut link
      FLOWLAB_TRY(run_checked({"ip", "link", "set", "dev", e->ifname, up ? "up" : "down"}, in_ns(e->ns, 5)));
  if (up)
    h.links_down.erase(i);
  else
    h.links_down.insert(i);
  return ok_status();
}

}  // namespace

std::vector<std::pair<std::string, std::string>> link_names(const Scenario& sc) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& l : sc.links) out.emplace_back(end_name(l.a), end_name(l.b));
  return out;
}

bool link_needs_wire(const Scenario& sc, size_t i) {
  if (!sc.links[i].shape.empty()) return true;
  auto names = link_names(sc);
  for (const auto& e : sc.events)
    if (e.action == EventAction::kSet && find_link(e, names) == int(i)) return true;
  return false;
}

std::map<std::string, std::vector<std::string>> controller_switches(const CaseHandles& h) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [name, sw] : h.switches) {
    const auto& s = sw->spec();
    if (s.controller.empty() || s.kind == SwitchKind::kLinuxBridge) continue;
    out[s.controller].push_back(fmt::format("{} ({}, fail-secure)", name, to_string(s.kind)));
    for (const auto& more : s.more_controllers)
      out[more].push_back(fmt::format("{} ({}, fail-secure)", name, to_string(s.kind)));
  }
  return out;
}

nlohmann::json shaped_link_records(const CaseHandles& h) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t li = 0; li < h.shaped.size() && li < h.link_names.size(); ++li) {
    const ShapedLink* l = h.shaped[li];
    if (!l) continue;
    nlohmann::json j = l->to_json();
    j["link"] = h.link_names[li].first + "-" + h.link_names[li].second;
    auto half = h.halves.find(int(li));
    j["shaped_here"] = half == h.halves.end() ? "both" : LinkShapes::leaving_key(half->second);
    if (half != h.halves.end() && half->second) {  // the half's wire runs b -> a of the link
      std::swap(j["a_to_b"], j["b_to_a"]);
      if (j.contains("delay_line"))
        for (auto& d : j["delay_line"])
          if (d.contains("a_to_b") && d.contains("b_to_a")) std::swap(d["a_to_b"], d["b_to_a"]);
    }
    out.push_back(std::move(j));
  }
  return out;
}

Status fire_event(const EventSpec& e, CaseHandles& h) {
  if (h.remote_event) return h.remote_event(e);
  if (e.is_link()) {
    int i = find_link(e, h.link_names);
    if (i < 0) return fail("no link {}-{}", e.link_a, e.link_b);
    if (e.action != EventAction::kSet) return set_link(h, i, e.action == EventAction::kLinkUp);
    ShapedLink* l = h.shaped[size_t(i)];
    if (!l) return fail("link {}-{} was built without a wire namespace", e.link_a, e.link_b);
    if (!h.shapes_before.count(i)) h.shapes_before[i] = l->shape();
    if (auto half = h.halves.find(i); half != h.halves.end())  // the direction leaving this machine
      return l->reshape(e.set.leaving(half->second));
    return l->reshape(e.set);
  }
  if (auto c = h.controllers.find(e.node); c != h.controllers.end()) {
    if (e.action == EventAction::kKill) {
      FLOWLAB_TRY(c->second->kill_now());
      h.killed.insert(e.node);
      return ok_status();
    }
    if (c->second->running()) return fail("controller {} is already running", e.node);
    FLOWLAB_TRY(c->second->start(h.env));
    h.killed.erase(e.node);
    return ok_status();
  }
  if (auto s = h.switches.find(e.node); s != h.switches.end()) {
    if (e.action == EventAction::kKill) {
      FLOWLAB_TRY(s->second->kill_now());
      h.killed.insert(e.node);
      return ok_status();
    }
    FLOWLAB_TRY(s->second->restart(30));
    h.killed.erase(e.node);
    return ok_status();
  }
  return fail("node {} is not running in this case (a controller of kind none, or not used)", e.node);
}

nlohmann::json run_during_events(const std::vector<EventSpec>& events, CaseHandles& h,
                                 const std::function<void()>& test) {
  Timeline tl(events, [&h](const EventSpec& e) { return fire_event(e, h); });
  uint64_t t0 = monotonic_ns();
  std::thread running([&] {
    test();
    tl.cancel();
  });
  tl.run_here(t0);
  running.join();
  return tl.fired();
}

Status restore_after_events(CaseHandles& h) {
  if (h.remote_restore) return h.remote_restore();
  Status first = ok_status();
  auto keep = [&](Status st) {
    if (!st.ok() && first.ok()) first = st;
  };
  for (int i : std::set<int>(h.links_down)) keep(set_link(h, i, true));
  for (const auto& n : std::set<std::string>(h.killed)) {
    EventSpec e;
    e.action = EventAction::kStart;
    e.node = n;
    keep(fire_event(e, h));
  }
  for (const auto& [i, shape] : h.shapes_before) {
    ShapedLink* l = h.shaped[size_t(i)];
    keep(l->set_shape(shape));
  }
  h.shapes_before.clear();
  return first;
}

}  // namespace flowlab::lab

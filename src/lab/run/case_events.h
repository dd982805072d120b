// Performing a case's events: what a link down/up, a kill/start or a re-shape
// means for the namespaces and processes the runner built, and putting things
// back after the test they ran during (links up, killed processes started again,
// shapes as the scenario declared them), so later tests see the declared network.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/backend/backends.h"
#include "lab/net/shaped_link.h"
#include "lab/scenario/events.h"

namespace flowlab::lab {

struct Scenario;

// The runner's handles on one case, by the names the events use.
struct CaseHandles {
  std::vector<std::pair<std::string, std::string>> link_names;  // "h1:eth0", "s1:p1" per link
  std::vector<std::pair<LinkEnd, LinkEnd>> link_ends;           // namespace + interface of both ends
  std::vector<ShapedLink*> shaped;                              // per link; nullptr: a plain veth
  // Across machines, the shaped links between machines: this machine's half
  // shapes the direction leaving it (its wire's a_to_b). Link index -> true when
  // this machine holds the link's end b (its a_to_b is then the link's b_to_a).
  std::map<int, bool> halves;
  std::map<std::string, ControllerInstance*> controllers;
  std::map<std::string, SwitchInstance*> switches;
  CaseEnv env;

  // Across machines: the events go to the agents of the machines they touch,
  // each firing them on its own handles and undoing them on `remote_restore`.
  std::function<Status(const EventSpec&)> remote_event;
  std::function<Status()> remote_restore;

  // What the events changed, for restore().
  std::set<int> links_down;
  std::set<std::string> killed;
  std::map<int, LinkShapes> shapes_before;
};

// The links of a scenario as event scope entries ("node:if" pairs).
std::vector<std::pair<std::string, std::string>> link_names(const Scenario& sc);
// True when link i must be built through a wire namespace: it has a shape, or an
// event re-shapes it during the run.
bool link_needs_wire(const Scenario& sc, size_t i);
// controller -> "s1 (flowlab, fail-secure)" for each switch connected to it.
std::map<std::string, std::vector<std::string>> controller_switches(const CaseHandles& h);

// The shaped links of a machine's part as results.json records them ({link,
// shaped_here: both|a_to_b|b_to_a, a_to_b, b_to_a, mechanisms...}): a half of a
// link between machines says the direction it shapes in the link's own terms.
nlohmann::json shaped_link_records(const CaseHandles& h);

Status fire_event(const EventSpec& e, CaseHandles& h);
// Runs `test` on a thread of its own while the events fire on the calling
// thread (processes they start outlive the test: see Timeline::run_here), time
// zero the moment the test starts; events not due when it ends do not fire.
// Returns the timeline (Timeline::fired()).
nlohmann::json run_during_events(const std::vector<EventSpec>& events, CaseHandles& h,
                                 const std::function<void()>& test);
// Undoes what the events did; returns the first error (and still tries the rest).
Status restore_after_events(CaseHandles& h);

}  // namespace flowlab::lab

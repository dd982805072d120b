// Which links a run captures and where their ends are (see case_capture.h).
#include "lab/run/case_capture.h"

#include <fmt/format.h>

#include "lab/capture/link_select.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {

Result<std::vector<size_t>> capture_selection(const Scenario& sc, const std::vector<std::string>& cli,
                                              const std::string& file) {
  const auto& items = cli.empty() ? sc.capture : cli;
  if (items.empty()) return std::vector<size_t>{};
  auto sel = select_links(items, link_names(sc));
  if (sel.ok()) return sel;
  if (!cli.empty()) return fail("--capture: {}", sel.error().message);
  return fail("{}:{}: key 'capture': {}", file, sc.capture_line, sel.error().message);
}

std::vector<CaptureTarget> capture_targets(const CaseHandles& h, const std::vector<size_t>& selected,
                                           const std::string& machine) {
  auto names = link_display_names(h.link_names);
  std::vector<CaptureTarget> out;
  for (size_t i : selected) {
    const auto& [a, b] = h.link_ends.at(i);
    CaptureTarget t{names[i], a.ns, a.ifname, b.ns, b.ifname, {}};
    if (!machine.empty()) {
      if (a.ns.empty()) t.a_if.clear();
      if (b.ns.empty()) t.b_if.clear();
      if (t.a_if.empty() && t.b_if.empty()) continue;
      if (t.a_if.empty() || t.b_if.empty()) t.file = link_file_stem(names[i]) + "@" + machine;
    }
    out.push_back(std::move(t));
  }
  return out;
}

nlohmann::json links_record(const CaseHandles& h) {
  auto names = link_display_names(h.link_names);
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < h.link_ends.size(); ++i) {
    const auto& [a, b] = h.link_ends[i];
    out.push_back({{"name", names[i]},
                   {"a", h.link_names[i].first},
                   {"b", h.link_names[i].second},
                   {"a_ns", a.ns},
                   {"a_if", a.ifname},
                   {"b_ns", b.ns},
                   {"b_if", b.ifname}});
  }
  return out;
}

Result<CaptureTarget> recorded_target(const nlohmann::json& links, const std::string& link,
                                      std::pair<std::string, std::string>* nodes) {
  if (!links.is_array()) return fail("the lab's record has no links (brought up by an older flowlab?)");
  LinkEnds ends;
  for (const auto& l : links) ends.emplace_back(l.value("a", ""), l.value("b", ""));
  FLOWLAB_ASSIGN_OR_RETURN(auto sel, select_links(link, ends));
  auto names = link_display_names(ends);
  if (sel.size() != 1) {
    std::string which;
    for (size_t i : sel) which += (which.empty() ? "" : ", ") + names[i];
    return fail("'{}' names {} links ({}); name one", link, sel.size(), which);
  }
  const auto& l = links[sel[0]];
  if (nodes) {
    std::string a = l.value("a", ""), b = l.value("b", "");
    *nodes = {a.substr(0, a.find(':')), b.substr(0, b.find(':'))};
  }
  return CaptureTarget{names[sel[0]],       l.value("a_ns", ""), l.value("a_if", ""),
                       l.value("b_ns", ""), l.value("b_if", ""), {}};
}

}  // namespace flowlab::lab

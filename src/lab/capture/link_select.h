// Which links a capture is about: the LINKS list of `capture:` / `--capture` /
// `flowlab lab capture`, read against a lab's links. Pure text in, indices out.
//
//   all                 every link
//   s1-s2               every link between s1 and s2 (either order)
//   h1:eth0-s1:p1       the link with these two ends ("node:if" as the scenario writes them)
//   h1:eth0             the link one of whose ends is h1:eth0
//   s1-s2, h1:eth0      a list, comma-separated (or a YAML list of such items)
//
// Node names may hold '-': an item is tried at every '-' and each split that
// names two ends of one link counts. An item that selects no link is an error
// that lists the lab's links.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

// Both ends of each link as "node:if".
using LinkEnds = std::vector<std::pair<std::string, std::string>>;

// The indices (ascending, each once) of the links `spec` names.
Result<std::vector<size_t>> select_links(std::string_view spec, const LinkEnds& links);
// The same for several items (a YAML list); each item may itself be a comma list.
Result<std::vector<size_t>> select_links(const std::vector<std::string>& items, const LinkEnds& links);
// Each link's short name, its two sides in name order: "s1-s2" when it is the only
// link between its two nodes, else "s1:p2-s2:p1".
std::vector<std::string> link_display_names(const LinkEnds& links);
// A file name for a link's name: ':' and '/' become '_'.
std::string link_file_stem(std::string_view display_name);

}  // namespace flowlab::lab

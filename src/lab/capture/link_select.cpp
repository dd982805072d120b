// LINKS lists read against a lab's links (see link_select.h).
#include "lab/capture/link_select.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace flowlab::lab {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string_view node_of(std::string_view end) { return end.substr(0, end.find(':')); }

// "s1" matches every end of node s1, "s1:p1" that end only.
bool end_matches(std::string_view want, std::string_view end) {
  if (want.empty()) return false;
  return want.find(':') == std::string_view::npos ? node_of(end) == want : end == want;
}

std::string known_links(const LinkEnds& links) {
  auto names = link_display_names(links);
  std::string s;
  for (size_t i = 0; i < names.size() && i < 12; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 12) s += fmt::format(", ... ({} links)", names.size());
  return s.empty() ? "none" : s;
}

Status select_item(std::string_view item, const LinkEnds& links, std::set<size_t>& out) {
  if (item == "all") {
    for (size_t i = 0; i < links.size(); ++i) out.insert(i);
    return ok_status();
  }
  if (item.size() > 200) return fail("link name '{}...' is too long", item.substr(0, 40));
  bool matched = false;
  for (size_t dash = item.find('-'); dash != std::string_view::npos; dash = item.find('-', dash + 1)) {
    std::string_view x = item.substr(0, dash), y = item.substr(dash + 1);
    for (size_t i = 0; i < links.size(); ++i) {
      const auto& [a, b] = links[i];
      if ((end_matches(x, a) && end_matches(y, b)) || (end_matches(x, b) && end_matches(y, a))) {
        out.insert(i);
        matched = true;
      }
    }
  }
  if (!matched && item.find(':') != std::string_view::npos)  // one end: "h1:eth0"
    for (size_t i = 0; i < links.size(); ++i)
      if (links[i].first == item || links[i].second == item) {
        out.insert(i);
        matched = true;
      }
  if (!matched)
    return fail("no link '{}' (name a link as A-B or NODE:IF, or 'all'; the links: {})", item,
                known_links(links));
  return ok_status();
}

}  // namespace

Result<std::vector<size_t>> select_links(std::string_view spec, const LinkEnds& links) {
  return select_links(std::vector<std::string>{std::string(spec)}, links);
}

Result<std::vector<size_t>> select_links(const std::vector<std::string>& items, const LinkEnds& links) {
  std::set<size_t> out;
  if (items.empty()) return fail("no link named (a list like s1-s2,h1:eth0, or 'all')");
  for (const auto& list : items) {
    std::string_view rest = list;
    while (true) {
      size_t comma = rest.find(',');
      std::string_view item = trim(rest.substr(0, comma));
      if (item.empty()) return fail("empty link name in '{}' (a list like s1-s2,h1:eth0, or 'all')", list);
      FLOWLAB_TRY(select_item(item, links, out));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return std::vector<size_t>(out.begin(), out.end());
}

std::vector<std::string> link_display_names(const LinkEnds& links) {
  std::vector<std::string> out;
  auto pair_of = [](const auto& l) {
    auto x = std::string(node_of(l.first)), y = std::string(node_of(l.second));
    return x < y ? std::make_pair(x, y) : std::make_pair(y, x);
  };
  for (const auto& l : links) {
    auto p = pair_of(l);
    size_t same =
        size_t(std::count_if(links.begin(), links.end(), [&](const auto& o) { return pair_of(o) == p; }));
    // The two sides in name order: s2 -> s1 and s1 -> s2 are both "s1-s2".
    auto x = l.first, y = l.second;
    if (std::make_pair(node_of(y), y) < std::make_pair(node_of(x), x)) std::swap(x, y);
    out.push_back(same == 1 ? fmt::format("{}-{}", p.first, p.second) : fmt::format("{}-{}", x, y));
  }
  return out;
}

std::string link_file_stem(std::string_view display_name) {
  std::string s(display_name);
  for (char& c : s)
    if (c == ':' || c == '/') c = '_';
  return s;
}

}  // namespace flowlab::lab

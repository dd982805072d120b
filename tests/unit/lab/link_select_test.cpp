// LINKS lists (lab/capture/link_select.h): which links `capture:`, `--capture` and
// `flowlab lab capture` name, against a small lab's link ends.
#include "lab/capture/link_select.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

// h1 - s1 = s2 - h2 (two links between s1 and s2), and a switch whose name has a '-'.
const LinkEnds kLinks = {{"h1:eth0", "s1:p1"},
                         {"s1:p2", "s2:p1"},
                         {"s1:p3", "s2:p2"},
                         {"h2:eth0", "s2:p3"},
                         {"s2:p4", "core-1:p1"}};

std::vector<size_t> sel(const std::string& spec) {
  auto r = select_links(spec, kLinks);
  EXPECT_TRUE(r.ok()) << spec << ": " << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : std::vector<size_t>{};
}

TEST(LinkSelect, NamesLinksByNodesEndsOrAll) {
  EXPECT_EQ(sel("all"), (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(sel("h1-s1"), (std::vector<size_t>{0}));
  EXPECT_EQ(sel("s1-h1"), (std::vector<size_t>{0})) << "either order";
  EXPECT_EQ(sel("s1-s2"), (std::vector<size_t>{1, 2})) << "every link between the two";
  EXPECT_EQ(sel("s1:p3-s2:p2"), (std::vector<size_t>{2}));
  EXPECT_EQ(sel("h1:eth0"), (std::vector<size_t>{0})) << "one end names its link";
  EXPECT_EQ(sel("s2-core-1"), (std::vector<size_t>{4})) << "a '-' inside a node name";
  EXPECT_EQ(sel(" s1-s2 , h1:eth0,h1-s1"), (std::vector<size_t>{0, 1, 2})) << "a list, each once";
  auto list = select_links(std::vector<std::string>{"h2:eth0", "s2-core-1"}, kLinks);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(*list, (std::vector<size_t>{3, 4}));
}

TEST(LinkSelect, UnknownOrEmptyNamesAreErrorsThatListTheLinks) {
  auto r = select_links("s1-s9", kLinks);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no link 's1-s9'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("h1-s1"), std::string::npos) << "lists the links: " << r.error().message;
  EXPECT_FALSE(select_links("h1", kLinks).ok()) << "a node alone is not a link";
  EXPECT_FALSE(select_links("h1:eth9", kLinks).ok());
  EXPECT_FALSE(select_links("s1-s2,,h1-s1", kLinks).ok());
  EXPECT_FALSE(select_links("", kLinks).ok());
  EXPECT_FALSE(select_links(std::vector<std::string>{}, kLinks).ok());
  EXPECT_FALSE(select_links("-", kLinks).ok());
  EXPECT_FALSE(select_links(":-:", kLinks).ok());
}

TEST(LinkSelect, DisplayNamesAreShortWhereUniqueAndFileSafe) {
  auto names = link_display_names(kLinks);
  EXPECT_EQ(names, (std::vector<std::string>{"h1-s1", "s1:p2-s2:p1", "s1:p3-s2:p2", "h2-s2", "core-1-s2"}));
  EXPECT_EQ(link_file_stem("s1:p2-s2:p1"), "s1_p2-s2_p1");
  // A display name selects its own link again (what `lab capture` is given).
  for (size_t i = 0; i < names.size(); ++i) EXPECT_EQ(sel(names[i]), (std::vector<size_t>{i})) << names[i];
}

}  // namespace
}  // namespace flowlab::lab

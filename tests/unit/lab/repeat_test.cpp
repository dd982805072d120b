// --repeat aggregation (medians, min-max, the representative repeat) and
// `lab diff` (figures beyond their spread, verdicts changed), on recorded-shaped records.
#include "lab/report/repeat.h"

#include <gtest/gtest.h>

namespace flowlab::lab {
namespace {

using nlohmann::json;

json tcp(const std::string& cs, int rep, double gbps, const std::string& bound = "window / RTT") {
  return {{"case", cs},
          {"test", "tcp"},
          {"type", "iperf3-tcp"},
          {"status", "ok"},
          {"repeat", rep},
          {"metrics", {{"gbps", gbps}, {"retransmits", rep * 2}, {"rtt_ms", 0.5}}},
          {"samples", {{"t_s", {double(rep)}}}},
          {"verdict", {{"bound", bound}, {"sentence", bound + ": numbers"}}}};
}

TEST(Repeat, MediansSpreadAndRepresentative) {
  json rs = {tcp("a", 1, 0.9), tcp("b", 1, 2.0), tcp("a", 2, 1.1),
             tcp("b", 2, 2.2), tcp("a", 3, 1.0), tcp("b", 3, 1.9)};
  rs[5]["status"] = "failed";  // a failed repeat does not count
  json agg = aggregate_repeats(rs);
  ASSERT_EQ(agg.size(), 2u);
  EXPECT_EQ(agg[0]["case"], "a");
  EXPECT_DOUBLE_EQ(agg[0]["metrics"]["gbps"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(agg[0]["spread"]["gbps"]["min"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(agg[0]["spread"]["gbps"]["max"].get<double>(), 1.1);
  EXPECT_EQ(agg[0]["repeats"], 3);
  EXPECT_EQ(agg[0]["representative_repeat"], 3);  // 1.0 is the median
  EXPECT_DOUBLE_EQ(agg[0]["samples"]["t_s"][0].get<double>(), 3);
  EXPECT_FALSE(agg[0].contains("repeat"));
  EXPECT_DOUBLE_EQ(agg[1]["metrics"]["gbps"].get<double>(), 2.1);  // median of 2.0 and 2.2
  EXPECT_EQ(agg[1]["repeats_ok"], 2);
}

TEST(Repeat, AllRepeatsFailedKeepsTheFailure) {
  json r = tcp("a", 1, 0);
  r["status"] = "failed";
  r["reason"] = "iperf3 timed out";
  json agg = aggregate_repeats(json::array({r, r}));
  ASSERT_EQ(agg.size(), 1u);
  EXPECT_EQ(agg[0]["status"], "failed");
  EXPECT_EQ(agg[0]["repeats"], 2);
  EXPECT_TRUE(aggregate_repeats(json::object()).empty());
}

TEST(Repeat, WithinSpread) {
  json a = aggregate_repeats(json::array({tcp("a", 1, 0.9), tcp("a", 2, 1.1)}))[0];
  json b = aggregate_repeats(json::array({tcp("b", 1, 1.05), tcp("b", 2, 1.3)}))[0];
  json c = aggregate_repeats(json::array({tcp("c", 1, 1.5), tcp("c", 2, 1.6)}))[0];
  EXPECT_TRUE(within_spread(a, b, "gbps"));
  EXPECT_FALSE(within_spread(a, c, "gbps"));
  json single1 = tcp("x", 1, 1.0), single2 = tcp("y", 1, 1.0);
  EXPECT_FALSE(within_spread(single1, single2, "gbps"));  // no spread: nothing to judge it by
}

TEST(Repeat, DiffNamesMovedFiguresAndChangedVerdicts) {
  json old_doc = {{"results", aggregate_repeats(json::array({tcp("a", 1, 0.9), tcp("a", 2, 1.1),
                                                             tcp("b", 1, 2.0), tcp("b", 2, 2.1)}))}};
  json new_doc = {{"results", aggregate_repeats(json::array({tcp("a", 1, 1.0), tcp("a", 2, 1.2),
                                                             tcp("b", 1, 3.0, "process CPU"),
                                                             tcp("b", 2, 3.2, "process CPU")}))}};
  std::string d = diff_results(old_doc, new_doc);
  EXPECT_EQ(d.find("a / tcp gbps"), std::string::npos) << d;  // within the spread
  EXPECT_NE(d.find("b / tcp gbps: 2.05 -> 3.1 (+51%), beyond the spread [2-2.1] -> [3-3.2]"),
            std::string::npos)
      << d;
  EXPECT_NE(d.find("b / tcp: verdict window / RTT -> process CPU"), std::string::npos) << d;
  EXPECT_NE(d.find("1 verdict(s) changed"), std::string::npos) << d;
  json gone = {{"results", json::array({tcp("z", 1, 1)})}};
  EXPECT_NE(diff_results(gone, new_doc).find("z / tcp: gone"), std::string::npos);
  EXPECT_NE(diff_results(new_doc, json::object()).find("0 figure(s) moved"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

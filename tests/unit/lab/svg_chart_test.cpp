// SVG line charts: points land where the axes say, events are marked, text is
// escaped, an empty chart says so.
#include "lab/format/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>

namespace flowlab::lab {
namespace {

TEST(SvgChart, NiceCeilings) {
  EXPECT_DOUBLE_EQ(nice_ceiling(0.7), 0.8);
  EXPECT_DOUBLE_EQ(nice_ceiling(1.03), 1.2);
  EXPECT_DOUBLE_EQ(nice_ceiling(1.3), 1.5);
  EXPECT_DOUBLE_EQ(nice_ceiling(95), 100);
  EXPECT_DOUBLE_EQ(nice_ceiling(450), 500);
  EXPECT_DOUBLE_EQ(nice_ceiling(0), 1);
  EXPECT_DOUBLE_EQ(nice_ceiling(-3), 1);
}

TEST(SvgChart, PolylineEventsAndLegend) {
  LineChart c;
  c.title = "throughput <h1>";
  c.y_label = "Mbit/s";
  c.width = 400;
  c.height = 200;
  c.series.push_back({"iperf3 & co", {0, 5, 10}, {0, 50, 100}});
  c.series.push_back({"rtt", {0, 10}, {1, 2}, true});
  c.events.push_back({5, "link down"});
  std::string s = render_line_chart(c);
  EXPECT_EQ(s.rfind("<svg", 0), 0u);
  EXPECT_NE(s.find("</svg>"), std::string::npos);
  EXPECT_NE(s.find("throughput &lt;h1&gt;"), std::string::npos);
  EXPECT_NE(s.find("iperf3 &amp; co"), std::string::npos);
  EXPECT_NE(s.find("rtt (right)"), std::string::npos);
  EXPECT_NE(s.find("class=\"event\""), std::string::npos);
  EXPECT_NE(s.find("link down"), std::string::npos);
  // Plot area: left 52, right 52 (a right axis), top 32, bottom 34 + 16 (one legend row):
  // 296 x 118 px. (0,0) -> (52,150); (10,100) -> (348,32); x max 10, y max 100.
  EXPECT_NE(s.find("points=\"52.0,150.0 200.0,91.0 348.0,32.0\""), std::string::npos) << s;
  EXPECT_EQ(s.find("no samples"), std::string::npos);
}

TEST(SvgChart, EmptyChartSaysNoSamples) {
  LineChart c;
  c.title = "cpu";
  c.series.push_back({"x", {}, {}});
  std::string s = render_line_chart(c);
  EXPECT_NE(s.find("no samples"), std::string::npos);
  EXPECT_EQ(s.find("<polyline"), std::string::npos);
}

TEST(SvgChart, HasPointsOnlyWithAFinitePoint) {
  LineChart c;
  EXPECT_FALSE(chart_has_points(c));
  c.series.push_back({"x", {}, {}});
  c.series.push_back({"y", {0, 1}, {NAN, INFINITY}});
  EXPECT_FALSE(chart_has_points(c));
  c.series.push_back({"z", {0}, {3}});
  EXPECT_TRUE(chart_has_points(c));
}

TEST(SvgChart, NonFinitePointsAreSkipped) {
  LineChart c;
  c.series.push_back({"x", {0, 1, 2}, {1, NAN, 2}});
  std::string s = render_line_chart(c);
  EXPECT_EQ(s.find("nan"), std::string::npos);
  EXPECT_NE(s.find("<polyline"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

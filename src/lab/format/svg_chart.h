// Line charts as inline SVG, drawn by flowlab for report.html (no scripts, no
// network): time on x, one or two y axes (a series can use the right one, e.g.
// RTT beside cwnd), a legend, and events marked as dashed vertical lines.
#pragma once

#include <string>
#include <vector>

namespace flowlab::lab {

struct LineSeries {
  std::string name;
  std::vector<double> x, y;  // same length; points with a non-finite y are skipped
  bool right_axis = false;
};

struct ChartEvent {
  double t = 0;
  std::string label;
};

struct LineChart {
  std::string title, x_label = "s", y_label, y2_label;
  std::vector<LineSeries> series;
  std::vector<ChartEvent> events;
  int width = 520, height = 200;
};

// The chart as one <svg> element; a chart without points says so in its body.
std::string render_line_chart(const LineChart& chart);
// Whether any series of the chart has a point to draw (finite x and y).
bool chart_has_points(const LineChart& chart);
// "a < b & c" -> "a &lt; b &amp; c" (text and attribute values).
std::string markup_escape(const std::string& s);
// A round axis maximum at or above v: 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k.
double nice_ceiling(double v);

}  // namespace flowlab::lab

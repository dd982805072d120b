// SVG line charts (see svg_chart.h). Coordinates are computed here; the SVG holds
// only <line>, <polyline>, <text> and <rect>, styled inline so it renders anywhere.
#include "lab/format/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace flowlab::lab {

namespace {

constexpr const char* kColors[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                   "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string tick(double v) {
  if (v == 0) return "0";
  if (std::abs(v) >= 100) return fmt::format("{:.0f}", v);
  if (std::abs(v) >= 1) return fmt::format("{:.3g}", v);
  return fmt::format("{:.2g}", v);
}

}  // namespace

std::string markup_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

double nice_ceiling(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 1;
  double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * p >= v * (1 - 1e-9)) return m * p;
  return 10 * p;
}

bool chart_has_points(const LineChart& c) {
  for (const auto& s : c.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) return true;
  return false;
}

std::string render_line_chart(const LineChart& c) {
  const int left = 52, right = c.series.end() != std::find_if(c.series.begin(), c.series.end(),
                                                              [](const LineSeries&s) { return s.right_axis; })
                                   ? 52
                                   : 16;
  const int top = 32, legend_h = 16 * int((c.series.size() + 2) / 3), bottom = 34 + legend_h;
  const int pw = c.width - left - right, ph = c.height - top - bottom;
  double xmax = 0, y1 = 0, y2 = 0;
  size_t points = 0;
  for (const auto& s : c.series)
    for (size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
      if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
      ++points;
      xmax = std::max(xmax, s.x[i]);
      (s.right_axis ? y2 : y1) = std::max(s.right_axis ? y2 : y1, s.y[i]);
    }
  for (const auto& e : c.events) xmax = std::max(xmax, e.t);
  xmax = nice_ceiling(xmax);
  y1 = nice_ceiling(y1);
  y2 = nice_ceiling(y2);
  auto px = [&](double x) { return left + x / xmax * pw; };
  auto py = [&](double y, bool r) { return top + ph - y / (r ? y2 : y1) * ph; };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"line-chart\" width=\"{}\" height=\"{}\" "
      "role=\"img\" "
      "aria-label=\"{}\" font-family=\"sans-serif\" font-size=\"11\">"
      "<text x=\"4\" y=\"13\" font-weight=\"bold\" font-size=\"13\">{}</text>"
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#bbb\"/>",
      c.width, c.height, markup_escape(c.title), markup_escape(c.title), left, top, pw, ph);
  for (int i = 0; i <= 4; ++i) {  // grid and tick labels
    double fy = double(i) / 4;
    double y = top + ph - fy * ph;
    s += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#eee\"/>", left, y,
                     left + pw, y);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", left - 4, y + 4,
                     tick(fy * y1));
    if (right > 16)
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\">{}</text>", left + pw + 4, y + 4, tick(fy * y2));
    double x = left + fy * pw;
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>", x, top + ph + 13,
                     tick(fy * xmax));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{}</text>", left + pw,
                   top + ph + 26, markup_escape(c.x_label));
  s += fmt::format("<text x=\"4\" y=\"{}\" fill=\"#555\">{}</text>", top - 4, markup_escape(c.y_label));
  if (right > 16)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{}</text>", c.width - 2,
                     top - 4, markup_escape(c.y2_label));
  for (const auto& e : c.events) {
    double x = px(e.t);
    s += fmt::format(
        "<line class=\"event\" x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" stroke=\"#a33\" "
        "stroke-dasharray=\"4 3\"/>"
        "<text x=\"{:.1f}\" y=\"{}\" fill=\"#a33\">{}</text>",
        x, top, x, top + ph, x + 3, top + 11, markup_escape(e.label));
  }
  if (points == 0)
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#888\">no samples</text>",
                     left + pw / 2, top + ph / 2);
  for (size_t k = 0; k < c.series.size(); ++k) {
    const auto& ser = c.series[k];
    std::string pts;
    for (size_t i = 0; i < ser.x.size() && i < ser.y.size(); ++i)
      if (std::isfinite(ser.x[i]) && std::isfinite(ser.y[i]))
        pts += fmt::format("{}{:.1f},{:.1f}", pts.empty() ? "" : " ", px(ser.x[i]),
                           py(ser.y[i], ser.right_axis));
    const char* color = kColors[k % 10];
    if (!pts.empty())
      s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>", color,
                       ser.right_axis ? " stroke-dasharray=\"5 2\"" : "", pts);
    int lx = left + int(k % 3) * (pw / 3), ly = top + ph + 30 + 16 * int(k / 3);
    s += fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"10\" height=\"3\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{}{}</text>",
        lx, ly - 4, color, lx + 14, ly, markup_escape(ser.name), ser.right_axis ? " (right)" : "");
  }
  return s + "</svg>";
}

}  // namespace flowlab::lab

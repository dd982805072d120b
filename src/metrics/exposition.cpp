// Prometheus text format 0.0.4 (see exposition.h).
#include "metrics/exposition.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace flowlab::metrics {

namespace {

bool name_char(char c, bool first, bool colon) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') return true;
  if (colon && c == ':') return true;
  return !first && c >= '0' && c <= '9';
}

void write_labels(std::string& out, const Labels& labels, const char* le = nullptr) {
  bool any = false;
  for (const auto& [k, v] : labels) {
    if (!valid_label_name(k) || k == "le") continue;
    out += any ? ',' : '{';
    any = true;
    out += k;
    out += "=\"";
    out += escape_label_value(v);
    out += '"';
  }
  if (le) {
    out += any ? ',' : '{';
    any = true;
    out += "le=\"";
    out += le;
    out += '"';
  }
  if (any) out += '}';
}

}  // namespace

const char* to_string(MetricType t) {
  switch (t) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kUntyped:
      break;
  }
  return "untyped";
}

bool valid_metric_name(std::string_view name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, true)) return false;
  return true;
}

bool valid_label_name(std::string_view name) {
  if (name.empty() || name.starts_with("__")) return false;
  for (size_t i = 0; i < name.size(); ++i)
    if (!name_char(name[i], i == 0, false)) return false;
  return true;
}

std::string escape_label_value(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_help(std::string_view h) {
  std::string out;
  out.reserve(h.size());
  for (char c : h) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::trunc(v) && std::fabs(v) < 9007199254740992.0)  // 2^53: exact as an integer
    return fmt::format("{}", int64_t(v));
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  return std::string(buf, r.ptr);
}

void write_family(std::string& out, const Family& f) {
  if (!valid_metric_name(f.name)) return;
  bool histogram = f.type == MetricType::kHistogram;
  if (histogram ? f.histograms.empty() : f.samples.empty()) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", f.name, escape_help(f.help), f.name, to_string(f.type));
  if (!histogram) {
    for (const Sample& s : f.samples) {
      out += f.name;
      write_labels(out, s.labels);
      out += ' ';
      out += format_value(s.value);
      out += '\n';
    }
    return;
  }
  for (const HistogramSample& h : f.histograms) {
    for (const auto& [le, n] : h.buckets) {
      out += f.name;
      out += "_bucket";
      write_labels(out, h.labels, format_value(le).c_str());
      out += fmt::format(" {}\n", n);
    }
    out += f.name;
    out += "_bucket";
    write_labels(out, h.labels, "+Inf");
    out += fmt::format(" {}\n", h.count);
    out += f.name;
    out += "_sum";
    write_labels(out, h.labels);
    out += ' ';
    out += format_value(h.sum);
    out += '\n';
    out += f.name;
    out += "_count";
    write_labels(out, h.labels);
    out += fmt::format(" {}\n", h.count);
  }
}

std::string write_text(const std::vector<Family>& families) {
  std::string out;
  for (const Family& f : families) write_family(out, f);
  return out;
}

}  // namespace flowlab::metrics

// Prometheus' text exposition format, version 0.0.4: what a scrape of /metrics
// answers. A family is one metric name with its HELP and TYPE lines and its
// samples, one per label set:
//
//   # HELP of_packet_ins_total packet-ins received from the switch
//   # TYPE of_packet_ins_total counter
//   of_packet_ins_total{dp_id="0x1",dp_name="s1"} 42
//
// A histogram family writes, per label set, cumulative `NAME_bucket{le="..."}`
// lines in increasing `le` ending with le="+Inf" (= the count), then `NAME_sum`
// and `NAME_count`. Label values escape backslash, double quote and newline;
// HELP text escapes backslash and newline. Values are integers when they are
// whole numbers (counters read as such), else the shortest decimal that reads
// back the same double; "+Inf", "-Inf", "NaN" as the format spells them.
//
// Names are the caller's constants: valid_metric_name / valid_label_name say
// whether one is legal, and the writer leaves out a family or label that is not
// (a scrape with one bad line would be refused whole by Prometheus).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flowlab::metrics {

enum class MetricType { kCounter, kGauge, kHistogram, kUntyped };
const char* to_string(MetricType t);

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Labels labels;
  double value = 0;
};

struct HistogramSample {
  Labels labels;
  // (upper bound, observations <= it), bounds increasing, +Inf not included.
  std::vector<std::pair<double, uint64_t>> buckets;
  double sum = 0;
  uint64_t count = 0;
};

struct Family {
  std::string name;
  std::string help;
  MetricType type = MetricType::kUntyped;
  std::vector<Sample> samples;              // counter, gauge, untyped
  std::vector<HistogramSample> histograms;  // histogram

  Family& add(Labels labels, double value) {
    samples.push_back({std::move(labels), value});
    return *this;
  }
};

bool valid_metric_name(std::string_view name);  // [a-zA-Z_:][a-zA-Z0-9_:]*
bool valid_label_name(std::string_view name);   // [a-zA-Z_][a-zA-Z0-9_]*, not starting "__"

std::string escape_label_value(std::string_view v);
std::string escape_help(std::string_view h);
std::string format_value(double v);

// Appends one family (nothing for an invalid name, or a family with no samples).
void write_family(std::string& out, const Family& f);
std::string write_text(const std::vector<Family>& families);

// The Content-Type a scrape answers with.
inline constexpr std::string_view kContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace flowlab::metrics

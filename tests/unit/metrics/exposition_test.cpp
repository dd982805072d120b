// The text exposition format, byte for byte: HELP/TYPE lines, labels and their
// escaping, values, histograms (cumulative buckets, +Inf, _sum, _count).
#include "metrics/exposition.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "metrics/registry.h"

namespace flowlab::metrics {
namespace {

TEST(Exposition, CounterWithLabels) {
  Family f = counter("of_packet_ins_total", "packet-ins sent");
  f.add({{"dp_id", "0x1"}, {"dp_name", "s1"}}, 42);
  f.add({{"dp_id", "0x2"}, {"dp_name", "s2"}}, 0);
  EXPECT_EQ(write_text({f}),
            "# HELP of_packet_ins_total packet-ins sent\n"
            "# TYPE of_packet_ins_total counter\n"
            "of_packet_ins_total{dp_id=\"0x1\",dp_name=\"s1\"} 42\n"
            "of_packet_ins_total{dp_id=\"0x2\",dp_name=\"s2\"} 0\n");
}

TEST(Exposition, GaugeWithoutLabels) {
  EXPECT_EQ(write_text({gauge("flowlab_switches_connected", "now").add({}, 3)}),
            "# HELP flowlab_switches_connected now\n"
            "# TYPE flowlab_switches_connected gauge\n"
            "flowlab_switches_connected 3\n");
}

TEST(Exposition, LabelValuesAndHelpAreEscaped) {
  Family f = gauge("x", "a \\ b\nc \"quoted\"");
  f.add({{"port", "we\"ird\\na\nme"}}, 1);
  EXPECT_EQ(write_text({f}),
            "# HELP x a \\\\ b\\nc \"quoted\"\n"
            "# TYPE x gauge\n"
            "x{port=\"we\\\"ird\\\\na\\nme\"} 1\n");
  EXPECT_EQ(escape_label_value("plain-öé"), "plain-öé");  // UTF-8 passes through
}

TEST(Exposition, Values) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(-7), "-7");
  EXPECT_EQ(format_value(18446744073709551615.0), "18446744073709551616");  // 2^64: shortest form
  EXPECT_EQ(format_value(9007199254740991.0), "9007199254740991");
  EXPECT_EQ(format_value(0.5), "0.5");
  EXPECT_EQ(format_value(1.024e-06), "1.024e-06");
  EXPECT_EQ(format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(Exposition, Histogram) {
  Family f{"faucet_packet_in_secs", "handling time", MetricType::kHistogram, {}, {}};
  HistogramSample h;
  h.labels = {{"event", "packet_in"}};
  h.buckets = {{0.001, 2}, {0.01, 5}, {0.1, 5}};
  h.sum = 0.0375;
  h.count = 6;
  f.histograms.push_back(h);
  EXPECT_EQ(write_text({f}),
            "# HELP faucet_packet_in_secs handling time\n"
            "# TYPE faucet_packet_in_secs histogram\n"
            "faucet_packet_in_secs_bucket{event=\"packet_in\",le=\"0.001\"} 2\n"
            "faucet_packet_in_secs_bucket{event=\"packet_in\",le=\"0.01\"} 5\n"
            "faucet_packet_in_secs_bucket{event=\"packet_in\",le=\"0.1\"} 5\n"
            "faucet_packet_in_secs_bucket{event=\"packet_in\",le=\"+Inf\"} 6\n"
            "faucet_packet_in_secs_sum{event=\"packet_in\"} 0.0375\n"
            "faucet_packet_in_secs_count{event=\"packet_in\"} 6\n");
}

TEST(Exposition, HistogramWithoutLabels) {
  Family f{"h", "", MetricType::kHistogram, {}, {}};
  f.histograms.push_back({{}, {{1, 1}}, 1, 1});
  EXPECT_EQ(write_text({f}),
            "# HELP h \n# TYPE h histogram\n"
            "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n");
}

TEST(Exposition, InvalidNamesAndEmptyFamiliesAreLeftOut) {
  EXPECT_TRUE(valid_metric_name("of_port_rx_bytes"));
  EXPECT_TRUE(valid_metric_name("job:rate5m"));
  EXPECT_FALSE(valid_metric_name("0abc"));
  EXPECT_FALSE(valid_metric_name("a-b"));
  EXPECT_FALSE(valid_metric_name(""));
  EXPECT_TRUE(valid_label_name("dp_id"));
  EXPECT_FALSE(valid_label_name("__name__"));
  EXPECT_FALSE(valid_label_name("a:b"));
  Family bad = gauge("bad-name", "x");
  bad.add({}, 1);
  Family empty = gauge("empty", "x");
  Family badlabel = gauge("ok", "x");
  badlabel.add({{"bad-label", "v"}, {"le", "reserved for buckets"}, {"good", "v"}}, 1);
  EXPECT_EQ(write_text({bad, empty, badlabel}), "# HELP ok x\n# TYPE ok gauge\nok{good=\"v\"} 1\n");
}

TEST(Registry, CollectorsRunAtEveryScrapeInOrder) {
  Registry r;
  int scrapes = 0;
  r.add([&](std::vector<Family>& out) { out.push_back(counter("a_total", "a").add({}, ++scrapes)); });
  r.add([](std::vector<Family>& out) { out.push_back(gauge("b", "b").add({}, 7)); });
  std::string want1 =
      "# HELP a_total a\n# TYPE a_total counter\na_total 1\n# HELP b b\n# TYPE b gauge\nb 7\n";
  EXPECT_EQ(r.scrape(), want1);
  EXPECT_NE(r.scrape().find("a_total 2\n"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::metrics

// The lab's side of Prometheus without a server: the scrape config it writes,
// durations as Prometheus writes them, the HTTP API's answers decoded (as
// Debian's prometheus 2.x writes them, and malformed ones as errors), the ports
// the metrics listeners get, and the scenario's `metrics:` key.
#include "lab/measure/prometheus.h"

#include <gtest/gtest.h>

#include <cmath>

#include "lab/measure/prometheus_api.h"
#include "lab/run/case_metrics.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

TEST(Prometheus, ConfigHasOneJobPerKindAndANodeLabelPerTarget) {
  std::string y = prometheus_config({{"flowlab-switch", "s1", "127.0.0.1:9100"},
                                     {"flowlab-controller", "c0", "192.0.2.2:9101"},
                                     {"flowlab-switch", "s2", "127.0.0.1:9102"}},
                                    0.5);
  EXPECT_NE(y.find("scrape_interval: 500ms\n"), std::string::npos) << y;
  EXPECT_NE(y.find("scrape_timeout: 500ms\n"), std::string::npos) << y;
  EXPECT_NE(y.find("  - job_name: 'flowlab-controller'\n    static_configs:\n      - targets: "
                   "['192.0.2.2:9101']\n        labels: {node: 'c0'}\n"),
            std::string::npos)
      << y;
  auto sw = y.find("job_name: 'flowlab-switch'");
  ASSERT_NE(sw, std::string::npos);
  EXPECT_LT(y.find("'127.0.0.1:9100'"), y.find("'127.0.0.1:9102'"));
  EXPECT_GT(y.find("'127.0.0.1:9100'"), sw);
  EXPECT_EQ(y.find("job_name", sw + 1), std::string::npos) << "two jobs, switches last";
}

TEST(Prometheus, Durations) {
  EXPECT_EQ(prometheus_duration(1), "1s");
  EXPECT_EQ(prometheus_duration(4), "4s");
  EXPECT_EQ(prometheus_duration(0.25), "250ms");
  EXPECT_EQ(prometheus_duration(1.5), "1500ms");
}

TEST(PrometheusApi, DecodesMatricesVectorsAndTargets) {
  auto d = prom_data(
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"node":"s1"},"values":[[1733380000.5,"12"],[1733380001.5,"13.25"],[1733380002.5,"NaN"]]}]}})");
  ASSERT_TRUE(d.ok()) << d.error().message;
  auto m = prom_matrix(*d);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].labels.at("node"), "s1");
  EXPECT_EQ((*m)[0].t, (std::vector<double>{1733380000.5, 1733380001.5, 1733380002.5}));
  EXPECT_EQ((*m)[0].v[1], 13.25);
  EXPECT_TRUE(std::isnan((*m)[0].v[2]));
  EXPECT_FALSE(prom_vector(*d).ok()) << "a matrix is not a vector";

  auto v = prom_data(
      R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{"job":"flowlab-switch","node":"s2"},"value":[1733380003.1,"1733380002.9"]}]}})");
  ASSERT_TRUE(v.ok());
  auto s = prom_vector(*v);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->size(), 1u);
  EXPECT_EQ((*s)[0].v, 1733380002.9);

  auto t = prom_data(
      R"({"status":"success","data":{"activeTargets":[{"labels":{"job":"flowlab-switch","node":"s1","instance":"127.0.0.1:9100"},"health":"down","lastError":"connection refused","scrapeUrl":"http://127.0.0.1:9100/metrics"}],"droppedTargets":[]}})");
  ASSERT_TRUE(t.ok());
  auto ts = prom_targets(*t);
  ASSERT_TRUE(ts.ok()) << ts.error().message;
  ASSERT_EQ(ts->size(), 1u);
  EXPECT_EQ((*ts)[0].health, "down");
  EXPECT_EQ((*ts)[0].last_error, "connection refused");
  EXPECT_EQ((*ts)[0].labels.at("node"), "s1");
}

TEST(PrometheusApi, ErrorsAndMalformedAnswersAreErrorValues) {
  auto e = prom_data(R"({"status":"error","errorType":"bad_data","error":"parse error at char 5"})");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("bad_data: parse error at char 5"), std::string::npos)
      << e.error().message;
  EXPECT_FALSE(prom_data("not json").ok());
  EXPECT_FALSE(prom_data("[1,2]").ok());
  EXPECT_FALSE(prom_data(R"({"status":"success"})").ok());
  for (const char* bad : {
           R"({"resultType":"matrix","result":[{"metric":{"node":1},"values":[]}]})",
           R"({"resultType":"matrix","result":[{"metric":{},"values":[[1,2]]}]})",
           R"({"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]})",
           R"({"resultType":"matrix","result":[{"metric":{},"values":[["1","2"]]}]})",
           R"({"resultType":"matrix","result":{}})",
           R"({"resultType":"matrix"})",
           R"({"result":[]})",
       })
    EXPECT_FALSE(prom_matrix(nlohmann::json::parse(bad)).ok()) << bad;
  EXPECT_FALSE(prom_targets(nlohmann::json::parse(R"({"activeTargets":[{"health":"up"}]})")).ok());
  EXPECT_FALSE(prom_targets(nlohmann::json::parse("[]")).ok());
}

TEST(MetricsPorts, SkipTheCasesPortsAndNeverRepeat) {
  MetricsPorts p({9100, 9102, 9090});
  EXPECT_EQ(p.next(), 9101);
  EXPECT_EQ(p.next(), 9103);
  EXPECT_EQ(p.next(), 9104);
}

constexpr const char* kScenario = R"(name: m
hosts:
  h1: {addr: 10.0.0.1/24}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: flowlab}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
)";

TEST(ScenarioMetrics, TrueOrAMapWithIntervalAndPort) {
  auto off = parse_scenario(kScenario, "m.yaml");
  ASSERT_TRUE(off.ok()) << off.error().message;
  EXPECT_FALSE(off->metrics);
  auto on = parse_scenario(std::string(kScenario) + "metrics: true\n", "m.yaml");
  ASSERT_TRUE(on.ok()) << on.error().message;
  EXPECT_TRUE(on->metrics);
  EXPECT_EQ(on->metrics_interval_s, 1);
  EXPECT_EQ(on->metrics_port, 9090);
  auto map = parse_scenario(std::string(kScenario) + "metrics: {interval: 500ms, port: 9190}\n", "m.yaml");
  ASSERT_TRUE(map.ok()) << map.error().message;
  EXPECT_TRUE(map->metrics);
  EXPECT_EQ(map->metrics_interval_s, 0.5);
  EXPECT_EQ(map->metrics_port, 9190);
}

TEST(ScenarioMetrics, BadValuesNameTheLine) {
  auto expect_error = [](const std::string& tail, const std::string& want) {
    auto r = parse_scenario(std::string(kScenario) + tail, "m.yaml");
    ASSERT_FALSE(r.ok()) << tail;
    EXPECT_NE(r.error().message.find(want), std::string::npos) << r.error().message;
  };
  expect_error("metrics: maybe\n", "m.yaml:10: key 'metrics'");
  expect_error("metrics: {interval: 10ms}\n", "m.yaml:10: key 'interval': expected a scrape interval");
  expect_error("metrics: {port: 70000}\n", "key 'port': expected a TCP port");
  expect_error("metrics: {every: 1s}\n", "every");
  expect_error("metrics: [1]\n", "key 'metrics'");
}

}  // namespace
}  // namespace flowlab::lab

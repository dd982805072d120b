// `--metrics` on `flowlab switch` and `flowlab controller` (issue 26, metrics):
// two namespace hosts on veths to a flowlab switch, a learning-switch
// controller, both with /metrics on loopback ports free for this run. Every
// scrape is fetched with curl and checked line by line against the text format
// (HELP/TYPE before samples, names, labels, values); counters move after a
// ping. A metrics port in use exits 2 naming --metrics; clients that hang up
// mid-answer leave the switch scraping and forwarding; a real Prometheus
// server (Debian's prometheus) scrapes the switch and its HTTP API answers
// of_packet_ins_total with the switch's own count.
// Needs root and curl (and /usr/bin/prometheus for the last test); skips otherwise.
#include <gtest/gtest.h>
#include <netinet/tcp.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "switch_topology.h"

namespace flowlab::switch_interop {
namespace {

using Series = std::map<std::string, double>;  // "name{labels}" as written -> value

// Parses a scrape; an empty result and a message in *why when a line is not the format.
Series parse_exposition(const std::string& text, std::string* why) {
  static const std::regex kSample(
      R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*",?)*\})? ([-+0-9.eE]+|\+Inf|-Inf|NaN)$)");
  static const std::regex kType(
      R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$)");
  Series out;
  std::map<std::string, std::string> types;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.starts_with("# HELP ")) continue;
    if (line.starts_with("# TYPE ")) {
      if (!std::regex_match(line, m, kType)) return *why = "bad TYPE line: " + line, Series{};
      types[m[1]] = m[2];
      continue;
    }
    if (!std::regex_match(line, m, kSample)) return *why = "bad sample line: " + line, Series{};
    std::string name = m[1];
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"})
      if (!types.count(family) && name.ends_with(suffix))
        family = name.substr(0, name.size() - strlen(suffix));
    if (!types.count(family)) return *why = "sample before its TYPE: " + line, Series{};
    out[line.substr(0, line.rfind(' '))] = std::stod(line.substr(line.rfind(' ') + 1));
  }
  if (out.empty()) *why = "no samples";
  return out;
}

class MetricsRun {
 public:
  explicit MetricsRun(const std::string& tag) : hosts_(tag) {
    dir_ = "/tmp/flowlab-metrics-" + std::to_string(::getpid()) + "-" + tag;
    std::filesystem::create_directories(dir_);
  }
  ~MetricsRun() {
    sw_.reset();
    ctl_.reset();
    std::filesystem::remove_all(dir_);
  }
  bool hosts_ok() const { return hosts_.ok(); }
  const TwoHosts& hosts() const { return hosts_; }
  const std::string& dir() const { return dir_; }
  uint16_t switch_metrics() const { return sw_metrics_; }
  uint16_t controller_metrics() const { return ctl_metrics_; }

  ::testing::AssertionResult start() {
    ctl_port_ = free_tcp_port();
    ctl_metrics_ = free_tcp_port();
    sw_metrics_ = free_tcp_port();
    if (!ctl_port_ || ctl_port_ == ctl_metrics_ || ctl_metrics_ == sw_metrics_ || ctl_port_ == sw_metrics_)
      return ::testing::AssertionFailure() << "no free TCP ports";
    ctl_ = std::make_unique<Process>(
        std::vector<std::string>{FLOWLAB_BINARY, "controller", "--listen",
                                 "ptcp:" + std::to_string(ctl_port_) + ":127.0.0.1", "--app",
                                 "learning-switch", "--topology", "on", "--metrics",
                                 "127.0.0.1:" + std::to_string(ctl_metrics_)},
        dir_ + "/controller.log");
    if (!eventually([&] { return tcp_listening(ctl_port_) && tcp_listening(ctl_metrics_); }, 10s))
      return ::testing::AssertionFailure() << "controller did not listen: " << ctl_->log();
    sw_ = std::make_unique<Process>(
        std::vector<std::string>{FLOWLAB_BINARY, "switch", "--name", "s1", "--dpid", "0x1", "--port",
                                 hosts_.port1(), "--port", hosts_.port2(), "--controller",
                                 "tcp:127.0.0.1:" + std::to_string(ctl_port_), "--metrics",
                                 "127.0.0.1:" + std::to_string(sw_metrics_)},
        dir_ + "/switch.log");
    if (!eventually([&] { return ctl_->log().find("switch up") != std::string::npos; }, 15s))
      return ::testing::AssertionFailure() << "the switch did not come up: " << sw_->log();
    if (!eventually([&] { return tcp_listening(sw_metrics_); }, 5s))
      return ::testing::AssertionFailure() << "switch metrics did not listen: " << sw_->log();
    return ::testing::AssertionSuccess();
  }

  // GET /metrics with curl; the parsed samples (the test fails on a bad line).
  Series scrape(uint16_t port, std::string* raw = nullptr) const {
    int st = -1;
    std::string text =
        run_output("curl -s -m 10 -f http://127.0.0.1:" + std::to_string(port) + "/metrics", &st);
    EXPECT_EQ(st, 0) << text;
    if (raw) *raw = text;
    std::string why;
    Series s = parse_exposition(text, &why);
    EXPECT_FALSE(s.empty()) << why << "\n" << text;
    return s;
  }
  bool switch_running() { return sw_ && sw_->running(); }

 private:
  TwoHosts hosts_;
  std::string dir_;
  uint16_t ctl_port_ = 0, ctl_metrics_ = 0, sw_metrics_ = 0;
  std::unique_ptr<Process> ctl_, sw_;
};

#define METRICS_PREREQS()                                             \
  if (!is_root()) GTEST_SKIP() << "needs root (namespaces, veths)";   \
  if (!have("/usr/bin/curl")) GTEST_SKIP() << "needs curl";           \
  MetricsRun run(test_tag());                                         \
  ASSERT_TRUE(run.hosts_ok()) << "could not create namespaces/veths"; \
  ASSERT_TRUE(run.start())

std::string test_tag() {
  std::string n = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return "m" + std::to_string(std::hash<std::string>{}(n) % 1000);
}

double get(const Series& s, const std::string& key) {
  auto it = s.find(key);
  return it == s.end() ? -1 : it->second;
}

TEST(Metrics, SwitchAndControllerCountersMoveAfterPing) {
  METRICS_PREREQS();
  const std::string dp = "dp_id=\"0x1\",dp_name=\"s1\"";
  const std::string rx1 = "of_port_rx_packets{" + dp + ",port=\"" + run.hosts().port1() + "\",port_no=\"1\"}";
  Series sw0 = run.scrape(run.switch_metrics());
  Series ctl0 = run.scrape(run.controller_metrics());
  ASSERT_GE(get(sw0, rx1), 0) << "no " << rx1;
  EXPECT_EQ(get(sw0, "dp_status{" + dp + "}"), 1);
  EXPECT_EQ(get(ctl0, "of_dp_connections_total"), 1);
  EXPECT_EQ(get(ctl0, "of_dp_disconnections_total"), 0);
  EXPECT_EQ(get(ctl0, "dp_status{dp_id=\"0x1\"}"), 1);

  ASSERT_TRUE(run.hosts().ping(5));
  Series sw1 = run.scrape(run.switch_metrics());
  Series ctl1 = run.scrape(run.controller_metrics());
  EXPECT_GE(get(sw1, rx1), get(sw0, rx1) + 5) << "ping's 5 requests (and ARP) were received on port 1";
  EXPECT_GT(get(sw1, "of_packet_ins_total{" + dp + "}"), get(sw0, "of_packet_ins_total{" + dp + "}"));
  EXPECT_GT(get(sw1, "flowlab_table_flows{" + dp + ",table_id=\"0\"}"), 1) << "learned flows installed";
  EXPECT_GT(get(ctl1, "of_packet_ins_total"), get(ctl0, "of_packet_ins_total"));
  EXPECT_GT(get(ctl1, "of_flowmsgs_sent_total"), get(ctl0, "of_flowmsgs_sent_total"));
  EXPECT_GT(get(ctl1, "faucet_packet_in_secs_count"), 0);
  EXPECT_EQ(get(ctl1, "faucet_packet_in_secs_bucket{le=\"+Inf\"}"), get(ctl1, "faucet_packet_in_secs_count"));
  EXPECT_EQ(get(ctl1, "port_status{dp_id=\"0x1\",port=\"" + run.hosts().port1() + "\",port_no=\"1\"}"), 1);
  EXPECT_GE(get(ctl1, "flowlab_hosts_learned"), 2) << "h1 and h2 seen in packet-ins";
}

TEST(Metrics, PortInUseExitsTwoAndHangUpsHarmNothing) {
  METRICS_PREREQS();
  // The switch's metrics port is busy: another switch and a controller on it exit 2.
  std::string busy = "127.0.0.1:" + std::to_string(run.switch_metrics());
  std::string tap = "fl" + test_tag() + "t" + std::to_string(::getpid() % 10000);
  int st = -1;
  std::string out = run_output(std::string("timeout 20 ") + FLOWLAB_BINARY +
                                   " switch --name s9 --port tap:" + tap + " --metrics " + busy,
                               &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("--metrics " + busy), std::string::npos) << out;
  EXPECT_NE(out.find("in use"), std::string::npos) << out;
  out = run_output(std::string("timeout 20 ") + FLOWLAB_BINARY +
                       " controller --app hub --listen ptcp:0:127.0.0.1 --metrics " + busy,
                   &st);
  EXPECT_EQ(st, 2) << out;
  EXPECT_NE(out.find("--metrics"), std::string::npos) << out;
  out = run_output(
      std::string("timeout 20 ") + FLOWLAB_BINARY + " switch --port tap:" + tap + " --metrics nonsense", &st);
  EXPECT_EQ(st, 2) << out;

  // Clients that read a little of the answer and reset the connection.
  for (int i = 0; i < 50; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(run.switch_metrics());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    int rcvbuf = 1024;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    std::string req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_EQ(::write(fd, req.data(), req.size()), ssize_t(req.size()));
    char buf[64];
    if (i % 2) (void)!::read(fd, buf, sizeof buf);
    linger l{1, 0};  // close with RST: the server's send fails mid-answer
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    ::close(fd);
  }
  EXPECT_TRUE(run.switch_running());
  Series s = run.scrape(run.switch_metrics());
  EXPECT_GT(s.size(), 20u);
  EXPECT_TRUE(run.hosts().ping(2)) << "the switch forwards after the hang-ups";
}

TEST(Metrics, PrometheusScrapesTheSwitch) {
  if (!have("/usr/bin/prometheus")) GTEST_SKIP() << "needs /usr/bin/prometheus (Debian's prometheus)";
  METRICS_PREREQS();
  ASSERT_TRUE(run.hosts().ping(3));
  uint16_t prom_port = free_tcp_port();
  std::string config = run.dir() + "/prometheus.yml";
  {
    std::ofstream f(config);
    f << "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
      << "scrape_configs:\n  - job_name: flowlab-switch\n    static_configs:\n"
      << "      - targets: ['127.0.0.1:" << run.switch_metrics() << "']\n";
  }
  Process prom(
      {"/usr/bin/prometheus", "--config.file=" + config, "--storage.tsdb.path=" + run.dir() + "/tsdb",
       "--web.listen-address=127.0.0.1:" + std::to_string(prom_port)},
      run.dir() + "/prometheus.log");
  ASSERT_TRUE(eventually([&] { return tcp_listening(prom_port); }, 20s)) << prom.log();
  const std::string key = "of_packet_ins_total{dp_id=\"0x1\",dp_name=\"s1\"}";
  double prom_value = -1, switch_value = -2;
  std::string reply;
  // The switch's own count, read directly, and what Prometheus stored: equal once
  // a scrape after the last packet-in has landed (the hosts are quiet by then).
  eventually(
      [&] {
        reply = run_output("curl -s -m 5 'http://127.0.0.1:" + std::to_string(prom_port) +
                           "/api/v1/query?query=of_packet_ins_total'");
        auto j = nlohmann::json::parse(reply, nullptr, false);
        if (j.is_discarded() || j.value("status", "") != "success" || j["data"]["result"].empty())
          return false;
        const auto& r = j["data"]["result"][0];
        if (r["metric"].value("job", "") != "flowlab-switch" || r["metric"].value("dp_name", "") != "s1")
          return false;
        prom_value = std::stod(r["value"][1].get<std::string>());
        switch_value = get(run.scrape(run.switch_metrics()), key);
        return prom_value == switch_value;
      },
      30s);
  EXPECT_GT(prom_value, 0) << reply << "\n" << prom.log();
  EXPECT_EQ(prom_value, switch_value) << reply;
}

}  // namespace
}  // namespace flowlab::switch_interop

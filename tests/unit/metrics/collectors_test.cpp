// The switch's and controller's families read from real counters: a switch on
// in-memory ports forwarding in fail-mode standalone, controller statistics
// and a topology view; /metrics answered without sockets and over loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "metrics/controller_metrics.h"
#include "metrics/metrics_server.h"
#include "metrics/switch_metrics.h"
#include "packet/builder.h"
#include "port/memory_port.h"

namespace flowlab::metrics {
namespace {

using namespace std::chrono_literals;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(HistogramSeconds, CumulativeBucketsFromLog2Nanoseconds) {
  controller::LatencyHistogram h;
  h.record(1500);               // bucket 10: [1024, 2048) ns
  h.record(3000);               // bucket 11
  h.record(3000);               // bucket 11
  h.record(100);                // bucket 6: below the first bound (1024 ns)
  h.record(uint64_t(1) << 36);  // bucket 36: above the last bound (2^34 ns)
  HistogramSample s = histogram_seconds(h, {{"event", "packet_in"}});
  ASSERT_EQ(s.buckets.size(), 25u);
  EXPECT_DOUBLE_EQ(s.buckets[0].first, 1024e-9);
  EXPECT_EQ(s.buckets[0].second, 1u);  // < 1024 ns: the 100 ns one
  EXPECT_EQ(s.buckets[1].second, 2u);  // < 2048 ns
  EXPECT_EQ(s.buckets[2].second, 4u);  // < 4096 ns
  EXPECT_EQ(s.buckets.back().second, 4u);
  EXPECT_DOUBLE_EQ(s.buckets.back().first, double(uint64_t(1) << 34) * 1e-9);
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.sum, double(1500 + 6000 + 100 + (uint64_t(1) << 36)) * 1e-9);
}

class FakeTopology final : public controller::topology::TopologyView {
 public:
  std::vector<controller::topology::SwitchView> switches() const override {
    controller::topology::SwitchView s;
    s.dpid = 0x2a;
    s.ports = {{0x2a, 1, "s1-eth1", {}, true}, {0x2a, 2, "s1-eth2", {}, false}};
    return {s};
  }
  std::optional<controller::topology::SwitchView> switch_at(uint64_t) const override { return {}; }
  std::vector<controller::topology::LinkView> links() const override { return {{1, 2, 3, 4}, {3, 4, 1, 2}}; }
  std::vector<controller::topology::HostView> hosts() const override {
    controller::topology::HostView h;
    h.mac = *MacAddr::parse("00:00:00:00:01:02");
    h.dpid = 0x2a;
    h.port_no = 1;
    return {h};
  }
};

TEST(ControllerMetrics, FamiliesFromStatsAndTopology) {
  controller::ControllerStats st;
  st.packet_in_received = 10;
  st.packet_in_lldp = 4;
  st.packet_in_answered = 9;
  st.packet_in_dropped = 1;
  st.flow_mod_sent = 3;
  st.packet_out_sent = 9;
  st.switches_seen = 3;
  st.switches_connected = 1;
  st.handling[size_t(controller::EventKind::kPacketIn)].record(5000);
  FakeTopology topo;
  std::vector<Family> out;
  collect_controller(st, topo, "master", out);
  std::string text = write_text(out);
  EXPECT_TRUE(contains(text, "\nof_packet_ins_total 14\n")) << text;
  EXPECT_TRUE(contains(text, "\nof_flowmsgs_sent_total 12\n"));
  EXPECT_TRUE(contains(text, "\nof_dp_connections_total 3\n"));
  EXPECT_TRUE(contains(text, "\nof_dp_disconnections_total 2\n"));
  EXPECT_TRUE(contains(text, "\nflowlab_packet_ins_total{outcome=\"answered\"} 9\n"));
  EXPECT_TRUE(contains(text, "\nflowlab_controller_role_info{role=\"master\"} 1\n"));
  EXPECT_TRUE(contains(text, "# TYPE faucet_packet_in_secs histogram\n"));
  EXPECT_TRUE(contains(text, "\nfaucet_packet_in_secs_bucket{le=\"4.096e-06\"} 0\n")) << text;
  EXPECT_TRUE(contains(text, "\nfaucet_packet_in_secs_bucket{le=\"8.192e-06\"} 1\n"));
  EXPECT_TRUE(contains(text, "\nfaucet_packet_in_secs_count 1\n"));
  EXPECT_TRUE(contains(text, "\nflowlab_event_handling_seconds_count{event=\"packet_in\"} 1\n"));
  EXPECT_TRUE(contains(text, "\ndp_status{dp_id=\"0x2a\"} 1\n"));
  EXPECT_TRUE(contains(text, "\nport_status{dp_id=\"0x2a\",port=\"s1-eth1\",port_no=\"1\"} 1\n"));
  EXPECT_TRUE(contains(text, "\nport_status{dp_id=\"0x2a\",port=\"s1-eth2\",port_no=\"2\"} 0\n"));
  EXPECT_TRUE(contains(text, "\nlearned_macs{dp_id=\"0x2a\",port=\"1\",n=\"0\"} 258\n"));
  EXPECT_TRUE(contains(text, "\nflowlab_hosts_learned 1\n"));
  EXPECT_TRUE(contains(text, "\nflowlab_topology_links 2\n"));
}

// A switch on two memory ports, standalone (a learning switch with no controller).
struct MemorySwitch {
  MemoryPort* p1 = nullptr;
  MemoryPort* p2 = nullptr;
  std::unique_ptr<sw::Switch> sw;
  MemorySwitch() {
    sw::SwitchOptions o;
    o.name = "m1";
    o.dpid = 0x11;
    o.fail_mode = sw::FailMode::kStandalone;
    std::vector<std::unique_ptr<Port>> ports;
    auto a = std::make_unique<MemoryPort>("mem1");
    auto b = std::make_unique<MemoryPort>("mem2");
    a->set_link(true);
    b->set_link(true);
    a->set_port_no(1);
    b->set_port_no(2);
    p1 = a.get();
    p2 = b.get();
    ports.push_back(std::move(a));
    ports.push_back(std::move(b));
    auto s = sw::Switch::create(o, std::move(ports));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    sw = std::move(*s);
    EXPECT_TRUE(sw->start().ok());
  }
  ~MemorySwitch() { sw->stop(); }
};

TEST(SwitchMetrics, PortCountersMoveWithTraffic) {
  MemorySwitch m;
  Registry r;
  add_switch_collector(r, *m.sw);
  std::string before = r.scrape();
  EXPECT_TRUE(
      contains(before, "\nof_port_rx_packets{dp_id=\"0x11\",dp_name=\"m1\",port=\"mem1\",port_no=\"1\"} 0\n"))
      << before;
  EXPECT_TRUE(
      contains(before, "\nflowlab_datapath_info{dp_id=\"0x11\",dp_name=\"m1\",datapath=\"af-packet\"} 1\n"));
  EXPECT_TRUE(contains(before, "\nflowlab_table_flows{dp_id=\"0x11\",dp_name=\"m1\",table_id=\"0\"} 0\n"));
  EXPECT_TRUE(contains(before, "\ndp_status{dp_id=\"0x11\",dp_name=\"m1\"} 0\n"));
  Bytes f = FrameBuilder()
                .eth(*MacAddr::parse("00:00:00:00:00:02"), *MacAddr::parse("00:00:00:00:00:01"))
                .ipv4(*Ipv4Addr::parse("10.0.0.1"), *Ipv4Addr::parse("10.0.0.2"))
                .udp(1, 2)
                .payload(18)
                .build();
  for (int i = 0; i < 5; ++i) m.p1->inject(f);
  std::string after;
  for (int tries = 0; tries < 200; ++tries) {
    after = r.scrape();
    if (contains(after, "port=\"mem1\",port_no=\"1\"} 5\n") &&
        contains(after, "port=\"mem2\",port_no=\"2\"} 5\n"))
      break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_TRUE(
      contains(after, "\nof_port_rx_packets{dp_id=\"0x11\",dp_name=\"m1\",port=\"mem1\",port_no=\"1\"} 5\n"))
      << after;
  EXPECT_TRUE(
      contains(after, "\nof_port_tx_packets{dp_id=\"0x11\",dp_name=\"m1\",port=\"mem2\",port_no=\"2\"} 5\n"));
  EXPECT_TRUE(contains(
      after,
      fmt::format("\nof_port_rx_bytes{{dp_id=\"0x11\",dp_name=\"m1\",port=\"mem1\",port_no=\"1\"}} {}\n",
                  5 * f.size())));
}

TEST(SwitchMetrics, StoppedSwitchAnswers503) {
  MemorySwitch m;
  Registry r;
  add_switch_collector(r, *m.sw);
  m.sw->stop();
  rest::HttpResponse a = MetricsServer::answer(r, "GET", "/metrics");
  EXPECT_EQ(a.status, 503);
  EXPECT_TRUE(contains(a.body, "agent thread"));
}

TEST(MetricsServer, AnswersMetricsOnlyAndDescribesThePortInUse) {
  Registry r;
  r.add([](std::vector<Family>& out) { out.push_back(gauge("up", "1").add({}, 1)); });
  rest::HttpResponse ok = MetricsServer::answer(r, "GET", "/metrics");
  EXPECT_EQ(ok.status, 200);
  EXPECT_EQ(ok.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(ok.body, "# HELP up 1\n# TYPE up gauge\nup 1\n");
  EXPECT_EQ(MetricsServer::answer(r, "GET", "/").status, 404);
  EXPECT_EQ(MetricsServer::answer(r, "POST", "/metrics").status, 405);

  MetricsServer s(r);
  ASSERT_TRUE(s.start("127.0.0.1:0").ok());
  MetricsServer busy(r);
  Status st = busy.start(fmt::format("127.0.0.1:{}", s.port()));
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(contains(st.error().message, "--metrics")) << st.error().message;
  EXPECT_TRUE(contains(st.error().message, "in use")) << st.error().message;

  // A client that sends a request and closes at once, many times: the server
  // goes on answering the next one.
  auto connect = [&] {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(s.port());
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    return fd;
  };
  const std::string req = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  for (int i = 0; i < 20; ++i) {
    int fd = connect();
    (void)!::write(fd, req.data(), req.size());
    ::close(fd);
  }
  int fd = connect();
  const std::string close_req = "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_EQ(::write(fd, close_req.data(), close_req.size()), ssize_t(close_req.size()));
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
  ::close(fd);
  EXPECT_TRUE(got.starts_with("HTTP/1.1 200 OK\r\n")) << got;
  EXPECT_TRUE(contains(got, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_TRUE(got.ends_with("\r\n\r\n# HELP up 1\n# TYPE up gauge\nup 1\n"));
}

}  // namespace
}  // namespace flowlab::metrics

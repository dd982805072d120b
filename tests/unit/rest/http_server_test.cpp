// HttpServer on loopback: bytes over a real TCP connection to a RestApi over
// empty fakes. Keep-alive and pipelining on one connection, curl's 100-continue,
// a chunked body reaching the API, malformed requests answered and closed, and
// stop() returning while a client holds an idle connection open.
#include "rest/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "loopback_client.h"

namespace flowlab::rest {
namespace {

class NoSwitches : public SwitchAccess {
 public:
  std::vector<SwitchSummary> switches() const override { return {}; }
  std::optional<SwitchSummary> find(uint64_t) const override { return std::nullopt; }
  HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t, of::MultipartRequestBody) override {
    return http_fail(504, "no reply");
  }
  HttpStatus modify(uint64_t, of::MessageBody) override { return {}; }
};

class NoTopology : public TopologySource {
 public:
  std::vector<TopoSwitch> switches() const override { return {}; }
  std::vector<TopoLink> links() const override { return {}; }
  std::vector<TopoHost> hosts() const override { return {}; }
};

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server.start("127.0.0.1:0").ok()); }
  int connect_client() const { return testing::connect_to(server.port()); }
  static void send_text(int fd, const std::string& s) { ASSERT_TRUE(testing::send_text(fd, s)); }
  static std::string read_until(int fd, const std::string& want, bool* closed = nullptr) {
    return testing::read_until(fd, want, closed);
  }
  NoSwitches sw;
  NoTopology topo;
  RestApi api{sw, topo, [] { return Json{{"packet_in", {{"received", 3}}}}; }};
  HttpServer server{api};
};

TEST_F(HttpServerTest, KeepAliveAndPipelinedRequestsOnOneConnection) {
  int fd = connect_client();
  send_text(fd, "GET /stats/switches HTTP/1.1\r\nHost: x\r\n\r\n");
  std::string a = read_until(fd, "[]");
  EXPECT_EQ(a.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << a;
  EXPECT_NE(a.find("Content-Length: 2\r\n"), std::string::npos) << a;
  // Two more in one write, on the same connection.
  send_text(fd, "GET /v1/stats HTTP/1.1\r\n\r\nGET /stats/nothing/1 HTTP/1.1\r\n\r\n");
  std::string b = read_until(fd, "no such endpoint");
  EXPECT_NE(b.find("\"received\":3"), std::string::npos) << b;
  EXPECT_NE(b.find("HTTP/1.1 404 Not Found"), std::string::npos) << b;
  EXPECT_LT(b.find("received"), b.find("404")) << "answered in order";
  ::close(fd);
}

TEST_F(HttpServerTest, ExpectContinueThenTheBodyReachesTheApi) {
  int fd = connect_client();
  std::string body = R"({"dpid": 99, "match": {}, "cookie": 0})" + std::string(1200, ' ');
  send_text(fd, "POST /stats/flowentry/add HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: " +
                    std::to_string(body.size()) + "\r\n\r\n");
  std::string c = read_until(fd, "\r\n\r\n");
  EXPECT_EQ(c, "HTTP/1.1 100 Continue\r\n\r\n");
  send_text(fd, body);
  std::string r = read_until(fd, "dpid 99");
  EXPECT_NE(r.find("HTTP/1.1 404"), std::string::npos) << r;
  ::close(fd);
}

TEST_F(HttpServerTest, ChunkedBodyReachesTheApi) {
  int fd = connect_client();
  send_text(fd,
            "POST /stats/flowentry/add HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            "8\r\n{\"dpid\":\r\n4\r\n 77}\r\n0\r\n\r\n");
  std::string r = read_until(fd, "dpid 77");
  EXPECT_NE(r.find("HTTP/1.1 404"), std::string::npos) << r;
  ::close(fd);
}

TEST_F(HttpServerTest, MalformedRequestIsAnsweredAndClosed) {
  int fd = connect_client();
  send_text(fd, "NOT HTTP AT ALL\r\n\r\n");
  bool closed = false;
  std::string r = read_until(fd, "\x01", &closed);
  EXPECT_EQ(r.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("Connection: close"), std::string::npos) << r;
  EXPECT_NE(r.find("\"status\":400"), std::string::npos) << r;
  EXPECT_TRUE(closed);
  ::close(fd);
  // The server still answers.
  int fd2 = connect_client();
  send_text(fd2, "GET /stats/switches HTTP/1.1\r\nConnection: close\r\n\r\n");
  r = read_until(fd2, "[]");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK", 0), 0u) << r;
  ::close(fd2);
}

TEST_F(HttpServerTest, StopReturnsWhileAClientHoldsAnIdleConnection) {
  int idle = connect_client();
  int half = connect_client();
  send_text(half, "GET /stats/switc");  // a request begun, never finished
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto t0 = std::chrono::steady_clock::now();
  server.stop();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 4.0)
      << "under the 5 s timeouts: stop() shuts the connections down instead of waiting for their timeouts";
  bool closed = false;
  read_until(idle, "\x01", &closed);
  EXPECT_TRUE(closed);
  ::close(idle);
  ::close(half);
}

TEST(HttpServer, BindErrorsNameTheAddress) {
  NoSwitches sw;
  NoTopology topo;
  RestApi api{sw, topo, [] { return Json::object(); }};
  HttpServer a{api};
  ASSERT_TRUE(a.start("127.0.0.1:0").ok());
  HttpServer b{api};
  auto st = b.start("127.0.0.1:" + std::to_string(a.port()));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("cannot bind 127.0.0.1 port"), std::string::npos) << st.error().message;
  auto bad = b.start("no-such-host.invalid:80");
  ASSERT_FALSE(bad.ok());
}

}  // namespace
}  // namespace flowlab::rest

// HttpServer's sessions on loopback with a handler of the test's own: a request
// dribbled a byte at a time, blank lines before a request, heads over the limit,
// a client that closes mid-answer, the 65th connection, a handler that blocks
// without holding up other connections, and stop() with 64 idle connections.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "loopback_client.h"
#include "rest/http_server.h"

namespace flowlab::rest {
namespace {

using testing::connect_to;
using testing::read_until;
using testing::send_text;

// One request on a new connection, closed after; the answer's text.
std::string ask(uint16_t port, std::string_view path) {
  int fd = connect_to(port);
  send_text(fd, "GET " + std::string(path) + " HTTP/1.1\r\nConnection: close\r\n\r\n");
  bool closed = false;
  std::string r = read_until(fd, "\x01", &closed);
  ::close(fd);
  return r;
}

// Answers "/big" with 16 MB, "/wait" once "/release" was asked (or "timeout"
// after 3 s), anything else with its own path.
class HttpSessionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server.start("127.0.0.1:0").ok()); }
  HttpResponse handle(std::string_view path) {
    if (path == "/big") return {200, std::string(16 << 20, 'x'), "text/plain"};
    if (path == "/release") {
      released.set_value();
      return {200, "released", "text/plain"};
    }
    if (path == "/wait") {
      bool in_time = waiting.wait_for(std::chrono::seconds(3)) == std::future_status::ready;
      return {200, in_time ? "after release" : "timeout", "text/plain"};
    }
    return {200, std::string(path), "text/plain"};
  }
  std::promise<void> released;
  std::shared_future<void> waiting = released.get_future().share();
  HttpServer server{
      [this](std::string_view, std::string_view path, std::string_view) { return handle(path); }, "--test",
      "test server"};
};

TEST_F(HttpSessionTest, TwoRequestsOneAfterTheOtherOnOneKeptAliveConnection) {
  int fd = connect_to(server.port());
  ASSERT_TRUE(send_text(fd, "GET /one HTTP/1.1\r\n\r\n"));
  std::string a = read_until(fd, "/one");
  EXPECT_EQ(a, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\n/one");
  ASSERT_TRUE(send_text(fd, "GET /two HTTP/1.1\r\n\r\n"));
  bool closed = false;
  std::string b = read_until(fd, "/two", &closed);
  EXPECT_EQ(b, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\n/two");
  EXPECT_FALSE(closed);
  ::close(fd);
}

TEST_F(HttpSessionTest, ARequestSplitOverManyWritesIsAnsweredOnce) {
  int fd = connect_to(server.port());
  std::string req = "\r\nGET /split/path HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello";
  for (char c : req) {
    ASSERT_TRUE(send_text(fd, std::string_view(&c, 1)));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  std::string r = read_until(fd, "/split/path");
  EXPECT_EQ(r.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("\r\n\r\n/split/path"), std::string::npos) << r;
  // Nothing more: one answer for one request.
  pollfd p{fd, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 200), 0);
  ::close(fd);
}

TEST_F(HttpSessionTest, HeadsOverTheLimitAndOtherVersionsAreRefusedWithTheirStatus) {
  int fd = connect_to(server.port());
  // A header line that never ends: 431 once it passes 16 KB, not a wait for more.
  send_text(fd, "GET / HTTP/1.1\r\nX-Long: " + std::string(20000, 'a'));
  bool closed = false;
  std::string r = read_until(fd, "\x01", &closed);
  EXPECT_EQ(r.rfind("HTTP/1.1 431 Request Header Fields Too Large\r\n", 0), 0u) << r.substr(0, 200);
  EXPECT_TRUE(closed);
  ::close(fd);
  fd = connect_to(server.port());
  send_text(fd, "GET / HTTP/2.0\r\n\r\n");
  r = read_until(fd, "}");
  EXPECT_EQ(r.rfind("HTTP/1.1 505 HTTP Version Not Supported\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("HTTP/2.0 is not supported"), std::string::npos) << r;
  ::close(fd);
  fd = connect_to(server.port());
  send_text(fd, "POST / HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n");
  r = read_until(fd, "}");
  EXPECT_EQ(r.rfind("HTTP/1.1 413 Content Too Large\r\n", 0), 0u) << r;
  ::close(fd);
}

TEST_F(HttpSessionTest, AClientClosingMidAnswerEndsOnlyItsConnection) {
  for (int i = 0; i < 3; ++i) {
    int fd = connect_to(server.port());
    int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    send_text(fd, "GET /big HTTP/1.1\r\n\r\n");
    std::string part = read_until(fd, "xxxx");
    EXPECT_EQ(part.rfind("HTTP/1.1 200 OK\r\n", 0), 0u);
    EXPECT_NE(part.find("Content-Length: 16777216\r\n"), std::string::npos);
    linger reset{1, 0};  // close with a RST while the server is still writing
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::close(fd);
  }
  // Their slots were given back: 64 connections at once are all served.
  std::vector<int> fds;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  std::string last;
  for (;;) {
    for (int fd : fds) ::close(fd);
    fds.clear();
    for (int i = 0; i < 64; ++i) fds.push_back(connect_to(server.port()));
    send_text(fds.back(), "GET /last HTTP/1.1\r\n\r\n");
    last = read_until(fds.back(), "/last");
    if (last.find("200 OK") != std::string::npos || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a RST not yet seen by the server
  }
  EXPECT_EQ(last.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << last;
  for (int fd : fds) ::close(fd);
}

TEST_F(HttpSessionTest, TheSixtyFifthConnectionIsAnswered503AndClosed) {
  std::vector<int> fds;
  for (int i = 0; i < 64; ++i) fds.push_back(connect_to(server.port()));
  // The 64 are served (the last one asks to be sure all were accepted before).
  send_text(fds.back(), "GET /64th HTTP/1.1\r\n\r\n");
  EXPECT_NE(read_until(fds.back(), "/64th").find("200 OK"), std::string::npos);
  int extra = connect_to(server.port());
  bool closed = false;
  std::string r = read_until(extra, "\x01", &closed);
  EXPECT_EQ(r.rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u) << r;
  EXPECT_NE(r.find("too many connections"), std::string::npos) << r;
  EXPECT_NE(r.find("Connection: close"), std::string::npos) << r;
  EXPECT_TRUE(closed);
  ::close(extra);
  // One of the 64 leaves; a new connection gets its place.
  ::close(fds.front());
  fds.erase(fds.begin());
  std::string again;
  for (int tries = 0; tries < 60 && again.find("200 OK") == std::string::npos; ++tries) {
    again = ask(server.port(), "/again");
    if (again.find("200 OK") == std::string::npos) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(again.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << again;
  for (int fd : fds) ::close(fd);
}

TEST_F(HttpSessionTest, AHandlerThatBlocksHoldsUpOnlyItsOwnConnection) {
  int waiting_fd = connect_to(server.port());
  send_text(waiting_fd, "GET /wait HTTP/1.1\r\n\r\n");
  // While /wait's handler blocks, another connection is read, handled and answered.
  EXPECT_NE(ask(server.port(), "/release").find("\r\n\r\nreleased"), std::string::npos);
  std::string r = read_until(waiting_fd, "release");
  EXPECT_NE(r.find("\r\n\r\nafter release"), std::string::npos) << r;
  ::close(waiting_fd);
}

TEST_F(HttpSessionTest, StopClosesSixtyFourIdleConnectionsAndStopAgainDoesNothing) {
  std::vector<int> fds;
  for (int i = 0; i < 64; ++i) fds.push_back(connect_to(server.port()));
  send_text(fds[0], "GET /x HTTP/1.1\r\n\r\n");  // one has been served and is kept alive
  read_until(fds[0], "/x");
  send_text(fds[1], "GET /hal");  // one is mid-request
  server.stop();
  server.stop();
  for (int fd : fds) {
    bool closed = false;
    read_until(fd, "\x01", &closed);
    EXPECT_TRUE(closed);
    ::close(fd);
  }
  // Nothing listens any more.
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(server.port());
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_NE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ::close(fd);
}

}  // namespace
}  // namespace flowlab::rest

// `flowlab lab tcp-crr-client` / `tcp-crr-server` on loopback: every connection the
// client counts as completed is one the server served (exact counts, both modes), a
// port nobody listens on is an error with the reason, bad options exit 2 with one line
// before anything is opened, and a malformed request is counted, not served.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.h"

namespace {

using flowlab::test::CliRun;
using nlohmann::json;

CliRun lab(const std::string& args) { return flowlab::test::run_flowlab("lab", args); }

// A loopback port bound by a socket that never listens: nothing can take it meanwhile,
// and a connection to it is refused.
class ReservedPort {
 public:
  ReservedPort() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~ReservedPort() { close(fd_); }
  ReservedPort(const ReservedPort&) = delete;
  ReservedPort& operator=(const ReservedPort&) = delete;
  int port() const { return port_; }
  // Frees the port for the server that is about to bind it.
  void release() {
    close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// Waits (up to 20 s) until something listens on the loopback port: the server under
// a sanitizer on a loaded machine takes a while to start.
bool wait_listening(int port) {
  char hex[8];
  std::snprintf(hex, sizeof hex, ":%04X", port);
  for (int i = 0; i < 400; ++i) {
    std::ifstream f("/proc/net/tcp");
    std::string line;
    while (std::getline(f, line)) {
      std::istringstream in(line);
      std::string sl, local, remote, state;
      in >> sl >> local >> remote >> state;
      if (state == "0A" && local.size() > 5 && local.substr(local.size() - 5) == hex) return true;
    }
    usleep(50'000);
  }
  return false;
}

json last_json_line(const std::string& out) {
  auto end = out.find_last_not_of('\n');
  auto begin = out.rfind('\n', end);
  return json::parse(out.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin + 1)));
}

// Runs the server for `n` connections and the client with `client_args`; both JSONs.
std::pair<json, json> run_pair(int n, const std::string& client_args) {
  ReservedPort p;
  p.release();
  const std::string port = std::to_string(p.port());
  auto server = std::async(std::launch::async, [&] {
    return lab("tcp-crr-server --port " + port + " --count " + std::to_string(n) + " --timeout 20");
  });
  EXPECT_TRUE(wait_listening(p.port()));
  CliRun c = lab("tcp-crr-client --host 127.0.0.1 --port " + port + " --count " + std::to_string(n) + " " +
                 client_args);
  CliRun s = server.get();
  EXPECT_EQ(c.status, 0) << c.out;
  EXPECT_EQ(s.status, 0) << s.out;
  if (c.status != 0 || s.status != 0) return {json::object(), json::object()};
  return {last_json_line(c.out), last_json_line(s.out)};
}

TEST(TcpCrrCli, MaxModeCompletesEveryConnectionExactly) {
  auto [c, s] = run_pair(500, "--max --parallel 8 --size 100");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c["mode"], "max");
  EXPECT_EQ(c["attempted"], 500);
  EXPECT_EQ(c["completed"], 500);
  EXPECT_EQ(c["failed"], 0);
  EXPECT_EQ(c["failures"]["refused"], 0);
  EXPECT_EQ(c["size"], 100);
  EXPECT_LE(c["max_in_flight"].get<int>(), 8);
  EXPECT_GT(c["connections_per_s"].get<double>(), 0);
  EXPECT_LE(c["latency_min_us"].get<double>(), c["latency_p50_us"].get<double>());
  EXPECT_LE(c["latency_p50_us"].get<double>(), c["latency_p99_us"].get<double>());
  EXPECT_LE(c["latency_p99_us"].get<double>(), c["latency_max_us"].get<double>());
  EXPECT_EQ(s["served"], 500);
  EXPECT_EQ(s["incomplete"], 0);
  EXPECT_EQ(s["bad_requests"], 0);
}

TEST(TcpCrrCli, RateModeCompletesEveryConnectionExactly) {
  auto [c, s] = run_pair(200, "--rate 2000 --size 1");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c["mode"], "rate");
  EXPECT_EQ(c["offered_per_s"], 2000.0);
  EXPECT_EQ(c["attempted"], 200);
  EXPECT_EQ(c["completed"], 200);
  EXPECT_EQ(c["failed"], 0);
  EXPECT_EQ(c["not_started"], 0);
  EXPECT_EQ(s["served"], 200);
}

TEST(TcpCrrCli, RefusedPortIsAnErrorWithTheReason) {
  ReservedPort p;  // bound, not listening: the kernel answers SYN with RST
  CliRun r = lab("tcp-crr-client --host 127.0.0.1 --port " + std::to_string(p.port()) + " --max --count 10");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(
      r.out.rfind(
          "flowlab lab: error: connect 127.0.0.1:" + std::to_string(p.port()) + ": Connection refused", 0),
      0u)
      << r.out;
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
}

TEST(TcpCrrCli, BadOptionsExit2WithOneLine) {
  for (const char* args : {
           "--host 10.0.0 --max --count 1",               // not an address
           "--host 127.0.0.1 --count 5",                  // neither --rate nor --max
           "--host 127.0.0.1 --rate 10 --max --count 5",  // both
           "--host 127.0.0.1 --rate -3 --count 5",        // negative rate
           "--host 127.0.0.1 --max",                      // neither --duration nor --count
           "--host 127.0.0.1 --max --count 5 --size 0",
           "--host 127.0.0.1 --max --count 5 --size 70000",
           "--host 127.0.0.1 --max --count 5 --parallel -1",
           "--host 127.0.0.1 --max --count 5 --port 70000",
           "--host 127.0.0.1 --max --count 5 --conn-timeout 0",
           "--host 127.0.0.1 --max --duration -1",
       }) {
    CliRun r = lab(std::string("tcp-crr-client ") + args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out.rfind("flowlab lab: error: ", 0), 0u) << args << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << args << ": one line: " << r.out;
  }
  CliRun unknown = lab("tcp-crr-client --host 127.0.0.1 --max --count 5 --bogus");
  EXPECT_NE(unknown.status, 0) << unknown.out;
  CliRun no_host = lab("tcp-crr-client --max --count 5");
  EXPECT_NE(no_host.status, 0) << no_host.out;
}

TEST(TcpCrrCli, ServerWithoutClientsGivesUp) {
  ReservedPort p;
  p.release();
  CliRun r = lab("tcp-crr-server --port " + std::to_string(p.port()) + " --timeout 0.3");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.out, "flowlab lab: error: no client within 0.3 s\n");
}

TEST(TcpCrrCli, MalformedRequestIsCountedNotServed) {
  ReservedPort p;
  p.release();
  auto server = std::async(std::launch::async, [&] {
    return lab("tcp-crr-server --port " + std::to_string(p.port()) + " --timeout 1");
  });
  ASSERT_TRUE(wait_listening(p.port()));
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(p.port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  const unsigned char zero_size[4] = {0, 0, 0, 0};  // a request of 0 bytes is not one
  ASSERT_EQ(send(fd, zero_size, 4, 0), 4);
  char b;
  EXPECT_LE(recv(fd, &b, 1, 0), 0);  // closed without an answer
  close(fd);
  CliRun s = server.get();
  ASSERT_EQ(s.status, 0) << s.out;
  json j = last_json_line(s.out);
  EXPECT_EQ(j["served"], 0);
  EXPECT_EQ(j["bad_requests"], 1);
}

}  // namespace

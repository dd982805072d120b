// A blocking HTTP client's pieces for the REST server tests (http_server_test.cpp,
// http_session_test.cpp): a connection to a loopback port, a whole send, and a
// read until a text shows up, the peer closes, or 3 s pass.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace flowlab::rest::testing {

inline int connect_to(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

inline bool send_text(int fd, std::string_view s) {
  return ::send(fd, s.data(), s.size(), MSG_NOSIGNAL) == ssize_t(s.size());
}

// Reads until `want` is in what was read, the peer closes (`*closed` set), or 3 s pass.
inline std::string read_until(int fd, std::string_view want, bool* closed = nullptr) {
  std::string got;
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (got.find(want) == std::string::npos && std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char b[65536];
    ssize_t n = ::recv(fd, b, sizeof b, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    got.append(b, size_t(n));
  }
  return got;
}

}  // namespace flowlab::rest::testing

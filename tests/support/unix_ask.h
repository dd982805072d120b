// Tests' client of a line-based unix control socket (the lab's supervisor,
// `flowlab switch-host`): one connection, `text` written, what comes back
// until `lines` newlines or the peer closes.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <string>

#include "channel/unix_socket.h"

namespace flowlab::test {

inline std::string unix_ask(const std::string& path, const std::string& text, size_t lines = 1) {
  auto fd = channel::unix_connect(path);
  if (!fd.ok()) return "connect failed: " + fd.error().message;
  std::string got;
  if (::write(*fd, text.data(), text.size()) == ssize_t(text.size())) {
    char buf[512];
    while (size_t(std::count(got.begin(), got.end(), '\n')) < lines) {
      ssize_t n = ::read(*fd, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, size_t(n));
    }
  }
  ::close(*fd);
  return got;
}

}  // namespace flowlab::test

// Helpers for channel tests: an io_context on its own thread, a listener on a
// free loopback port, and a blocking raw TCP peer that speaks bytes.
#pragma once

#include <gtest/gtest.h>

#include <asio.hpp>
#include <chrono>
#include <future>
#include <thread>

#include "channel/connection.h"
#include "channel/listener.h"
#include "core/bytes.h"

namespace flowlab::channel::testing {

class IoThread {
 public:
  IoThread() : guard_(asio::make_work_guard(io)), t_([this] { io.run(); }) {}
  ~IoThread() {
    guard_.reset();
    io.stop();
    t_.join();
  }
  // Runs fn on the io thread and waits for it.
  template <typename F>
  auto run(F fn) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto fut = task.get_future();
    asio::post(io, [&task] { task(); });
    return fut.get();
  }
  asio::io_context io;

 private:
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread t_;
};

inline Bytes header(uint8_t version, uint8_t type, uint16_t len, uint32_t xid) {
  Bytes b(8);
  b[0] = version;
  b[1] = type;
  store_be16(&b[2], len);
  store_be32(&b[4], xid);
  return b;
}

inline Bytes hello_bytes(uint8_t version, uint32_t bitmap) {
  if (bitmap == 0) return header(version, 0, 8, 1);
  Bytes b = header(version, 0, 16, 1);
  b.resize(16);
  store_be16(&b[8], 1);
  store_be16(&b[10], 8);
  store_be32(&b[12], bitmap);
  return b;
}

// A blocking peer: writes bytes, reads whole OpenFlow messages with a timeout.
class RawPeer {
 public:
  explicit RawPeer(uint16_t port) : sock_(io_) {
    sock_.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  void write(const Bytes& b) { asio::write(sock_, asio::buffer(b)); }
  // One whole message, or empty on EOF/timeout (eof() tells which).
  Bytes read_message(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      if (buf_.size() >= 8) {
        size_t len = load_be16(&buf_[2]);
        if (len >= 8 && buf_.size() >= len) {
          Bytes m(buf_.begin(), buf_.begin() + long(len));
          buf_.erase(buf_.begin(), buf_.begin() + long(len));
          return m;
        }
      }
      if (eof_ || std::chrono::steady_clock::now() >= deadline) return {};
      uint8_t tmp[4096];
      sock_.non_blocking(true);
      asio::error_code ec;
      size_t n = sock_.read_some(asio::buffer(tmp), ec);
      if (ec == asio::error::would_block) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      if (ec) {
        eof_ = true;
        continue;
      }
      buf_.insert(buf_.end(), tmp, tmp + n);
    }
  }
  // Skips messages until one of `type` (or empty).
  Bytes read_type(uint8_t type, std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      Bytes m = read_message(
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
      if (m.empty() || m[1] == type) return m;
    }
    return {};
  }
  bool eof() const { return eof_; }

 private:
  asio::io_context io_;
  asio::ip::tcp::socket sock_;
  Bytes buf_;
  bool eof_ = false;
};

}  // namespace flowlab::channel::testing

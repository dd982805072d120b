// Active OpenFlow endpoint (tcp:/ssl:) with reconnect and exponential backoff.
//
// start() connects; each established connection is handed, not yet started, to
// on_connect (the owner sets handlers and calls start()). When it closes, or a
// connect attempt fails, the next attempt waits backoff: initial, doubling up
// to max; it resets to initial after a connection that reached ready(). A
// refused connect (the host answered and nothing listens there yet: the
// controller is still starting) waits at most refused_max, so a switch
// started before its controller connects within refused_max of the listen.
#pragma once

#include <asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>

#include "channel/connection.h"
#include "channel/endpoint.h"

namespace flowlab::channel {

struct BackoffOptions {
  std::chrono::milliseconds initial{100};
  std::chrono::milliseconds max{8000};
  std::chrono::milliseconds refused_max{100};  // cap while the peer refuses (cheap to retry)
  bool reconnect = true;                       // false: one attempt (e.g. ofctl)
};

class Connector {
 public:
  using ConnectHandler = std::function<void(ConnectionPtr)>;
  using FailHandler = std::function<void(const std::string& reason, std::chrono::milliseconds next_try)>;

  Connector(asio::io_context& io, Endpoint ep, ConnectionOptions opts, ConnectHandler on_connect,
            BackoffOptions backoff = {}, const TlsConfig& tls = {}, FailHandler on_fail = {});
  ~Connector();  // stops: no further attempts; closes the current connection
  Connector(const Connector&) = delete;
  Connector& operator=(const Connector&) = delete;

  void start();
  void stop();
  // Stops reconnecting but leaves the current connection open (e.g. a tool
  // that needed one connection).
  void release();
  uint64_t attempts() const;  // connect attempts so far
  std::chrono::milliseconds current_backoff() const;

  struct State;  // in connector.cpp

 private:
  std::shared_ptr<State> s_;
};

// Blocking helper for tools (ofctl, tests): one connect, then HELLO negotiation
// driven by running `io` until ready or `timeout`. On success the connection is
// started and ready.
Result<ConnectionPtr> connect_blocking(asio::io_context& io, const Endpoint& ep, ConnectionOptions opts,
                                       std::chrono::milliseconds timeout, Connection::Handlers handlers = {},
                                       const TlsConfig& tls = {});

}  // namespace flowlab::channel

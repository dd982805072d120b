// Passive OpenFlow endpoint (ptcp:/pssl:): accepts connections and hands each,
// not yet started, to the owner, who sets handlers and calls start().
#pragma once

#include <asio/io_context.hpp>
#include <functional>
#include <memory>

#include "channel/connection.h"
#include "channel/endpoint.h"
#include "core/result.h"

namespace flowlab::channel {

class Listener {
 public:
  using AcceptHandler = std::function<void(ConnectionPtr)>;
  // Optional: picks the io_context a new connection lives on (multi-threaded
  // owners spread connections over their loops). Default: the listener's.
  using ContextPicker = std::function<asio::io_context&()>;

  // Binds and listens now (so "port in use" is reported here); accepts once
  // start() is called. `tls` is required for pssl:.
  static Result<std::unique_ptr<Listener>> open(asio::io_context& io, const Endpoint& ep,
                                                ConnectionOptions opts, AcceptHandler on_accept,
                                                const TlsConfig& tls = {}, ContextPicker pick = {});
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  void start();
  void close();
  uint16_t port() const;  // the bound port (useful with ptcp:0)

  struct State;  // in listener.cpp

 private:
  explicit Listener(std::shared_ptr<State> s);
  std::shared_ptr<State> s_;
};

}  // namespace flowlab::channel

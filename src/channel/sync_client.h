// SyncClient: a small blocking OpenFlow client for management tools (`flowlab ofctl`).
//
// connect("tcp:HOST:PORT") opens the TCP connection, exchanges hellos and
// negotiates the version (highest common one of `versions`), all bounded by the
// timeout. After that, transact() sends one request and collects its reply by
// xid — every part of a multipart reply until the MORE flag clears — while
// answering echo requests and skipping asynchronous messages (packet-in, port
// status, ...). An OFPT_ERROR with the request's xid becomes an Error naming
// the OpenFlow error. Every wait is bounded; a peer that refuses, closes or
// sends garbage gives an Error that says so. One thread, no background work.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "openflow/framing.h"
#include "openflow/message.h"

namespace flowlab::channel {

class SyncClient {
 public:
  using Duration = std::chrono::milliseconds;

  // `versions`: wire versions we offer (e.g. {kOf13} or {kOf10}).
  static Result<SyncClient> connect(std::string_view target, std::vector<uint8_t> versions,
                                    Duration timeout = std::chrono::seconds(5));

  SyncClient(SyncClient&& o) noexcept;
  SyncClient& operator=(SyncClient&& o) noexcept;
  SyncClient(const SyncClient&) = delete;
  SyncClient& operator=(const SyncClient&) = delete;
  ~SyncClient();

  uint8_t version() const { return version_; }
  uint32_t next_xid() { return ++xid_; }

  // Sends one message (its version is forced to the negotiated one; xid 0 gets a fresh xid).
  // Returns the xid used.
  Result<uint32_t> send(of::Message msg);
  // Sends `request` and returns its reply messages (several for a multipart reply).
  Result<std::vector<of::Message>> transact(of::Message request);
  // Sends all `msgs`, then a barrier; fails on the first OFPT_ERROR answering any of them.
  Status send_with_barrier(std::vector<of::Message> msgs);
  // Streams the messages `next` yields (nullopt: done) in windows of `window`
  // messages, each written in one go and followed by a barrier. Before sending
  // window k+1 it waits for window k-1's barrier reply, so the switch is at
  // most two windows behind and each wait is bounded by the timeout per
  // window, not for the whole stream (a million flow-mods never time out on a
  // switch that keeps up). Fails on an error from `next` or the first
  // OFPT_ERROR answering a message (the message's 1-based index is named).
  using NextMessage = std::function<Result<std::optional<of::Message>>()>;
  Status stream_with_barriers(const NextMessage& next, size_t window = 4096);
  // The same for a sender that encodes its messages itself: next(wire)
  // appends one whole message to `wire` and returns its xid (nullopt: done),
  // so a window is encoded into one buffer with no copy per message.
  using NextWire = std::function<Result<std::optional<uint32_t>>(Bytes& wire)>;
  Status stream_wire_with_barriers(const NextWire& next, size_t window = 4096);
  // Sends the messages `next` yields as one bundle (the ONF extension of
  // OF1.3, openflow/of13/bundle.h): open, the adds streamed in windows with
  // barriers as above, then commit. Nothing is applied unless all of them
  // are: a refused add or commit fails naming the message (1-based) and the
  // switch's error; a bundle that was not committed is discarded.
  Status send_bundle(const NextMessage& next, uint16_t flags = 3,
                     size_t window = 4096);  // sync_client_bundle.cpp
  // Waits for the next message from the peer (echo requests are answered, not returned).
  Result<of::Message> receive();
  // The same, waiting at most `wait`: nullopt when nothing came (not an error).
  Result<std::optional<of::Message>> receive_within(Duration wait);

 private:
  SyncClient(int fd, Duration timeout) : fd_(fd), timeout_(timeout) {}
  Status write_all(const Bytes& b);
  // Next framed message before `deadline`.
  // With `timed_out`, a deadline that passes sets it (the result is still an error).
  Result<of::Message> read_message(std::chrono::steady_clock::time_point deadline, bool* timed_out = nullptr);
  Error error_reply(const of::Message& m) const;

  int fd_ = -1;
  Duration timeout_;
  of::StreamFramer framer_;
  uint8_t version_ = of::kOf13;
  uint32_t xid_ = 0x100;
  std::string peer_;
};

}  // namespace flowlab::channel

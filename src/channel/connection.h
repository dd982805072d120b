// One OpenFlow connection over TCP or TLS (asio), usable by both sides.
//
// What it does for its owner: sends HELLO with a version bitmap on start(),
// negotiates the version (OFPT_ERROR HELLO_FAILED and close on mismatch), frames
// the byte stream (StreamFramer), decodes each message (decode_message) and hands
// it to on_message; answers ECHO_REQUEST itself, sends keepalive echoes when the
// peer is idle and closes a dead peer; answers a malformed message with
// make_error_reply() and keeps the connection (a framing error closes it).
// The dead-peer timeout counts silence we did not cause: while reading is
// paused by back-pressure, or bytes wait unread in the socket (a loop busy
// with other peers), the peer is alive.
//
// Write path (design): send() encodes the message in the negotiated version and
// appends the bytes to one contiguous pending buffer. If no write is in flight,
// the pending buffer is swapped with the (empty) in-flight buffer and one
// async_write is started; messages sent while it is in flight accumulate in the
// pending buffer and go out together in the next write. So a burst of N messages
// costs at most two system calls, whatever N is. Invariant: at most one
// async_write per connection in flight; bytes are sent in send() order. The
// bound (Options::max_queued_bytes) covers pending + in-flight bytes; a send()
// past it is refused and counted (msgs_refused), never blocks. TCP_NODELAY is on.
// Back-pressure: while more than Options::pause_read_bytes are queued (a peer
// that sends faster than it reads), the connection stops reading; the write
// completion that brings the queue back under the mark resumes reading. This
// bounds the output buffers (they stay small and cache-hot: no growth to many
// MB, no page faults) and pushes the overload back onto the peer's TCP window.
//
// Threading: a Connection lives on one executor (one io_context thread, or a
// strand). All member functions must be called on it, except post_send() and
// the stats getters, which any thread may call. Handlers run on it.
// Lifetime: owned by shared_ptr; pending async operations keep it alive; after
// close the handlers are released (so they may capture the owner safely).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::channel {

struct ConnectionOptions {
  std::vector<uint8_t> versions = {0x06, 0x05, 0x04, 0x01};  // OpenFlow versions we speak (kOf15 .. kOf10)
  std::chrono::milliseconds echo_interval{5000};             // idle time before we send an echo; 0 = never
  std::chrono::milliseconds dead_peer_timeout{15000};        // no byte received for this long: close
  std::chrono::milliseconds hello_timeout{10000};            // no HELLO from the peer: close
  size_t max_queued_bytes = 16 * 1024 * 1024;                // output bound (pending + in flight)
  size_t congestion_bytes = 1024 * 1024;                     // congested() above this
  size_t pause_read_bytes = 256 * 1024;  // stop reading while more is queued (back-pressure)
  std::string name;                      // for logs, e.g. "controller" / "switch s1"
};

// Counters; plain atomics so any thread can read them.
struct ConnectionStats {
  std::atomic<uint64_t> msgs_rx{0}, msgs_tx{0};
  std::atomic<uint64_t> bytes_rx{0}, bytes_tx{0};
  std::atomic<uint64_t> writes{0};         // async_write calls (coalescing: msgs_tx / writes)
  std::atomic<uint64_t> bytes_queued{0};   // now: pending + in flight
  std::atomic<uint64_t> high_water{0};     // max bytes_queued seen
  std::atomic<uint64_t> msgs_refused{0};   // send() over the bound
  std::atomic<uint64_t> decode_errors{0};  // malformed messages answered with OFPT_ERROR
  std::atomic<uint64_t> echo_sent{0}, echo_answered{0};
  std::atomic<uint64_t> last_echo_rtt_ns{0};
};

class Connection : public std::enable_shared_from_this<Connection> {
 public:
  struct Handlers {
    // Version negotiated; the connection is usable for non-HELLO messages.
    std::function<void(Connection&)> on_ready;
    // Every decoded message except HELLO, ECHO_REQUEST and replies to our own
    // keepalive echoes. `raw` is the wire form (valid during the call).
    std::function<void(Connection&, of::Message&, ByteSpan raw)> on_message;
    // Called once when the connection is closed, with the reason.
    std::function<void(Connection&, const std::string& reason)> on_close;
  };

  class Impl;  // transport (TCP or TLS) and state, in connection.cpp
  explicit Connection(std::unique_ptr<Impl> impl);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Set handlers before start(). start() sends our HELLO and begins reading.
  void set_handlers(Handlers h);
  void start();

  // Queue a message; its version is set to the negotiated one (HELLO-time
  // messages keep theirs) and xid 0 is replaced by next_xid(). Returns the xid
  // used, or an error (not ready, encode failure, queue over the bound).
  Result<uint32_t> send(of::Message msg);
  // Queue bytes already encoded (counted as one message).
  Status send_raw(ByteSpan wire);
  // Any thread: encode now, queue on the connection's executor.
  void post_send(of::Message msg);

  // Any thread: runs fn on the connection's executor.
  void post(std::function<void()> fn);

  // Closes after flushing what is queued (bounded by 1 s), then on_close.
  void close(const std::string& reason);
  // Closes at once, dropping anything queued.
  void abort(const std::string& reason);

  uint32_t next_xid();
  uint8_t version() const;  // 0 until negotiated
  bool ready() const;       // negotiated and not closed
  bool is_open() const;
  bool congested() const;  // queued bytes above Options::congestion_bytes
  size_t queued_bytes() const;
  const ConnectionStats& stats() const;
  const std::string& peer() const;  // "127.0.0.1:40022"
  const ConnectionOptions& options() const;

  // For owners such as Connector: called after on_close, also when the
  // owner's handlers were replaced. was_ready: the HELLO exchange completed.
  void add_close_observer(std::function<void(const std::string& reason, bool was_ready)> fn);

  // Opaque per-connection slot for the owner (e.g. the controller's Datapath).
  void* user_data = nullptr;

  Impl& impl() { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

using ConnectionPtr = std::shared_ptr<Connection>;

}  // namespace flowlab::channel

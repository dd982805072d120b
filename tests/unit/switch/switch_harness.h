// Test harness for the switch: a Switch on in-memory ports plus a loopback
// controller (a channel::Listener the switch connects to with --controller).
#pragma once

#include <gtest/gtest.h>

#include <asio.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "channel/listener.h"
#include "openflow/message.h"
#include "packet/builder.h"
#include "port/memory_port.h"
#include "switch/switch.h"
#include "switch/switch_ports.h"

namespace flowlab::sw::testing {

using namespace std::chrono_literals;

// A controller: listens on a free loopback port, keeps the one connection.
class TestController {
 public:
  // Runs fn on the controller's io thread and waits for its result.
  template <typename F>
  auto run(F fn) {
    std::packaged_task<decltype(fn())()> task(std::move(fn));
    auto fut = task.get_future();
    asio::post(io_, [&task] { task(); });
    return fut.get();
  }
  explicit TestController(std::vector<uint8_t> versions = {of::kOf13, of::kOf10})
      : guard_(asio::make_work_guard(io_)), t_([this] { io_.run(); }) {
    channel::Endpoint ep;
    ep.passive = true;
    ep.host = "127.0.0.1";
    ep.port = 0;
    channel::ConnectionOptions o;
    o.versions = std::move(versions);
    o.name = "test controller";
    auto l = channel::Listener::open(io_, ep, o, [this](const channel::ConnectionPtr& c) { accept(c); });
    EXPECT_TRUE(l.ok()) << (l.ok() ? "" : l.error().message);
    if (l.ok()) {
      lis_ = std::move(*l);
      lis_->start();
    }
  }
  ~TestController() {
    run([this] {
      if (conn_) conn_->abort("test done");
      if (lis_) lis_->close();
    });
    guard_.reset();
    io_.stop();
    t_.join();
  }
  uint16_t port() const { return lis_ ? lis_->port() : 0; }

  bool wait_ready(std::chrono::milliseconds t = 5s) {
    std::unique_lock lk(mu_);
    return cv_.wait_for(lk, t, [this] { return ready_; });
  }
  uint8_t version() {
    return run([this] { return conn_ ? conn_->version() : uint8_t(0); });
  }
  // Sends a request; returns its xid.
  uint32_t send(of::MessageBody body) {
    return run([this, body = std::move(body)]() mutable -> uint32_t {
      if (!conn_) return 0;
      auto r = conn_->send(of::Message{conn_->version(), 0, std::move(body)});
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
      return r.ok() ? *r : 0;
    });
  }
  // Sends a request with a chosen xid (a bundle add's inner message must repeat it).
  void send_xid(uint32_t xid, of::MessageBody body) {
    run([this, xid, body = std::move(body)]() mutable {
      if (conn_) {
        EXPECT_TRUE(conn_->send(of::Message{conn_->version(), xid, std::move(body)}).ok());
      }
      return 0;
    });
  }
  // Sends every request in one go on the io thread (back to back on the wire); returns their xids.
  std::vector<uint32_t> send_all(std::vector<of::MessageBody> bodies) {
    return run([this, bodies = std::move(bodies)]() mutable {
      std::vector<uint32_t> xids;
      for (auto& b : bodies) {
        auto r = conn_ ? conn_->send(of::Message{conn_->version(), 0, std::move(b)}) : Result<uint32_t>(0u);
        xids.push_back(r.ok() ? *r : 0);
      }
      return xids;
    });
  }
  // The next message of `type` (earlier ones of other types are skipped and kept).
  std::optional<of::Message> wait_for(of::MsgType type, std::chrono::milliseconds t = 3s) {
    std::unique_lock lk(mu_);
    std::optional<of::Message> out;
    cv_.wait_for(lk, t, [&] {
      for (auto it = msgs_.begin(); it != msgs_.end(); ++it) {
        if (it->type() == type) {
          out = std::move(*it);
          msgs_.erase(it);
          return true;
        }
      }
      return false;
    });
    return out;
  }
  // The reply (any type) with this xid.
  std::optional<of::Message> wait_xid(uint32_t xid, std::chrono::milliseconds t = 3s) {
    std::unique_lock lk(mu_);
    std::optional<of::Message> out;
    cv_.wait_for(lk, t, [&] {
      for (auto it = msgs_.begin(); it != msgs_.end(); ++it) {
        if (it->xid == xid) {
          out = std::move(*it);
          msgs_.erase(it);
          return true;
        }
      }
      return false;
    });
    return out;
  }
  size_t count(of::MsgType type) {
    std::lock_guard lk(mu_);
    size_t n = 0;
    for (auto& m : msgs_) n += m.type() == type;
    return n;
  }
  bool closed() {
    std::lock_guard lk(mu_);
    return closed_;
  }
  // Packet-ins are counted and dropped instead of kept (a flood would fill
  // msgs_), each after `cost` of work on the io thread: a slow controller.
  void sink_packet_ins(std::chrono::microseconds cost) {
    run([this, cost] {
      sink_packet_ins_ = true;
      packet_in_cost_ = cost;
    });
  }
  uint64_t packet_ins_sunk() const { return packet_ins_sunk_.load(); }
  // As sink_packet_ins, and each packet-in is answered as a hub does: a
  // packet-out of its buffer id (or its data) from `in_port` to `out_port`.
  void hub_packet_ins(std::chrono::microseconds cost, uint32_t in_port, uint32_t out_port) {
    run([this, in_port, out_port] { hub_ports_ = {in_port, out_port}; });
    sink_packet_ins(cost);
  }

 private:
  void accept(const channel::ConnectionPtr& c) {
    conn_ = c;
    channel::Connection::Handlers h;
    h.on_ready = [this](channel::Connection&) {
      std::lock_guard lk(mu_);
      ready_ = true;
      cv_.notify_all();
    };
    h.on_message = [this](channel::Connection&, of::Message& m, ByteSpan) {
      if (sink_packet_ins_ && m.is<of::PacketIn>()) {
        packet_ins_sunk_.fetch_add(1);
        auto until = std::chrono::steady_clock::now() + packet_in_cost_;
        while (std::chrono::steady_clock::now() < until) {
        }
        if (hub_ports_) {
          const auto& pin = m.as<of::PacketIn>();
          of::PacketOut po;
          po.buffer_id = pin.buffer_id;
          po.in_port = hub_ports_->first;
          po.actions.push_back(of::Action::output(hub_ports_->second));
          if (pin.buffer_id == of::kNoBuffer) po.data = pin.data;
          (void)conn_->send(of::Message{conn_->version(), 0, std::move(po)});
        }
        return;
      }
      std::lock_guard lk(mu_);
      msgs_.push_back(std::move(m));
      cv_.notify_all();
    };
    h.on_close = [this](channel::Connection&, const std::string&) {
      std::lock_guard lk(mu_);
      closed_ = true;
      cv_.notify_all();
    };
    c->set_handlers(std::move(h));
    c->start();
  }

  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread t_;
  std::unique_ptr<channel::Listener> lis_;
  channel::ConnectionPtr conn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<of::Message> msgs_;
  bool ready_ = false, closed_ = false;
  bool sink_packet_ins_ = false;  // io thread only
  std::chrono::microseconds packet_in_cost_{0};
  std::optional<std::pair<uint32_t, uint32_t>> hub_ports_;  // io thread only
  std::atomic<uint64_t> packet_ins_sunk_{0};
};

inline MacAddr mac(uint8_t last) { return MacAddr{{0x02, 0, 0, 0, 0, last}}; }

// A small UDP frame from host `src` to host `dst`.
inline Bytes udp_frame(uint8_t src, uint8_t dst, size_t payload = 50) {
  return FrameBuilder()
      .eth(mac(dst), mac(src))
      .ipv4(Ipv4Addr{0x0a000000u | src}, Ipv4Addr{0x0a000000u | dst})
      .udp(1000, 2000)
      .payload(payload)
      .build();
}

// A switch on `n` memory ports numbered 1..n (with `last_is_local`, the last
// one is the LOCAL port instead).
struct SwitchFixture {
  explicit SwitchFixture(const SwitchOptions& o, size_t n = 2,
                         PortCapabilities caps = PortCapabilities::all(), bool last_is_local = false) {
    std::vector<std::unique_ptr<Port>> ports;
    for (size_t i = 0; i < n; ++i) {
      auto p = std::make_unique<MemoryPort>("mem" + std::to_string(i + 1), caps, mac(uint8_t(0xa0 + i)));
      p->set_port_no(last_is_local && i + 1 == n ? of::port::kLocal : uint32_t(i + 1));
      mem.push_back(p.get());
      ports.push_back(std::move(p));
    }
    auto s = Switch::create(o, std::move(ports));
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    if (!s.ok()) return;
    sw = std::move(*s);
    auto st = sw->start();
    EXPECT_TRUE(st.ok());
  }
  // Waits until port `i` (0-based) transmitted at least `n` frames; returns them.
  std::vector<MemoryPort::Frame> wait_tx(size_t i, size_t n, std::chrono::milliseconds t = 2s) {
    std::vector<MemoryPort::Frame> got;
    auto deadline = std::chrono::steady_clock::now() + t;
    while (got.size() < n && std::chrono::steady_clock::now() < deadline) {
      for (auto& f : mem[i]->take_tx()) got.push_back(std::move(f));
      if (got.size() < n) std::this_thread::sleep_for(5ms);
    }
    return got;
  }
  std::unique_ptr<Switch> sw;
  std::vector<MemoryPort*> mem;
};

inline SwitchOptions options_with_controller(uint16_t port) {
  SwitchOptions o;
  o.name = "t1";
  o.dpid = 0x42;
  ChannelTarget c;
  c.host = "127.0.0.1";
  c.port = port;
  c.text = "tcp:127.0.0.1:" + std::to_string(port);
  o.controllers.push_back(c);
  o.echo_interval_ms = 2000;
  return o;
}

inline of::FlowMod flow(uint32_t in_port, of::ActionList actions, uint16_t priority = 100) {
  of::FlowMod fm;
  fm.priority = priority;
  if (in_port) fm.match.add(of::OxmField::basic(of::OxmId::kInPort, in_port));
  fm.instructions.push_back(of::Instruction::apply(std::move(actions)));
  return fm;
}

}  // namespace flowlab::sw::testing

// A fake OpenFlow switch for controller tests: a real channel Connection over
// loopback that answers the handshake (features, port-desc, barrier) and
// records everything the controller sends.
#pragma once

#include <gtest/gtest.h>

#include <asio.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "channel/connector.h"
#include "controller/controller.h"
#include "core/bytes.h"
#include "openflow/message.h"

namespace flowlab::controller::testing {

using namespace std::chrono_literals;

// Runs a Controller on its own thread, listening on a free loopback port.
class ControllerRunner {
 public:
  explicit ControllerRunner(std::vector<std::unique_ptr<App>> apps, ControllerOptions o = {}) {
    o.listen = {"ptcp:0:127.0.0.1"};
    o.handle_signals = false;
    c_ = std::make_unique<Controller>(std::move(o), std::move(apps));
    auto st = c_->start();
    EXPECT_TRUE(st.ok()) << st.error().message;
    t_ = std::thread([this] { c_->run(); });
  }
  ~ControllerRunner() {
    c_->stop();
    t_.join();
  }
  uint16_t port() const { return c_->listen_port(0); }
  Controller& controller() { return *c_; }

 private:
  std::unique_ptr<Controller> c_;
  std::thread t_;
};

class FakeSwitch {
 public:
  FakeSwitch(uint16_t port, uint8_t version, uint64_t dpid = 1, uint32_t n_buffers = 0)
      : version_(version), dpid_(dpid), n_buffers_(n_buffers) {
    channel::ConnectionOptions o;
    o.versions = {version};
    o.name = "fake switch";
    channel::Connection::Handlers h;
    h.on_message = [this](channel::Connection& c, of::Message& m, ByteSpan) { on_message(c, m); };
    auto ep = channel::parse_endpoint(fmt::format("tcp:127.0.0.1:{}", port));
    auto conn = channel::connect_blocking(io_, *ep, o, 3s, h);
    EXPECT_TRUE(conn.ok()) << conn.error().message;
    if (conn.ok()) conn_ = *conn;
    guard_.emplace(asio::make_work_guard(io_));
    io_.restart();
    t_ = std::thread([this] { io_.run(); });
  }
  ~FakeSwitch() {
    if (conn_) conn_->post([c = conn_] { c->abort("test end"); });
    guard_.reset();
    t_.join();
    conn_.reset();
  }

  void send(of::MessageBody body, uint32_t xid = 0) {
    conn_->post_send(of::Message{version_, xid, std::move(body)});
  }
  void packet_in(uint32_t in_port, Bytes frame, uint32_t buffer_id = of::kNoBuffer, uint8_t table = 0) {
    of::PacketIn pi;
    pi.buffer_id = buffer_id;
    pi.total_len = uint16_t(frame.size());
    pi.table_id = table;
    pi.match.add(of::OxmField::basic(of::OxmId::kInPort, in_port));
    pi.data = std::move(frame);
    send(std::move(pi));
  }

  // Waits until pred(messages) holds; returns whether it did.
  bool wait(const std::function<bool(const std::vector<of::Message>&)>& pred,
            std::chrono::milliseconds t = 3s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, t, [&] { return pred(msgs_); });
  }
  template <typename T>
  std::vector<T> all() {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    for (const auto& m : msgs_)
      if (m.is<T>()) out.push_back(m.as<T>());
    return out;
  }
  template <typename T>
  bool wait_count(size_t n, std::chrono::milliseconds t = 3s) {
    return wait(
        [n](const auto& ms) {
          size_t c = 0;
          for (const auto& m : ms) c += m.template is<T>();
          return c >= n;
        },
        t);
  }
  std::vector<of::Message> messages() {
    std::lock_guard lock(mu_);
    return msgs_;
  }
  uint8_t version() const { return version_; }
  std::vector<of::PortDesc> ports;
  uint64_t dpid() const { return dpid_; }

  // Barrier requests are recorded but not answered until release_barriers().
  void hold_barriers() {
    conn_->post([this] { hold_barriers_ = true; });
    sync();
  }
  void release_barriers() {
    conn_->post([this] {
      hold_barriers_ = false;
      for (uint32_t xid : held_) conn_->post_send(of::Message{version_, xid, of::BarrierReply{}});
      held_.clear();
    });
  }
  // Waits until everything posted to the connection's thread before has run.
  void sync() {
    std::promise<void> p;
    auto f = p.get_future();
    conn_->post([&p] { p.set_value(); });
    f.wait();
  }

 private:
  void on_message(channel::Connection& c, of::Message& m) {
    if (m.is<of::FeaturesRequest>()) {
      of::FeaturesReply f;
      f.datapath_id = dpid_;
      f.n_buffers = n_buffers_;
      f.n_tables = 254;
      if (version_ == of::kOf10) f.ports = default_ports();
      auto r = c.send(of::Message{version_, m.xid, f});
      EXPECT_TRUE(r.ok());
    } else if (m.is<of::MultipartRequest>() &&
               std::holds_alternative<of::PortDescRequest>(m.as<of::MultipartRequest>().body)) {
      of::MultipartReply rep;
      rep.body = of::PortDescReply{default_ports()};
      auto r = c.send(of::Message{version_, m.xid, rep});
      EXPECT_TRUE(r.ok());
    } else if (m.is<of::BarrierRequest>()) {
      if (hold_barriers_) {
        held_.push_back(m.xid);
      } else {
        auto r = c.send(of::Message{version_, m.xid, of::BarrierReply{}});
        EXPECT_TRUE(r.ok());
      }
    }
    std::lock_guard lock(mu_);
    msgs_.push_back(m);
    cv_.notify_all();
  }
  std::vector<of::PortDesc> default_ports() {
    std::vector<of::PortDesc> p;
    for (uint32_t i = 1; i <= 3; ++i) {
      of::PortDesc d;
      d.port_no = i;
      d.name = fmt::format("p{}", i);
      d.hw_addr = MacAddr::from_u64(0x020000000000ull + i);
      p.push_back(d);
    }
    return p;
  }

  uint8_t version_;
  uint64_t dpid_;
  bool hold_barriers_ = false;  // connection thread only
  std::vector<uint32_t> held_;
  uint32_t n_buffers_;
  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard_;
  std::thread t_;
  channel::ConnectionPtr conn_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<of::Message> msgs_;
};

inline Bytes eth_frame(uint64_t dst, uint64_t src, uint16_t type, size_t payload = 46) {
  Bytes f(14 + payload, 0);
  for (int i = 0; i < 6; ++i) {
    f[size_t(i)] = uint8_t(dst >> (40 - 8 * i));
    f[6 + size_t(i)] = uint8_t(src >> (40 - 8 * i));
  }
  store_be16(&f[12], type);
  return f;
}

inline Bytes ipv4_frame(uint64_t dst_mac, uint64_t src_mac, uint32_t src, uint32_t dst, uint8_t proto,
                        uint16_t sport, uint16_t dport) {
  Bytes f = eth_frame(dst_mac, src_mac, 0x0800, 20 + 20);
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  store_be16(ip + 2, 40);
  ip[8] = 64;
  ip[9] = proto;
  store_be32(ip + 12, src);
  store_be32(ip + 16, dst);
  uint8_t* l4 = ip + 20;
  if (proto == 1) {
    l4[0] = uint8_t(sport);  // icmp type
    l4[1] = uint8_t(dport);  // icmp code
  } else {
    store_be16(l4, sport);
    store_be16(l4 + 2, dport);
    if (proto == 6) l4[12] = 0x50, l4[13] = 0x02;  // SYN
  }
  return f;
}

inline bool has_field(const of::Match& m, of::OxmId id, uint64_t v) {
  const auto* f = m.find(id);
  return f && f->value_u64() == v;
}

}  // namespace flowlab::controller::testing

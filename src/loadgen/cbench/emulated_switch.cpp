#include "loadgen/cbench/emulated_switch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "core/clock.h"
#include "openflow/codec.h"
#include "openflow/message.h"

namespace flowlab::loadgen {
namespace {

constexpr uint8_t kTypeHello = 0, kTypeError = 1, kTypeEchoRequest = 2, kTypeFeaturesRequest = 5,
                  kTypeGetConfigRequest = 7, kTypePacketOut = 13, kTypeFlowMod = 14;
// Message types whose numbers differ between OF1.0 and OF1.3.
constexpr uint8_t kOf10StatsRequest = 16, kOf10BarrierRequest = 18;
constexpr uint8_t kOf13MultipartRequest = 18, kOf13BarrierRequest = 20, kOf13RoleRequest = 24;
constexpr size_t kFrameLen = 64;

// Host h's MAC address behind switch `dpid`: 00:dd:hh:hh:hh:hh style, never multicast.
void host_mac(uint64_t dpid, uint32_t h, uint8_t* out) {
  out[0] = 0x02;  // locally administered, unicast
  out[1] = uint8_t(dpid);
  out[2] = uint8_t(h >> 24);
  out[3] = uint8_t(h >> 16);
  out[4] = uint8_t(h >> 8);
  out[5] = uint8_t(h);
}

uint16_t ip_checksum(const uint8_t* p, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i + 1 < n; i += 2) sum += uint32_t(p[i] << 8 | p[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return uint16_t(~sum);
}

// A 64-byte Ethernet/IPv4/UDP frame (addresses patched per send).
Bytes ipv4_frame() {
  Bytes f(kFrameLen, 0);
  f[12] = 0x08;  // EtherType IPv4
  uint8_t* ip = &f[14];
  ip[0] = 0x45;
  store_be16(ip + 2, uint16_t(kFrameLen - 14));
  ip[8] = 64;  // TTL
  ip[9] = 17;  // UDP
  store_be32(ip + 12, 0x0a000001);
  store_be32(ip + 16, 0x0a000002);
  store_be16(ip + 10, ip_checksum(ip, 20));
  uint8_t* udp = ip + 20;
  store_be16(udp + 0, 1024);
  store_be16(udp + 2, 2048);
  store_be16(udp + 4, uint16_t(kFrameLen - 34));
  return f;
}

// Gratuitous ARP from host h (sender IP = target IP).
Bytes garp_frame(uint64_t dpid, uint32_t h) {
  Bytes f(kFrameLen, 0);
  std::memset(f.data(), 0xff, 6);
  host_mac(dpid, h, &f[6]);
  f[12] = 0x08;
  f[13] = 0x06;
  uint8_t* a = &f[14];
  store_be16(a + 0, 1);       // Ethernet
  store_be16(a + 2, 0x0800);  // IPv4
  a[4] = 6;
  a[5] = 4;
  store_be16(a + 6, 1);  // request
  host_mac(dpid, h, a + 8);
  uint32_t ip = 0x0a000000 | ((uint32_t(dpid) & 0xff) << 16) | (h & 0xffff);
  store_be32(a + 14, ip);
  store_be32(a + 24, ip);
  return f;
}

}  // namespace

EmulatedSwitch::EmulatedSwitch(EmulatedSwitchConfig cfg) : cfg_(cfg) {
  if (cfg_.macs == 0) cfg_.macs = 1;
  build_templates();
}

EmulatedSwitch::~EmulatedSwitch() {
  if (fd_ >= 0) ::close(fd_);
}

void EmulatedSwitch::build_templates() {
  of::PacketIn pin;
  pin.buffer_id = cfg_.buffered ? 1 : of::kNoBuffer;
  pin.total_len = kFrameLen;
  pin.reason = static_cast<uint8_t>(of::PacketInReason::kNoMatch);
  pin.match.add(of::OxmField::basic(of::OxmId::kInPort, 1));
  pin.data = ipv4_frame();
  auto enc = of::encode_message(of::make_message(cfg_.version, 0, pin));
  if (enc.ok()) {
    pin_template_ = std::move(enc.value());
    pin_frame_off_ = pin_template_.size() - kFrameLen;
  }
}

Status EmulatedSwitch::connect_to(const std::string& host, uint16_t port, int timeout_ms) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  std::string service = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res); rc != 0)
    return fail("cannot resolve {}: {}", host, gai_strerror(rc));
  int fd = ::socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    freeaddrinfo(res);
    return fail("socket: {}", std::strerror(errno));
  }
  int rc = ::connect(fd, res->ai_addr, res->ai_addrlen);
  freeaddrinfo(res);
  if (rc < 0 && errno != EINPROGRESS) {
    int e = errno;
    ::close(fd);
    return fail("cannot connect to tcp:{}:{}: {}", host, port, std::strerror(e));
  }
  pollfd p{fd, POLLOUT, 0};
  if (rc < 0) {
    int n = ::poll(&p, 1, timeout_ms);
    int err = 0;
    socklen_t len = sizeof err;
    if (n <= 0) {
      ::close(fd);
      return fail("cannot connect to tcp:{}:{}: timed out after {} ms", host, port, timeout_ms);
    }
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) {
      ::close(fd);
      return fail("cannot connect to tcp:{}:{}: {}", host, port, std::strerror(err));
    }
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  fd_ = fd;
  uint32_t bitmap = of::version_bitmap({cfg_.version});
  auto hello = of::encode_message(of::make_hello(cfg_.version, bitmap, next_xid_++));
  if (!hello.ok()) return fail("cannot encode hello: {}", hello.error().to_string());
  reply(std::move(hello.value()));
  return {};
}

void EmulatedSwitch::reply(Bytes bytes) {
  if (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
  }
  out_.insert(out_.end(), bytes.begin(), bytes.end());
}

Result<bool> EmulatedSwitch::flush() {
  while (out_pos_ < out_.size()) {
    ssize_t n = ::send(fd_, out_.data() + out_pos_, out_.size() - out_pos_, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return false;
      if (errno == EINTR) continue;
      return fail("send: {}", std::strerror(errno));
    }
    out_pos_ += size_t(n);
  }
  out_.clear();
  out_pos_ = 0;
  return true;
}

Status EmulatedSwitch::on_readable() {
  uint8_t buf[65536];
  for (;;) {
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n == 0) return fail("controller closed the connection");
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      if (errno == EINTR) continue;
      return fail("recv: {}", std::strerror(errno));
    }
    in_.insert(in_.end(), buf, buf + n);
    if (size_t(n) < sizeof buf) break;
  }
  size_t pos = 0;
  while (in_.size() - pos >= of::kHeaderLen) {
    uint16_t len = load_be16(&in_[pos + 2]);
    if (len < of::kHeaderLen) return fail("controller sent a message with length {} < 8", len);
    if (in_.size() - pos < len) break;
    handle_message(ByteSpan(&in_[pos], len));
    pos += len;
  }
  in_.erase(in_.begin(), in_.begin() + long(pos));
  return {};
}

void EmulatedSwitch::count_response(ByteSpan msg) {
  uint8_t type = msg[1];
  bool counted = false;
  uint32_t buffer_id = of::kNoBuffer;
  if (type == kTypeFlowMod) {
    size_t buf_off = cfg_.version == 1 ? 64 : 32;
    if (msg.size() >= buf_off + 4) buffer_id = load_be32(&msg[buf_off]);
    size_t cmd_off = cfg_.version == 1 ? 56 : 25;
    if (msg.size() > cmd_off + 1) {
      uint16_t cmd = cfg_.version == 1 ? load_be16(&msg[cmd_off]) : msg[cmd_off];
      if (cmd <= 2) {  // add, modify, modify-strict
        ++flow_mods_;
        counted = true;
      }
    }
  } else if (type == kTypePacketOut) {
    if (msg.size() >= 12) buffer_id = load_be32(&msg[8]);
    size_t actions_len_off = cfg_.version == 1 ? 14 : 16;
    size_t actions_off = cfg_.version == 1 ? 16 : 24;
    bool lldp = false;
    if (msg.size() >= actions_off) {
      size_t data_off = actions_off + load_be16(&msg[actions_len_off]);
      if (msg.size() >= data_off + 14) lldp = load_be16(&msg[data_off + 12]) == 0x88cc;
    }
    if (!lldp) {
      ++packet_outs_;
      counted = true;
    }
  }
  if (!counted) return;
  ++responses_;
  // The answer to the outstanding packet-in names its buffer id, or no buffer
  // at all (a flow-mod installed before the packet-out that releases the
  // buffer). Late answers to an earlier packet-in name an older buffer id and
  // do not complete the current round trip.
  bool answers_outstanding = !cfg_.buffered || buffer_id == outstanding_buffer_ || buffer_id == of::kNoBuffer;
  if (latency_mode_ && waiting_ && answers_outstanding) {
    rtt_ns_.push_back(uint32_t(std::min<uint64_t>(monotonic_ns() - sent_ns_, UINT32_MAX)));
    waiting_ = false;
    if (sending_) kick();
  }
}

void EmulatedSwitch::handle_message(ByteSpan msg) {
  uint8_t type = msg[1];
  if (type == kTypeFlowMod || type == kTypePacketOut) {
    count_response(msg);
    return;
  }
  uint32_t xid = load_be32(&msg[4]);
  const bool v10 = cfg_.version == 1;
  auto send = [&](auto body) {
    auto enc = of::encode_message(of::make_message(cfg_.version, xid, std::move(body)));
    if (enc.ok()) reply(std::move(enc.value()));
  };
  if (type == kTypeHello) {
    hello_received_ = true;
  } else if (type == kTypeEchoRequest) {
    of::EchoReply r;
    r.data.assign(msg.begin() + 8, msg.end());
    send(r);
  } else if (type == kTypeFeaturesRequest) {
    of::FeaturesReply f;
    f.datapath_id = cfg_.dpid;
    f.n_buffers = 256;
    f.n_tables = v10 ? 1 : 254;
    f.capabilities =
        of::capabilities::kFlowStats | of::capabilities::kTableStats | of::capabilities::kPortStats;
    if (v10) {
      for (uint32_t p = 1; p <= cfg_.ports; ++p) {
        of::PortDesc d;
        d.port_no = p;
        host_mac(cfg_.dpid, 0xff000000 | p, d.hw_addr.b.data());
        d.name = "cb" + std::to_string(cfg_.dpid) + "p" + std::to_string(p);
        f.ports.push_back(d);
      }
    }
    send(f);
    features_sent_ = true;
  } else if (type == kTypeGetConfigRequest) {
    send(of::GetConfigReply{});
  } else if ((v10 && type == kOf10BarrierRequest) || (!v10 && type == kOf13BarrierRequest)) {
    send(of::BarrierReply{});
  } else if (!v10 && type == kOf13RoleRequest) {
    auto m = of::decode_message(msg);
    if (m.ok() && m->is<of::RoleRequest>()) {
      of::RoleReply r;
      r.role = m->as<of::RoleRequest>().role;
      r.generation_id = m->as<of::RoleRequest>().generation_id;
      send(r);
    }
  } else if ((v10 && type == kOf10StatsRequest) || (!v10 && type == kOf13MultipartRequest)) {
    auto m = of::decode_message(msg);
    if (!m.ok() || !m->is<of::MultipartRequest>()) return;
    const auto& body = m->as<of::MultipartRequest>().body;
    of::MultipartReply r;
    if (std::holds_alternative<of::DescRequest>(body)) {
      r.body = of::DescReply{"flowlab", "cbench emulated switch", "flowlab cbench", "0", "cbench"};
    } else if (std::holds_alternative<of::PortDescRequest>(body)) {
      of::PortDescReply pd;
      for (uint32_t p = 1; p <= cfg_.ports; ++p) {
        of::PortDesc d;
        d.port_no = p;
        host_mac(cfg_.dpid, 0xff000000 | p, d.hw_addr.b.data());
        d.name = "cb" + std::to_string(cfg_.dpid) + "p" + std::to_string(p);
        pd.ports.push_back(d);
      }
      r.body = pd;
      port_desc_sent_ = true;
    } else if (std::holds_alternative<of::FlowStatsRequest>(body)) {
      r.body = of::FlowStatsReply{};
    } else if (std::holds_alternative<of::PortStatsRequest>(body)) {
      r.body = of::PortStatsReply{};
    } else if (std::holds_alternative<of::TableStatsRequest>(body)) {
      r.body = of::TableStatsReply{};
    } else if (std::holds_alternative<of::AggregateStatsRequest>(body)) {
      r.body = of::AggregateStatsReply{};
    } else {
      return;
    }
    send(r);
  } else if (type == kTypeError) {
    auto m = of::decode_message(msg);
    if (m.ok() && m->is<of::ErrorMsg>())
      last_error_ = "controller sent error type " + std::to_string(m->as<of::ErrorMsg>().type) + " code " +
                    std::to_string(m->as<of::ErrorMsg>().code);
  }
  // Other messages (set-config, table-miss flow-mods before counting, ...) need no answer.
}

void EmulatedSwitch::queue_arps() {
  // As cbench's learn-dstmac: the destination host announces itself once, so a
  // learning controller knows where every later packet-in is going.
  if (arps_queued_ || pin_template_.empty()) return;
  arps_queued_ = true;
  // The destination host sits on port 2, the sources on port 1.
  of::PacketIn pin;
  pin.buffer_id = of::kNoBuffer;
  pin.total_len = kFrameLen;
  pin.match.add(of::OxmField::basic(of::OxmId::kInPort, 2));
  pin.data = garp_frame(cfg_.dpid, 0);
  auto enc = of::encode_message(of::make_message(cfg_.version, next_xid_++, pin));
  if (enc.ok()) reply(std::move(enc.value()));
}

void EmulatedSwitch::queue_packet_ins(uint32_t n) {
  if (pin_template_.empty()) return;
  size_t len = pin_template_.size();
  if (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
  }
  size_t base = out_.size();
  out_.resize(base + len * n);
  for (uint32_t i = 0; i < n; ++i) {
    uint8_t* m = &out_[base + i * len];
    std::memcpy(m, pin_template_.data(), len);
    store_be32(m + 4, next_xid_++);
    if (cfg_.buffered) store_be32(m + 8, next_buffer_++);
    uint8_t* eth = m + pin_frame_off_;
    // Sources cycle through the hosts 1..macs; the destination is host 0.
    uint32_t src = 1 + mac_cursor_;
    mac_cursor_ = (mac_cursor_ + 1) % cfg_.macs;
    host_mac(cfg_.dpid, 0, eth);
    host_mac(cfg_.dpid, src, eth + 6);
  }
  packet_ins_ += n;
}

void EmulatedSwitch::kick() {
  if (waiting_ || !sending_) return;
  outstanding_buffer_ = cfg_.buffered ? next_buffer_ : of::kNoBuffer;
  queue_packet_ins(1);
  waiting_ = true;
  sent_ns_ = monotonic_ns();
}

}  // namespace flowlab::loadgen

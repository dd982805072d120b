// Shared fixtures for datapath tests: in-memory ports, capturing sinks, frame
// and flow-mod helpers.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "datapath/datapath.h"
#include "datapath/flow_entry.h"
#include "datapath/match_key.h"
#include "packet/builder.h"
#include "packet/flow_key.h"

namespace flowlab::dp::testing {

struct FakePorts : PortView {
  std::vector<uint32_t> ports{1, 2, 3, 4};
  std::set<uint32_t> down;
  void list_ports(std::vector<uint32_t>& out) const override { out = ports; }
  bool is_live(uint32_t p) const override { return !down.count(p); }
};

struct Sent {
  Bytes data;
  uint32_t port;
  uint32_t queue;
  OffloadInfo offload;
};
struct CaptureOut : OutputSink {
  std::vector<Sent> sent;
  void output(const Packet& pkt, uint32_t port, uint32_t queue) override {
    sent.push_back({Bytes(pkt.data(), pkt.data() + pkt.size()), port, queue, pkt.offload});
  }
  std::vector<uint32_t> ports() const {
    std::vector<uint32_t> v;
    for (const auto& s : sent) v.push_back(s.port);
    return v;
  }
};
struct PacketIn {
  PacketInInfo info;
  Bytes data;
};
struct CaptureCtl : ControllerSink {
  std::vector<PacketIn> ins;
  void packet_in(const PacketInInfo& info, const Packet& pkt) override {
    ins.push_back({info, Bytes(pkt.data(), pkt.data() + pkt.size())});
  }
};

inline MacAddr mac(uint64_t v) { return MacAddr::from_u64(v); }
inline Ipv4Addr ip4(const char* s) { return *Ipv4Addr::parse(s); }
inline Ipv6Addr ip6(const char* s) { return *Ipv6Addr::parse(s); }

inline Bytes tcp_frame(const char* src = "10.0.0.1", const char* dst = "10.0.0.2", uint16_t sport = 1234,
                       uint16_t dport = 80, size_t payload = 20) {
  return FrameBuilder()
      .eth(mac(0x0a0000000002), mac(0x0a0000000001))
      .ipv4(ip4(src), ip4(dst))
      .tcp(sport, dport)
      .payload(payload)
      .build();
}
inline Bytes udp_frame(const char* src = "10.0.0.1", const char* dst = "10.0.0.2", uint16_t sport = 5000,
                       uint16_t dport = 53) {
  return FrameBuilder()
      .eth(mac(0x0a0000000002), mac(0x0a0000000001))
      .ipv4(ip4(src), ip4(dst))
      .udp(sport, dport)
      .payload(30)
      .build();
}

// PBB (802.1ah): B-DA B-SA 0x88e7 I-TAG(pcp, uca, isid), then the customer
// frame; B-DA/B-SA default to the customer's MACs (what push_pbb copies).
inline Bytes pbb_frame(const Bytes& customer, uint32_t isid, uint8_t pcp = 0, bool uca = false,
                       uint64_t bda = 0, uint64_t bsa = 0) {
  Bytes out;
  if (bda || bsa) {
    const MacAddr d = mac(bda), s = mac(bsa);
    out.insert(out.end(), d.b.begin(), d.b.end());
    out.insert(out.end(), s.b.begin(), s.b.end());
  } else {
    out.insert(out.end(), customer.begin(), customer.begin() + 12);
  }
  const uint8_t itag[6] = {
      0x88,         0xe7, uint8_t(pcp << 5 | (uca ? 0x08 : 0)), uint8_t(isid >> 16), uint8_t(isid >> 8),
      uint8_t(isid)};
  out.insert(out.end(), itag, itag + 6);
  out.insert(out.end(), customer.begin(), customer.end());
  return out;
}

inline of::OxmField f(of::OxmId id, uint64_t v) { return of::OxmField::basic(id, v); }
inline of::OxmField fm_(of::OxmId id, uint64_t v, uint64_t m) { return of::OxmField::basic_masked(id, v, m); }

// A flow-mod ADD with apply-actions.
inline of::FlowMod add_flow(uint8_t table, uint16_t prio, of::Match m, of::ActionList acts) {
  of::FlowMod fm;
  fm.table_id = table;
  fm.priority = prio;
  fm.match = std::move(m);
  if (!acts.empty()) fm.instructions.push_back(of::Instruction::apply(std::move(acts)));
  return fm;
}
inline of::Match match_ip_dst(const char* dst) {
  of::Match m;
  m.add(f(of::OxmId::kEthType, 0x0800)).add(f(of::OxmId::kIpv4Dst, ip4(dst).v));
  return m;
}

// One datapath with sinks and a context, plus a send() that runs one frame.
struct Rig {
  explicit Rig(DatapathConfig cfg = {}) : dp(cfg, &ports), ctx(dp, out, ctl) {}
  FakePorts ports;
  Datapath dp;
  CaptureOut out;
  CaptureCtl ctl;
  ForwardingContext ctx;
  uint64_t now = 1'000'000'000;

  void add(const of::FlowMod& fm) {
    auto r = dp.flow_mod(fm, now);
    ASSERT_TRUE(r.ok()) << r.error().to_string();
  }
  void send(const Bytes& frame, uint32_t in_port = 1, OffloadInfo off = {}) {
    Packet p(4096);
    p.assign(frame.data(), frame.size());
    p.in_port = in_port;
    p.offload = off;
    PacketBatch b;
    b.pkts.push_back(&p);
    dp.process_batch(ctx, b, now);
  }
};

// A flow entry as the agent builds one, for the classifier's own tests.
inline FlowEntryPtr entry(uint16_t prio, const of::Match& m) {
  auto e = std::make_shared<FlowEntry>();
  e->priority = prio;
  e->match = m;
  auto mk = compile_match(m);
  EXPECT_TRUE(mk.ok()) << mk.error().to_string();
  e->key = *mk;
  e->counters = std::make_shared<FlowCounters>();
  e->decode();
  return e;
}

}  // namespace flowlab::dp::testing

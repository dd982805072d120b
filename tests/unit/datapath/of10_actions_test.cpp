// OpenFlow 1.0 flows through the datapath in OF1.0 mode: every OF1.0 action
// after every kind of match it may follow, decoded from OF1.0 wire bytes (the
// codec's translation included), applied to a frame the match selects; the
// frame that leaves is compared byte for byte with one built from scratch
// with the expected header values (so checksums are checked too).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "openflow/codec.h"
#include "packet/headers.h"
#include "test_support.h"

namespace flowlab::dp {
namespace {

using namespace testing;

// What a test frame carries; build() turns it into bytes with correct checksums.
struct Spec {
  enum L3 { kTcp4, kUdp4, kIcmp4, kArp, kUdp6, kTcp6 } l3 = kTcp4;
  bool tagged = false;
  uint16_t vid = 0;
  uint8_t pcp = 0;
  uint64_t dst = 0x0a0000000002, src = 0x0a0000000001;
  uint32_t nw_src = 0x0a000001, nw_dst = 0x0a000002;
  uint8_t tos = 0;
  uint16_t sport = 1234, dport = 53;

  bool ipv4() const { return l3 == kTcp4 || l3 == kUdp4 || l3 == kIcmp4; }
  bool ports() const { return l3 == kTcp4 || l3 == kUdp4 || l3 == kUdp6 || l3 == kTcp6; }
  Bytes build() const {
    FrameBuilder b;
    b.eth(mac(dst), mac(src));
    if (tagged) b.vlan(vid, pcp);
    switch (l3) {
      case kTcp4:
      case kUdp4:
      case kIcmp4:
        b.ipv4(Ipv4Addr{nw_src}, Ipv4Addr{nw_dst}, 64, tos);
        break;
      case kUdp6:
      case kTcp6:
        b.ipv6(ip6("2001:db8::1"), ip6("2001:db8::2"), 64, tos);
        break;
      case kArp:
        b.arp(hdr::kArpRequest, mac(0x0a0000000001), Ipv4Addr{nw_src}, mac(0), Ipv4Addr{nw_dst});
        break;
    }
    if (l3 == kTcp4 || l3 == kTcp6) b.tcp(sport, dport);
    if (l3 == kUdp4 || l3 == kUdp6) b.udp(sport, dport);
    if (l3 == kIcmp4) b.icmp(hdr::kIcmpEchoRequest, 0);
    b.payload(l3 == kArp ? 18 : 24, l3 == kArp ? 0 : 0xab);  // ARP: zero padding to 60, as on the wire
    Bytes out = b.build();
    if (out.size() < 60) out.resize(60, 0);  // the switch pads short frames on output
    return out;
  }
};

// ofp_match (OF1.0) fields; wildcard bits per OFPFW_*.
struct Of10Match {
  uint32_t wc = 0x3fffff;  // OFPFW_ALL
  uint16_t in_port = 0, dl_vlan = 0, dl_type = 0, tp_src = 0, tp_dst = 0;
  uint8_t pcp = 0, tos = 0, proto = 0;
  void write(ByteWriter& w) const {
    w.u32(wc);
    w.u16(in_port);
    w.zeros(12);  // dl_src, dl_dst
    w.u16(dl_vlan);
    w.u8(pcp);
    w.zeros(1);
    w.u16(dl_type);
    w.u8(tos);
    w.u8(proto);
    w.zeros(2);
    w.zeros(8);  // nw_src, nw_dst
    w.u16(tp_src);
    w.u16(tp_dst);
  }
};
constexpr uint32_t kWcInPort = 1 << 0, kWcDlVlan = 1 << 1, kWcDlType = 1 << 4, kWcNwProto = 1 << 5;
constexpr uint32_t kWcTpSrc = 1 << 6, kWcTpDst = 1 << 7, kWcPcp = 1 << 20, kWcTos = 1 << 21;

struct MatchCase {
  std::string name;
  Of10Match m;
  Spec frame;
};

std::vector<MatchCase> match_cases() {
  std::vector<MatchCase> v;
  auto add = [&](std::string n, auto set_m, auto set_f) {
    MatchCase c{std::move(n), {}, {}};
    set_m(c.m);
    set_f(c.frame);
    v.push_back(c);
  };
  auto none = [](auto&) {};
  add("any", none, none);
  add(
      "in_port", [](Of10Match& m) { m.wc &= ~kWcInPort, m.in_port = 1; },
      [](Spec& s) { s.l3 = Spec::kUdp4; });
  add(
      "dl_vlan", [](Of10Match& m) { m.wc &= ~kWcDlVlan, m.dl_vlan = 10; },
      [](Spec& s) { s.tagged = true, s.vid = 10, s.l3 = Spec::kUdp4; });
  add(
      "dl_vlan_pcp", [](Of10Match& m) { m.wc &= ~kWcPcp, m.pcp = 3; },
      [](Spec& s) { s.tagged = true, s.vid = 10, s.pcp = 3, s.l3 = Spec::kUdp4; });
  add(
      "dl_vlan+pcp", [](Of10Match& m) { m.wc &= ~(kWcPcp | kWcDlVlan), m.pcp = 3, m.dl_vlan = 10; },
      [](Spec& s) { s.tagged = true, s.vid = 10, s.pcp = 3, s.l3 = Spec::kTcp4; });
  add(
      "no vlan", [](Of10Match& m) { m.wc &= ~kWcDlVlan, m.dl_vlan = 0xffff; }, none);
  add(
      "ip", [](Of10Match& m) { m.wc &= ~kWcDlType, m.dl_type = 0x0800; }, none);
  add(
      "ip+nw_tos", [](Of10Match& m) { m.wc &= ~(kWcDlType | kWcTos), m.dl_type = 0x0800, m.tos = 32; },
      [](Spec& s) { s.tos = 32; });
  add(
      "udp,tp_dst=53",
      [](Of10Match& m) {
        m.wc &= ~(kWcDlType | kWcNwProto | kWcTpDst), m.dl_type = 0x0800, m.proto = 17, m.tp_dst = 53;
      },
      [](Spec& s) { s.l3 = Spec::kUdp4; });
  add(
      "udp,tp_dst=53 tagged",
      [](Of10Match& m) {
        m.wc &= ~(kWcDlType | kWcNwProto | kWcTpDst), m.dl_type = 0x0800, m.proto = 17, m.tp_dst = 53;
      },
      [](Spec& s) { s.l3 = Spec::kUdp4, s.tagged = true, s.vid = 7, s.pcp = 2; });
  add(
      "tcp,tp_src=1234",
      [](Of10Match& m) {
        m.wc &= ~(kWcDlType | kWcNwProto | kWcTpSrc), m.dl_type = 0x0800, m.proto = 6, m.tp_src = 1234;
      },
      none);
  add(
      "icmp", [](Of10Match& m) { m.wc &= ~(kWcDlType | kWcNwProto), m.dl_type = 0x0800, m.proto = 1; },
      [](Spec& s) { s.l3 = Spec::kIcmp4; });
  add(
      "arp", [](Of10Match& m) { m.wc &= ~kWcDlType, m.dl_type = 0x0806; },
      [](Spec& s) { s.l3 = Spec::kArp; });
  add(
      "arp,nw_proto=1",
      [](Of10Match& m) { m.wc &= ~(kWcDlType | kWcNwProto), m.dl_type = 0x0806, m.proto = 1; },
      [](Spec& s) { s.l3 = Spec::kArp; });
  add(
      "ipv6 udp", [](Of10Match& m) { m.wc &= ~kWcDlType, m.dl_type = 0x86dd; },
      [](Spec& s) { s.l3 = Spec::kUdp6; });
  add(
      "ipv6 tcp tagged", [](Of10Match& m) { m.wc &= ~kWcDlType, m.dl_type = 0x86dd; },
      [](Spec& s) { s.l3 = Spec::kTcp6, s.tagged = true, s.vid = 5; });
  add(
      "tp_dst without nw_proto (ignored)", [](Of10Match& m) { m.wc &= ~kWcTpDst, m.tp_dst = 99; },
      [](Spec& s) { s.l3 = Spec::kUdp6, s.tagged = true, s.vid = 3; });
  return v;
}

// One OF1.0 action: its wire bytes and what it does to the frame description.
struct ActionCase {
  std::string name;
  std::function<void(ByteWriter&)> wire;
  std::function<void(Spec&)> effect;
};

std::vector<ActionCase> action_cases() {
  auto hdr8 = [](ByteWriter& w, uint16_t type, uint16_t len) {
    w.u16(type);
    w.u16(len);
  };
  return {
      {"output:2", [](ByteWriter&) {}, [](Spec&) {}},
      {"mod_vlan_vid:7", [=](ByteWriter& w) { hdr8(w, 1, 8), w.u16(7), w.zeros(2); },
       [](Spec& s) { s.tagged = true, s.vid = 7; }},
      {"mod_vlan_pcp:5", [=](ByteWriter& w) { hdr8(w, 2, 8), w.u8(5), w.zeros(3); },
       [](Spec& s) {
         if (!s.tagged) s.vid = 0;
         s.tagged = true, s.pcp = 5;
       }},
      {"strip_vlan", [=](ByteWriter& w) { hdr8(w, 3, 8), w.zeros(4); }, [](Spec& s) { s.tagged = false; }},
      {"mod_dl_src",
       [=](ByteWriter& w) { hdr8(w, 4, 16), w.bytes(mac(0x020000000077).b.data(), 6), w.zeros(6); },
       [](Spec& s) { s.src = 0x020000000077; }},
      {"mod_dl_dst",
       [=](ByteWriter& w) { hdr8(w, 5, 16), w.bytes(mac(0x020000000088).b.data(), 6), w.zeros(6); },
       [](Spec& s) { s.dst = 0x020000000088; }},
      {"mod_nw_src", [=](ByteWriter& w) { hdr8(w, 6, 8), w.u32(0xc0a80101); },
       [](Spec& s) {
         if (s.ipv4()) s.nw_src = 0xc0a80101;
       }},
      {"mod_nw_dst", [=](ByteWriter& w) { hdr8(w, 7, 8), w.u32(0xc0a80202); },
       [](Spec& s) {
         if (s.ipv4()) s.nw_dst = 0xc0a80202;
       }},
      {"mod_nw_tos:0x48", [=](ByteWriter& w) { hdr8(w, 8, 8), w.u8(0x48), w.zeros(3); },
       [](Spec& s) {
         if (s.l3 != Spec::kArp) s.tos = 0x48;
       }},
      {"mod_tp_src:4000", [=](ByteWriter& w) { hdr8(w, 9, 8), w.u16(4000), w.zeros(2); },
       [](Spec& s) {
         if (s.ports()) s.sport = 4000;
       }},
      {"mod_tp_dst:5000", [=](ByteWriter& w) { hdr8(w, 10, 8), w.u16(5000), w.zeros(2); },
       [](Spec& s) {
         if (s.ports()) s.dport = 5000;
       }},
  };
}

Bytes of10_flow_mod(const Of10Match& m, const ActionCase& a) {
  Bytes out;
  ByteWriter w(out);
  w.u8(1), w.u8(14), w.u16(0), w.u32(7);  // header, length patched below
  m.write(w);
  w.u64(0);                       // cookie
  w.u16(0), w.u16(0), w.u16(0);   // ADD, idle, hard
  w.u16(100), w.u32(0xffffffff);  // priority, buffer_id
  w.u16(0xffff), w.u16(0);        // out_port NONE, flags
  a.wire(w);
  w.u16(0), w.u16(8), w.u16(2), w.u16(0);  // output:2
  store_be16(out.data() + 2, uint16_t(out.size()));
  return out;
}

TEST(Of10Actions, EveryActionAfterEveryMatchAppliesAsOvsDoes) {
  DatapathConfig cfg;
  cfg.of10 = true;
  int checked = 0;
  for (const MatchCase& mc : match_cases()) {
    for (const ActionCase& ac : action_cases()) {
      SCOPED_TRACE(mc.name + " / " + ac.name);
      Rig rig(cfg);
      auto msg = of::decode_of10(of10_flow_mod(mc.m, ac));
      ASSERT_TRUE(msg.ok()) << msg.error().to_string();
      auto r = rig.dp.flow_mod(msg->as<of::FlowMod>(), rig.now);
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      rig.send(mc.frame.build(), 1);
      ASSERT_EQ(rig.out.sent.size(), 1u) << "the frame did not match or was not sent";
      Spec want = mc.frame;
      ac.effect(want);
      EXPECT_EQ(rig.out.sent[0].port, 2u);
      const Bytes got = rig.out.sent[0].data, exp = want.build();
      size_t diff = 0;
      while (diff < got.size() && diff < exp.size() && got[diff] == exp[diff]) ++diff;
      EXPECT_TRUE(got == exp) << "sizes " << got.size() << "/" << exp.size() << ", first difference at byte "
                              << diff;
      ++checked;
    }
  }
  EXPECT_EQ(checked, int(match_cases().size() * action_cases().size()));
}

TEST(Of10Actions, VlanPcpMatchMeansTaggedAndEnqueueKeepsTheFrame) {
  DatapathConfig cfg;
  cfg.of10 = true;
  Rig rig(cfg);
  Of10Match m;
  m.wc &= ~kWcPcp;
  m.pcp = 3;
  ActionCase enqueue{
      "enqueue:2:1", [](ByteWriter& w) { w.u16(11), w.u16(16), w.u16(2), w.zeros(6), w.u32(1); }, {}};
  auto msg = of::decode_of10(of10_flow_mod(m, enqueue));
  ASSERT_TRUE(msg.ok());
  rig.add(msg->as<of::FlowMod>());
  Spec untagged;  // pcp 0, no tag: must not match dl_vlan_pcp=3
  rig.send(untagged.build(), 1);
  Spec other;
  other.tagged = true, other.vid = 4, other.pcp = 2;
  rig.send(other.build(), 1);
  EXPECT_TRUE(rig.out.sent.empty());
  Spec hit;
  hit.tagged = true, hit.vid = 4, hit.pcp = 3;
  rig.send(hit.build(), 1);
  ASSERT_EQ(rig.out.sent.size(), 2u);  // enqueue then output, both to port 2
  EXPECT_EQ(rig.out.sent[0].queue, 1u);
  EXPECT_EQ(rig.out.sent[0].data, hit.build());
}

}  // namespace
}  // namespace flowlab::dp

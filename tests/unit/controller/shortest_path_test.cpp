// The topology service and the shortest-path app against fake switches over
// loopback, OpenFlow 1.3 and 1.0: LLDP flow and frames, links proved by
// relaying a switch's LLDP packet-out as the neighbour's packet-in, hosts,
// port-status and LLDP-timeout link loss, flows last hop first behind a
// barrier, flooding on the spanning tree, reroute, proxy ARP, host moves.
#include "controller/apps/shortest_path.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "controller/app_registry.h"
#include "controller/topology/lldp.h"
#include "fake_switch.h"
#include "packet/builder.h"

namespace flowlab::controller {
namespace {

using namespace testing;
using of::OxmId;
using topology::LinkView;

constexpr uint64_t kMacA = 0x0200000000aa, kMacB = 0x0200000000bb;

std::unique_ptr<App> shortest_path(bool proxy_arp = false) {
  AppConfig cfg;
  cfg.proxy_arp = proxy_arp;
  auto a = make_app("shortest-path", cfg);
  EXPECT_TRUE(a.ok());
  return std::move(*a);
}

ControllerOptions fast_topology(std::chrono::milliseconds interval = 50ms,
                                std::chrono::milliseconds timeout = 60000ms) {
  ControllerOptions o;
  o.topology.lldp_interval = interval;
  o.topology.link_timeout = timeout;
  return o;
}

bool is_lldp_flow(const of::FlowMod& fm) {
  return fm.priority == 0xffff && has_field(fm.match, OxmId::kEthType, 0x88cc);
}

bool wait_for(const std::function<bool()>& pred, std::chrono::milliseconds t = 3s) {
  auto end = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return pred();
}

// The LLDP frame the controller sent out of `port` (the latest one).
std::optional<Bytes> lldp_out_of(FakeSwitch& sw, uint32_t port) {
  std::optional<Bytes> found;
  for (const auto& po : sw.all<of::PacketOut>())
    if (po.actions.size() == 1 && po.actions[0].port == port && po.data.size() >= 14 && po.data[12] == 0x88 &&
        po.data[13] == 0xcc)
      found = po.data;
  return found;
}

// Plays the cable a:pa <-> b:pb once in each direction.
void relay_lldp(FakeSwitch& a, uint32_t pa, FakeSwitch& b, uint32_t pb) {
  ASSERT_TRUE(wait_for([&] { return lldp_out_of(a, pa).has_value(); }));
  ASSERT_TRUE(wait_for([&] { return lldp_out_of(b, pb).has_value(); }));
  b.packet_in(pb, *lldp_out_of(a, pa));
  a.packet_in(pa, *lldp_out_of(b, pb));
}

size_t n_links(ControllerRunner& c) { return c.controller().topology().links().size(); }

// Flow-mods (add) for eth_dst=mac.
std::vector<of::FlowMod> flows_to(FakeSwitch& sw, uint64_t mac) {
  std::vector<of::FlowMod> out;
  for (const auto& fm : sw.all<of::FlowMod>()) {
    const auto* f = fm.match.find(OxmId::kEthDst);
    if (f && f->value_u64() == mac) out.push_back(fm);
  }
  return out;
}

uint32_t out_port(const of::FlowMod& fm) { return fm.instructions.at(0).actions.at(0).port; }

of::PortStatus link_down(uint32_t port) {
  of::PortStatus ps;
  ps.reason = uint8_t(of::PortStatusReason::kModify);
  ps.desc.port_no = port;
  ps.desc.name = fmt::format("p{}", port);
  ps.desc.hw_addr = MacAddr::from_u64(0x020000000000ull + port);
  ps.desc.state = of::port_state::kLinkDown;
  return ps;
}

class TopologyTest : public ::testing::TestWithParam<uint8_t> {};

TEST_P(TopologyTest, LldpFlowFramesLinksHostsAndPortDown) {
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(shortest_path());
  ControllerRunner c(std::move(apps), fast_topology());
  FakeSwitch s1(c.port(), GetParam(), 1), s2(c.port(), GetParam(), 2);
  for (FakeSwitch* s : {&s1, &s2}) {
    ASSERT_TRUE(wait_for([&] {
      for (const auto& fm : s->all<of::FlowMod>())
        if (is_lldp_flow(fm)) return true;
      return false;
    }));
    // An LLDP frame out of every port, naming this switch and port.
    for (uint32_t p = 1; p <= 3; ++p) {
      ASSERT_TRUE(wait_for([&] { return lldp_out_of(*s, p).has_value(); }));
      auto id = topology::decode_lldp(*lldp_out_of(*s, p));
      ASSERT_TRUE(id.ok());
      EXPECT_EQ(*id, (topology::LldpId{s->dpid(), p}));
    }
  }
  relay_lldp(s1, 3, s2, 3);
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 2; }));
  auto links = c.controller().topology().links();
  EXPECT_EQ(links[0], (LinkView{1, 3, 2, 3}));
  EXPECT_EQ(links[1], (LinkView{2, 3, 1, 3}));
  // (counted when the service has returned, just after the link is visible)
  EXPECT_TRUE(wait_for([&] { return c.controller().stats().packet_in_lldp == 2u; }));

  // A host on an edge port, with its IPv4 address; nothing learned on the link port.
  s1.packet_in(1, ipv4_frame(kMacB, kMacA, 0x0a000001, 0x0a000002, 17, 1, 2));
  s2.packet_in(3, ipv4_frame(kMacB, 0x0200000000cc, 0x0a000003, 0x0a000002, 17, 1, 2));
  ASSERT_TRUE(wait_for([&] { return !c.controller().topology().hosts().empty(); }));
  s2.sync();
  std::this_thread::sleep_for(20ms);
  auto hosts = c.controller().topology().hosts();
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].mac, MacAddr::from_u64(kMacA));
  EXPECT_EQ(hosts[0].dpid, 1u);
  EXPECT_EQ(hosts[0].port_no, 1u);
  ASSERT_EQ(hosts[0].ipv4.size(), 1u);
  EXPECT_EQ(hosts[0].ipv4[0].to_string(), "10.0.0.1");
  auto sw = c.controller().topology().switch_at(2);
  ASSERT_TRUE(sw);
  EXPECT_EQ(sw->ports.size(), 3u);
  EXPECT_EQ(sw->ports[1].name, "p2");

  // Port-status link down: both directions gone at once.
  Bytes late = *lldp_out_of(s1, 3);
  s1.send(link_down(3));
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 0; }));
  // An LLDP frame s1:3 sent before it went down, delivered by s2 afterwards:
  // no link from a port known to be down.
  s2.packet_in(3, late);
  ASSERT_TRUE(wait_for([&] { return c.controller().stats().packet_in_lldp == 3u; }));
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(n_links(c), 0u);
}

TEST_P(TopologyTest, LinkSilentForTheTimeoutIsRemoved) {
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(shortest_path());
  ControllerRunner c(std::move(apps), fast_topology(20ms, 150ms));
  FakeSwitch s1(c.port(), GetParam(), 1), s2(c.port(), GetParam(), 2);
  relay_lldp(s1, 3, s2, 3);
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 2; }));
  // No more LLDP relayed: the cable "silently drops frames".
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 0; }, 2s));
  // Its ports stay trunks: nothing learned there, nothing flooded there.
  s1.packet_in(3, eth_frame(0xffffffffffff, 0x0200000000dd, 0x0806));
  Bytes bcast = eth_frame(0xffffffffffff, kMacA, 0x0806);
  s1.packet_in(1, bcast);
  ASSERT_TRUE(wait_for([&] {
    for (const auto& po : s1.all<of::PacketOut>())
      if (po.data == bcast) return true;
    return false;
  }));
  for (const auto& po : s1.all<of::PacketOut>())
    if (po.data == bcast) {
      ASSERT_EQ(po.actions.size(), 1u);
      EXPECT_EQ(po.actions[0].port, 2u);
    }
  auto hosts = c.controller().topology().hosts();
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].mac, MacAddr::from_u64(kMacA));
  // A port that goes down and up is an edge port again until LLDP says otherwise.
  s1.send(link_down(3));
  of::PortStatus up = link_down(3);
  up.desc.state = 0;
  s1.send(up);
  s1.sync();
  std::this_thread::sleep_for(30ms);
  s1.packet_in(3, eth_frame(0xffffffffffff, 0x0200000000dd, 0x0806));
  ASSERT_TRUE(wait_for([&] { return c.controller().topology().hosts().size() == 2; }));
}

// Two switches, A on s1 port 1, B on s2 port 1, cable s1:3 <-> s2:3.
TEST_P(TopologyTest, PathFlowsLastHopFirstAndThePacketAfterTheBarrier) {
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(shortest_path());
  ControllerRunner c(std::move(apps), fast_topology());
  FakeSwitch s1(c.port(), GetParam(), 1), s2(c.port(), GetParam(), 2);
  relay_lldp(s1, 3, s2, 3);
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 2; }));
  // B speaks first (to an unknown MAC: flooded), so it is known.
  s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));
  ASSERT_TRUE(wait_for([&] { return c.controller().topology().hosts().size() == 1; }));
  s2.hold_barriers();
  size_t s1_outs = s1.all<of::PacketOut>().size();
  Bytes frame = eth_frame(kMacB, kMacA, 0x0800);
  s1.packet_in(1, frame);
  // s2 (the last hop) gets the flow and a barrier; s1 nothing while it is unanswered.
  ASSERT_TRUE(wait_for([&] { return !flows_to(s2, kMacB).empty(); }));
  ASSERT_TRUE(s2.wait_count<of::BarrierRequest>(1));
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(flows_to(s1, kMacB).empty());
  auto data_outs = [&] {
    size_t n = 0;
    for (const auto& po : s1.all<of::PacketOut>()) n += po.data == frame;
    return n;
  };
  EXPECT_EQ(data_outs(), 0u);
  s2.release_barriers();
  ASSERT_TRUE(wait_for([&] { return !flows_to(s1, kMacB).empty() && data_outs() == 1; }));
  auto f1 = flows_to(s1, kMacB), f2 = flows_to(s2, kMacB);
  ASSERT_EQ(f1.size(), 1u);
  ASSERT_EQ(f2.size(), 1u);
  EXPECT_EQ(out_port(f1[0]), 3u);
  EXPECT_EQ(out_port(f2[0]), 1u);
  EXPECT_EQ(f1[0].priority, ShortestPath::kPriority);
  EXPECT_EQ(f1[0].idle_timeout, 60);
  EXPECT_EQ(f1[0].match.fields.size(), 1u);  // per destination: eth_dst only
  for (const auto& po : s1.all<of::PacketOut>())
    if (po.data == frame) {
      EXPECT_EQ(po.actions.at(0).port, 3u);
    }
  EXPECT_GT(s1.all<of::PacketOut>().size(), s1_outs);
}

// A link found in one direction is probed in the other at once: s2's LLDP
// goes out of port 3 again when s1's frame arrives there (at start-up the
// other switch may not have been connected yet when it first went out), not
// at the next tick (1 min here).
TEST_P(TopologyTest, NewLinkSendsLldpBackAtOnce) {
  std::vector<std::unique_ptr<App>> apps;
  apps.push_back(shortest_path());
  ControllerRunner c(std::move(apps), fast_topology(60000ms));
  FakeSwitch s1(c.port(), GetParam(), 1), s2(c.port(), GetParam(), 2);
  ASSERT_TRUE(wait_for([&] { return lldp_out_of(s1, 3).has_value() && lldp_out_of(s2, 3).has_value(); }));
  size_t before = s2.all<of::PacketOut>().size();
  s2.packet_in(3, *lldp_out_of(s1, 3));  // s1:3 -> s2:3 seen
  ASSERT_TRUE(wait_for([&] { return n_links(c) == 1; }));
  ASSERT_TRUE(wait_for([&] { return s2.all<of::PacketOut>().size() > before; }));
  auto outs = s2.all<of::PacketOut>();
  ASSERT_TRUE(lldp_out_of(s2, 3).has_value());
  EXPECT_EQ(outs.back().actions.at(0).port, 3u);
  EXPECT_EQ(outs.back().data.at(12), 0x88);
}

// Triangle: s1:2-s2:3, s2:2-s3:3, s3:2-s1:3; the tree leaves out s2:2-s3:3.
struct Triangle {
  explicit Triangle(uint8_t v, bool proxy_arp = false, ControllerOptions o = fast_topology())
      : c(make(proxy_arp, &app), o),
        p1(std::make_unique<FakeSwitch>(c.port(), v, 1)),
        p2(std::make_unique<FakeSwitch>(c.port(), v, 2)),
        p3(std::make_unique<FakeSwitch>(c.port(), v, 3)),
        s1(*p1),
        s2(*p2),
        s3(*p3) {
    relay_lldp(s1, 2, s2, 3);
    relay_lldp(s2, 2, s3, 3);
    relay_lldp(s3, 2, s1, 3);
    EXPECT_TRUE(wait_for([&] { return n_links(c) == 6; }));
  }
  static std::vector<std::unique_ptr<App>> make(bool proxy_arp, ShortestPath** app) {
    std::vector<std::unique_ptr<App>> apps;
    apps.push_back(shortest_path(proxy_arp));
    *app = static_cast<ShortestPath*>(apps.back().get());
    return apps;
  }
  ShortestPath* app = nullptr;
  ControllerRunner c;
  std::unique_ptr<FakeSwitch> p1, p2, p3;
  FakeSwitch &s1, &s2, &s3;
};

std::vector<uint32_t> outputs(const of::PacketOut& po) {
  std::vector<uint32_t> v;
  for (const auto& a : po.actions) v.push_back(a.port);
  return v;
}

TEST_P(TopologyTest, BroadcastFloodsOnTheSpanningTreeAndEdgePortsOnly) {
  Triangle t(GetParam());
  auto tree = t.c.controller().topology_service().spanning_tree();
  EXPECT_EQ(tree, (std::set<topology::PortRef>{{1, 2}, {1, 3}, {2, 3}, {3, 2}}));
  Bytes bcast = eth_frame(0xffffffffffff, kMacA, 0x0806);
  auto flooded = [&](FakeSwitch& s) -> std::optional<std::vector<uint32_t>> {
    for (const auto& po : s.all<of::PacketOut>())
      if (po.data == bcast) return outputs(po);
    return std::nullopt;
  };
  t.s1.packet_in(1, bcast);
  ASSERT_TRUE(wait_for([&] { return flooded(t.s1).has_value(); }));
  EXPECT_EQ(*flooded(t.s1), (std::vector<uint32_t>{2, 3}));  // tree ports; p1 was the ingress
  // The copy reaching s2 over the tree goes to its host port only (s2:2 is off the tree).
  t.s2.packet_in(3, bcast);
  ASSERT_TRUE(wait_for([&] { return flooded(t.s2).has_value(); }));
  EXPECT_EQ(*flooded(t.s2), (std::vector<uint32_t>{1}));
  // A copy arriving over the non-tree cable is dropped: nothing sent.
  t.s3.packet_in(3, bcast);
  t.s3.sync();
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(flooded(t.s3).has_value());
}

TEST_P(TopologyTest, LinkDownMovesTheFlowsToTheOtherWayRound) {
  Triangle t(GetParam());
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B on s2:1
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  t.s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s1, kMacB).empty(); }));
  EXPECT_EQ(out_port(flows_to(t.s1, kMacB).back()), 2u);
  EXPECT_TRUE(flows_to(t.s3, kMacB).empty());  // s3 is not on the path
  auto t0 = std::chrono::steady_clock::now();
  t.s1.send(link_down(2));
  ASSERT_TRUE(wait_for([&] { return out_port(flows_to(t.s1, kMacB).back()) == 3u; }));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s3, kMacB).empty(); }));
  auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0);
  EXPECT_EQ(out_port(flows_to(t.s3, kMacB).back()), 3u);  // s3:3 is the cable to s2
  RecordProperty("reroute_us", int(us.count()));
  // s2's flow to its own host stays as it was.
  auto f2 = flows_to(t.s2, kMacB);
  ASSERT_FALSE(f2.empty());
  EXPECT_EQ(out_port(f2.back()), 1u);
}

// The moved flows go out last hop first: s1's new flow (towards s3) only after
// s3, one hop from B's switch, has confirmed its flow with a barrier reply.
TEST_P(TopologyTest, LinkDownMovesTheFlowsLastHopFirst) {
  Triangle t(GetParam());
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B on s2:1
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  t.s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s1, kMacB).empty(); }));
  size_t s1_flows = flows_to(t.s1, kMacB).size();
  t.s3.hold_barriers();
  t.s3.sync();
  t.s1.send(link_down(2));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s3, kMacB).empty(); }));
  ASSERT_TRUE(t.s3.wait_count<of::BarrierRequest>(1));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(flows_to(t.s1, kMacB).size(), s1_flows) << "s1 moved before s3 knew B";
  t.s3.release_barriers();
  ASSERT_TRUE(wait_for([&] { return out_port(flows_to(t.s1, kMacB).back()) == 3u; }));
}

// Only a chain of changed flows waits for barriers. Flows to B (on s2) on s1
// and s3, to A (on s1) on s2; s1-s2 goes down. s1's new flow to B points at
// s3, which already has B's flow: it goes out at once, while s3's barrier is
// still unanswered. s3's new flow to A points at A's own switch: at once
// too. s2's new flow to A points at s3, whose flow to A is new: it waits for
// s3's barrier reply. The time to the last reply is recorded.
TEST_P(TopologyTest, RerouteWaitsOnlyForChangedNextHops) {
  constexpr uint64_t kMacC = 0x0200000000cc;
  Triangle t(GetParam());
  EXPECT_LT(t.app->last_reroute_ms(), 0);
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B on s2:1
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  t.s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));  // A on s1:1 -> B: s1:2
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s1, kMacB).empty(); }));
  t.s3.packet_in(1, eth_frame(kMacB, kMacC, 0x0800));  // C on s3:1 -> B: s3:3
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s3, kMacB).empty(); }));
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B -> A: s2:3
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s2, kMacA).empty(); }));
  ASSERT_EQ(out_port(flows_to(t.s2, kMacA).back()), 3u);
  ASSERT_EQ(out_port(flows_to(t.s3, kMacB).back()), 3u);
  size_t s3_barriers = t.s3.all<of::BarrierRequest>().size();
  t.s3.hold_barriers();
  t.s3.sync();
  t.s1.send(link_down(2));
  ASSERT_TRUE(wait_for([&] { return out_port(flows_to(t.s1, kMacB).back()) == 3u; }))
      << "s1 waited although s3 already knew B";
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s3, kMacA).empty(); }));
  EXPECT_EQ(out_port(flows_to(t.s3, kMacA).back()), 2u);
  ASSERT_TRUE(t.s3.wait_count<of::BarrierRequest>(s3_barriers + 1));
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(out_port(flows_to(t.s2, kMacA).back()), 3u) << "s2 moved before s3 knew A";
  EXPECT_LT(t.app->last_reroute_ms(), 0);  // the last level is not acknowledged yet
  t.s3.release_barriers();
  ASSERT_TRUE(wait_for([&] { return out_port(flows_to(t.s2, kMacA).back()) == 2u; }));
  ASSERT_TRUE(wait_for([&] { return t.app->last_reroute_ms() >= 0; }));
  EXPECT_GE(t.app->last_reroute_ms(), 50.0);  // it included the 50 ms s3 held its barrier
  RecordProperty("reroute_ack_us", int(t.app->last_reroute_ms() * 1000));
}

TEST_P(TopologyTest, SwitchLossRemovesFlowsThatHaveNoPathLeft) {
  Triangle t(GetParam());
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  t.s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s1, kMacB).empty(); }));
  // B's switch goes away: its host is forgotten and s1's flow towards B deleted.
  t.p2.reset();
  ASSERT_TRUE(wait_for([&] {
    for (const auto& fm : flows_to(t.s1, kMacB))
      if (fm.command == of::FlowModCommand::kDelete) return true;
    return false;
  }));
  auto hosts = t.c.controller().topology().hosts();
  ASSERT_EQ(hosts.size(), 1u);  // A stays, B went with its switch
  EXPECT_EQ(hosts[0].mac, MacAddr::from_u64(kMacA));
  EXPECT_EQ(n_links(t.c), 2u);  // s1 <-> s3 remains
}

TEST_P(TopologyTest, ProxyArpAnswersFromTheHostTable) {
  Triangle t(GetParam(), true);
  MacAddr a = MacAddr::from_u64(kMacA), b = MacAddr::from_u64(kMacB);
  Ipv4Addr ipa = *Ipv4Addr::parse("10.0.0.1"), ipb = *Ipv4Addr::parse("10.0.0.2");
  Bytes req_b =
      FrameBuilder().eth(MacAddr::from_u64(0xffffffffffff), b).arp(1, b, ipb, MacAddr{}, ipa).build();
  t.s2.packet_in(1, req_b);  // B asks for A: unknown, flooded; B learned with its address
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  Bytes req_a =
      FrameBuilder().eth(MacAddr::from_u64(0xffffffffffff), a).arp(1, a, ipa, MacAddr{}, ipb).build();
  t.s1.packet_in(1, req_a);
  Bytes want = FrameBuilder().eth(a, b).arp(2, b, ipb, a, ipa).build();
  ASSERT_TRUE(wait_for([&] {
    for (const auto& po : t.s1.all<of::PacketOut>())
      if (po.data == want && outputs(po) == std::vector<uint32_t>{1}) return true;
    return false;
  }));
  // Not flooded anywhere else.
  for (const auto& po : t.s1.all<of::PacketOut>()) EXPECT_NE(po.data, req_a);
}

TEST_P(TopologyTest, AHostThatMovesHasItsFlowsDeleted) {
  Triangle t(GetParam());
  t.s2.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));
  ASSERT_TRUE(wait_for([&] { return t.c.controller().topology().hosts().size() == 1; }));
  t.s1.packet_in(1, eth_frame(kMacB, kMacA, 0x0800));
  ASSERT_TRUE(wait_for([&] { return !flows_to(t.s1, kMacB).empty(); }));
  t.s3.packet_in(1, eth_frame(kMacA, kMacB, 0x0800));  // B now behind s3:1
  ASSERT_TRUE(wait_for([&] {
    for (const auto& h : t.c.controller().topology().hosts())
      if (h.mac == MacAddr::from_u64(kMacB)) return h.dpid == 3 && h.port_no == 1;
    return false;
  }));
  for (FakeSwitch* s : {&t.s1, &t.s2})
    ASSERT_TRUE(wait_for([&] {
      for (const auto& fm : flows_to(*s, kMacB))
        if (fm.command == of::FlowModCommand::kDelete) return true;
      return false;
    }));
}

// The firewall's reload deletes its flows (on OF1.0 every flow: no cookie
// mask); the topology service's LLDP flow comes back right behind the deletion.
TEST_P(TopologyTest, FirewallReloadKeepsTheLldpFlow) {
  std::string rules = ::testing::TempDir() + "fw-reload-" + std::to_string(::getpid()) + ".yaml";
  std::ofstream(rules) << "security_groups:\n  - name: s\n    targets: [{ip: 10.0.0.2}]\n"
                          "    ingress: [{protocol: icmp}]\n";
  AppConfig cfg;
  cfg.config_file = rules;
  std::vector<std::unique_ptr<App>> apps;
  for (const char* n : {"firewall", "shortest-path"}) {
    auto a = make_app(n, cfg);
    ASSERT_TRUE(a.ok()) << a.error().message;
    apps.push_back(std::move(*a));
  }
  ControllerRunner c(std::move(apps), fast_topology());
  FakeSwitch sw(c.port(), GetParam(), 1);
  auto lldp_flows_after = [&](size_t from) {
    size_t n = 0;
    auto fms = sw.all<of::FlowMod>();
    for (size_t i = from; i < fms.size(); ++i)
      n += is_lldp_flow(fms[i]) && fms[i].command == of::FlowModCommand::kAdd;
    return n;
  };
  ASSERT_TRUE(wait_for([&] { return lldp_flows_after(0) == 1; }));
  ASSERT_TRUE(c.controller().reload().ok());
  size_t del = 0;
  ASSERT_TRUE(wait_for([&] {
    auto fms = sw.all<of::FlowMod>();
    for (size_t i = 0; i < fms.size(); ++i)
      if (fms[i].command == of::FlowModCommand::kDelete) {
        del = i;
        return true;
      }
    return false;
  }));
  EXPECT_TRUE(wait_for([&] { return lldp_flows_after(del + 1) == 1; })) << "no LLDP flow after the reload";
  std::remove(rules.c_str());
}

INSTANTIATE_TEST_SUITE_P(Versions, TopologyTest, ::testing::Values(of::kOf13, of::kOf10),
                         [](const auto& info) { return info.param == of::kOf13 ? "OF13" : "OF10"; });

}  // namespace
}  // namespace flowlab::controller

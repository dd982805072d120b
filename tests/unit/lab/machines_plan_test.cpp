// Placing a scenario on machines (plan.h), the plan's and statuses' JSON, and
// what a machine's part refuses: pure, no etcd and no namespaces.
#include <gtest/gtest.h>

#include <set>

#include "lab/machines/agent_status.h"
#include "lab/machines/exec_wire.h"
#include "lab/machines/plan.h"
#include "lab/scenario/topology.h"

namespace flowlab::lab {
namespace {

const char* kLinear4 = R"(
name: lin4
topology: {type: linear, k: 4, switch: {kind: linux-bridge}}
)";

Scenario parse(const std::string& yaml) {
  auto sc = parse_scenario(yaml, "t.yaml");
  EXPECT_TRUE(sc.ok()) << sc.error().message;
  return sc.ok() ? std::move(*sc) : Scenario{};
}

TEST(MachinesPlan, LinearChainIsCutIntoContiguousBalancedRuns) {
  Scenario sc = parse(kLinear4);
  auto placed = place_nodes(sc, sc.cases[0], {"a", "b"});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  ASSERT_EQ(placed->size(), 8u);
  std::map<std::string, int> load;
  for (const auto& [n, m] : *placed) ++load[m];
  EXPECT_EQ(load["a"], 4);
  EXPECT_EQ(load["b"], 4);
  for (int i = 1; i <= 4; ++i)  // each host with its switch
    EXPECT_EQ(placed->at("h" + std::to_string(i)), placed->at("s" + std::to_string(i)));
  EXPECT_EQ(cut_links(sc, *placed).size(), 1u);  // one cut in the chain, not three
}

TEST(MachinesPlan, MachineKeysWinAndAnUnknownMachineIsAnError) {
  Scenario sc = parse(R"(
name: pinned
hosts:
  h1: {addr: 10.0.0.1/24, machine: far}
  h2: {addr: 10.0.0.2/24}
switches:
  s1: {kind: linux-bridge, machine: near}
links:
  - endpoints: [h1:eth0, s1:p1]
  - endpoints: [h2:eth0, s1:p2]
tests:
  - {type: ping, from: h1, to: h2}
)");
  auto placed = place_nodes(sc, sc.cases[0], {"near", "far"});
  ASSERT_TRUE(placed.ok()) << placed.error().message;
  EXPECT_EQ(placed->at("h1"), "far");
  EXPECT_EQ(placed->at("s1"), "near");
  EXPECT_EQ(placed->at("h2"), "near");
  auto bad = place_nodes(sc, sc.cases[0], {"near", "other"});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("t.yaml:4: node h1 is on machine 'far', which is not one of the run's "
                                     "machines (near, other)"),
            std::string::npos)
      << bad.error().message;
}

CasePlan two_machine_plan(const Scenario& sc) {
  CasePlan p;
  p.run = "r1";
  p.case_name = sc.cases[0].name;
  p.scenario = "unused";
  p.machines = {{"a", {"192.0.2.1", 0}}, {"b", {"192.0.2.2", 1}}};
  p.placement = *place_nodes(sc, sc.cases[0], {"a", "b"});
  p.controllers_on = "a";
  return p;
}

TEST(MachinesPlan, PartHasOneTunnelPerCutLinkAndTheControlSegment) {
  Scenario sc = parse(kLinear4);
  CasePlan plan = two_machine_plan(sc);
  auto a = part_for(sc, sc.cases[0], plan, "a");
  auto b = part_for(sc, sc.cases[0], plan, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->tunnels.size(), 1u);
  ASSERT_EQ(b->tunnels.size(), 1u);
  EXPECT_EQ(a->tunnels.begin()->first, b->tunnels.begin()->first);            // the same link
  EXPECT_EQ(a->tunnels.begin()->second.vni, b->tunnels.begin()->second.vni);  // one VNI
  EXPECT_EQ(a->tunnels.begin()->second.remote, "192.0.2.2");
  EXPECT_EQ(a->tunnel_mtu, 1450);
  EXPECT_TRUE(a->controllers);
  EXPECT_FALSE(b->controllers);
  EXPECT_EQ(b->controller_host, "198.51.100.1");
  EXPECT_EQ(b->control_addr, "198.51.100.2/24");
  EXPECT_EQ(b->control_peers, std::vector<std::string>{"192.0.2.1"});
  EXPECT_NE(a->ns_prefix, b->ns_prefix);
  EXPECT_EQ(a->nodes.size() + b->nodes.size(), 8u);
}

// A shaped link between machines is a tunnel on each side (each shapes its own
// way out); a shaped provider link is refused with its file and line.
TEST(MachinesPlan, ShapedLinkAcrossMachinesIsATunnelEachSideAndAShapedProviderLinkIsRefused) {
  auto shaped = [](const std::string& type) {
    return parse(R"(
name: shaped
hosts:
  h1: {addr: 10.0.0.1/24, machine: a}
  h2: {addr: 10.0.0.2/24, machine: b}
links:
  - {endpoints: [h1:eth0, h2:eth0], delay: 5ms)" +
                 type + R"(}
tests:
  - {type: ping, from: h1, to: h2}
)");
  };
  CasePlan plan;
  plan.run = "r1";
  plan.machines = {{"a", {"192.0.2.1", 0}}, {"b", {"192.0.2.2", 1}}};
  plan.placement = {{"h1", "a"}, {"h2", "b"}};
  Scenario sc = shaped("");
  plan.case_name = sc.cases[0].name;
  for (const char* m : {"a", "b"}) {
    auto part = part_for(sc, sc.cases[0], plan, m);
    ASSERT_TRUE(part.ok()) << part.error().message;
    ASSERT_EQ(part->tunnels.count(0), 1u);
    EXPECT_EQ(part->tunnels.at(0).vlan, 0);
  }
  Scenario provider = shaped(", type: underlay, vlan: 7");
  auto part = part_for(provider, provider.cases[0], plan, "a");
  ASSERT_FALSE(part.ok());
  EXPECT_NE(
      part.error().message.find("t.yaml:7: link h1-h2 is `type: underlay` (a provider link) and shaped"),
      std::string::npos)
      << part.error().message;
}

// Provider links (type: underlay): a VLAN end on each machine, no VXLAN; without
// a VLAN, or two on one VLAN leaving one machine, refused with the file and line.
TEST(MachinesPlan, ProviderLinksAreVlanEndsAndTheirMistakesAreRefused) {
  auto provider = [](const std::string& second) {
    return parse(R"(
name: provider
hosts:
  h1: {addr: 10.0.0.1/24, machine: a}
  h2: {addr: 10.0.0.2/24, machine: b}
  h3: {addr: 10.0.0.3/24, machine: b}
links:
  - {endpoints: [h1:eth0, h2:eth0], type: underlay, vlan: 100}
  - {endpoints: [h1:eth1, h3:eth0], )" +
                 second + R"(}
tests:
  - {type: ping, from: h1, to: h2}
)");
  };
  CasePlan plan;
  plan.run = "r1";
  plan.machines = {{"a", {"192.0.2.1", 0}}, {"b", {"192.0.2.2", 1}}};
  plan.placement = {{"h1", "a"}, {"h2", "b"}, {"h3", "b"}};
  Scenario mixed = provider("type: underlay, vlan: 200");
  plan.case_name = mixed.cases[0].name;
  auto a = part_for(mixed, mixed.cases[0], plan, "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->tunnels.size(), 2u);
  EXPECT_EQ(a->tunnels.at(0).vlan, 100);
  EXPECT_EQ(a->tunnels.at(1).vlan, 200);
  Scenario tunnel = provider("mtu: 1400");  // an ordinary link beside it: VXLAN
  a = part_for(tunnel, tunnel.cases[0], plan, "a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->tunnels.at(1).vlan, 0);
  Scenario twice = provider("type: underlay, vlan: 100");
  a = part_for(twice, twice.cases[0], plan, "a");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("t.yaml:9: links h1-h2 and h1-h3 both leave machine a on VLAN 100"),
            std::string::npos)
      << a.error().message;
  Scenario untagged = provider("type: underlay");
  a = part_for(untagged, untagged.cases[0], plan, "a");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(
      a.error().message.find("t.yaml:9: link h1-h3 is `type: underlay` between machines without a `vlan:`"),
      std::string::npos)
      << a.error().message;
}

TEST(MachinesPlan, PlanRoundTripsAndBadPlansAreRefused) {
  Scenario sc = parse(kLinear4);
  CasePlan plan = two_machine_plan(sc);
  plan.capture = {1, 2};
  plan.capture_max_bytes = 20'000;
  auto back = decode_plan(encode_plan(plan));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->placement, plan.placement);
  EXPECT_EQ(back->capture, (std::vector<size_t>{1, 2}));
  EXPECT_EQ(back->capture_max_bytes, 20'000u);
  EXPECT_EQ(back->machines.at("b").underlay, "192.0.2.2");
  EXPECT_FALSE(decode_plan("not json").ok());
  CasePlan bad = plan;
  bad.placement["h1"] = "nowhere";
  auto r = decode_plan(encode_plan(bad));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("node h1 is placed on nowhere, which the plan lacks"), std::string::npos);
  bad = plan;
  bad.underlay_mtu = 600;
  EXPECT_FALSE(decode_plan(encode_plan(bad)).ok());
}

TEST(MachinesPlan, StatusRoundTripsItsLinkEndsAndShapedLinks) {
  AgentStatus s{
      "b", "default", "ready", "", "flr-0m1-sw", {{"h3", "flr-0m1-h3"}}, {}, 0.5, nlohmann::json::array()};
  s.link_ends = {{{"", ""}, {"", ""}}, {{"flr-0m1-h3", "eth0"}, {"flr-0m1-sw", "s3-1"}}};
  auto back = decode_status(encode_status(s));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->link_ends, s.link_ends);
  EXPECT_EQ(back->host_ns, s.host_ns);
  s.shaped_links.push_back({{"link", "s1:p2-s2:p1"}, {"machine", "b"}, {"shaped_here", "b_to_a"}});
  back = decode_status(encode_status(s));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->shaped_links, s.shaped_links);
  EXPECT_FALSE(decode_status(R"({"machine":"b","case":"c","state":"dancing"})").ok());
  EXPECT_FALSE(decode_status(R"({"machine":"b","case":"c","state":"ready","shaped_links":{}})").ok());
  EXPECT_FALSE(decode_status(R"({"machine":"b","case":"c","state":"ready","shaped_links":[1]})").ok());
}

TEST(MachinesPlan, ExecRequestsAndRepliesRoundTripAndBadOnesAreRefused) {
  ExecRequest q{
      "spawn", "iperf3 server", "fl1-h2", {"iperf3", "-s", "-1"}, false, 12.5, true, {{"A", "b c"}}, {}, {},
      0};
  auto back = decode_exec_request(encode_exec_request(q));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->mode, "spawn");
  EXPECT_EQ(back->argv, q.argv);
  EXPECT_EQ(back->env, q.env);
  EXPECT_DOUBLE_EQ(back->timeout_s, 12.5);
  for (const char* bad :
       {"[]", "{\"mode\":\"run\"}", R"({"mode":"exec","ns":"a","argv":["x"]})",
        R"({"mode":"run","ns":"a","argv":[]})", R"({"mode":"run","ns":"../a","argv":["x"]})",
        R"({"mode":"run","ns":"a","argv":["x"],"timeout_s":-1})"}) {
    auto r = decode_exec_request(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  // A fetch of a capture file: its name and offset back; a path is refused.
  ExecRequest f;
  f.mode = "fetch";
  f.file = "s1-s2@m0.1.pcap";
  f.offset = 3u << 20;
  auto fb = decode_exec_request(encode_exec_request(f));
  ASSERT_TRUE(fb.ok()) << fb.error().message;
  EXPECT_EQ(fb->file, f.file);
  EXPECT_EQ(fb->offset, f.offset);
  for (const char* name : {"", "..", "../state/x.pcap", "/etc/passwd"}) {
    f.file = name;
    EXPECT_FALSE(decode_exec_request(encode_exec_request(f)).ok()) << name;
  }
  f = {};
  f.mode = "finish";
  EXPECT_TRUE(decode_exec_request(encode_exec_request(f)).ok());
  ExecRequest ev;
  ev.mode = "event";
  ev.event = {"down", "", "s1", "s2", {}};
  auto evb = decode_exec_request(encode_exec_request(ev));
  ASSERT_TRUE(evb.ok()) << evb.error().message;
  EXPECT_EQ(evb->event.link_b, "s2");
  EXPECT_FALSE(decode_exec_request(R"({"mode":"event","event":{"action":"explode"}})").ok());
  EXPECT_FALSE(decode_exec_request(R"({"mode":"event","event":{"action":"kill"}})").ok());  // no node
  // A `set` carries its shape per direction, exactly; a bad or missing shape is refused.
  ev.event = {"set", "", "s1", "s2", {}};
  ev.event.set.a_to_b.delay_ns = 30'000'000;
  ev.event.set.b_to_a.loss_pct = 2.5;
  ev.event.set.b_to_a.bw_bps = 20'000'000;
  evb = decode_exec_request(encode_exec_request(ev));
  ASSERT_TRUE(evb.ok()) << evb.error().message;
  EXPECT_EQ(evb->event.set.a_to_b.delay_ns, 30'000'000u);
  EXPECT_FALSE(evb->event.set.a_to_b.bw_bps.has_value());
  EXPECT_EQ(evb->event.set.b_to_a.loss_pct, 2.5);
  EXPECT_EQ(evb->event.set.b_to_a.bw_bps, 20'000'000u);
  for (const char* bad : {R"({"mode":"event","event":{"action":"set","link_a":"s1","link_b":"s2"}})",
                          R"({"mode":"event","event":{"action":"set","set":{"a_to_b":{"loss_pct":150}}}})",
                          R"({"mode":"event","event":{"action":"set","set":{"a_to_b":{"bw_bps":0}}}})",
                          R"({"mode":"event","event":{"action":"set","set":{"a_to_b":{"delay_ns":-1}}}})",
                          R"({"mode":"event","event":{"action":"set","set":{"b_to_a":{"rate":"1G"}}}})"}) {
    auto r = decode_exec_request(bad);
    EXPECT_FALSE(r.ok()) << bad;
  }
  ExecReply a{"exited", "", 3, true, false, "out", "err\n", ""};
  auto rep = decode_exec_reply(encode_exec_reply(a));
  ASSERT_TRUE(rep.ok()) << rep.error().message;
  EXPECT_EQ(rep->exit_code, 3);
  EXPECT_TRUE(rep->timed_out);
  EXPECT_EQ(rep->err, "err\n");
  EXPECT_FALSE(decode_exec_reply(R"({"state":"lost"})").ok());
  // Output past the cap keeps its end, marked as cut.
  a.out = "first\n" + std::string(kExecOutputCap, 'x') + "\nlast";
  rep = decode_exec_reply(encode_exec_reply(a));
  ASSERT_TRUE(rep.ok());
  EXPECT_LT(rep->out.size(), a.out.size());
  EXPECT_EQ(rep->out.rfind("[... cut]\n", 0), 0u);
  EXPECT_EQ(rep->out.substr(rep->out.size() - 5), "\nlast");
}

}  // namespace
}  // namespace flowlab::lab

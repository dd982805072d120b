// The lab's topology model: what a scenario YAML file declares, after parsing and
// semantic checks. Pure data; no OS access. See docs/LAB.md for the file format.
//
// A scenario has a base topology (hosts, switches, controllers, links), a list of
// cases (each a full copy of the switch/controller specs with the case's overrides
// applied, plus its offload setting) and a list of tests run in every case.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/scenario/events.h"   // events
#include "lab/scenario/shaping.h"  // link shaping

namespace flowlab::lab {

struct Interface {
  std::string name;  // inside the host's namespace, e.g. "eth0"
  std::string addr;  // CIDR, e.g. "10.0.0.1/24"; empty: no address
  int mtu = 0;       // 0: kernel default
  std::string mac;   // empty: the kernel's random one
};

struct HostSpec {
  std::string name;
  std::vector<Interface> interfaces;
  std::optional<bool> offloads;  // overrides the case's setting for this host's veths
  std::string machine;           // `machine: m1`: placed on that machine (lab across machines)
  int line = 0;
};

enum class SwitchKind { kFlowlab, kOvs, kOvsTso, kLinuxBridge };
std::string_view to_string(SwitchKind k);

// One allow rule of an iptables security group (Neutron hybrid plug style).
struct SgRule {
  std::string proto;  // tcp | udp | icmp | any
  int port = 0;       // destination port, 0: any
  std::string src;    // source CIDR, empty: any
};

struct SwitchSpec {
  std::string name;
  SwitchKind kind = SwitchKind::kFlowlab;
  uint64_t dpid = 0;
  std::string controller;  // controller name, empty: none
  // `controller: [c0, c1]`: the controllers after the first, each connected at once
  // (Mininet's several --controller); `controller` holds the first.
  std::vector<std::string> more_controllers;
  // `controller_failover: true` (flowlab switches): the controllers one at a time, in
  // order, the next when the connection to the current one fails or dies (Mininet's
  // user switch); false: connected to every one at once.
  bool controller_failover = false;
  // `protocols: OpenFlow13` (ovs-vsctl's spelling, comma-separated): the OpenFlow
  // versions the switch offers; empty: the backend's default (1.0 and 1.3).
  std::string protocols;
  bool security_group = false;
  std::vector<SgRule> sg_rules;
  std::vector<std::string> extra_args;  // appended to the switch command line (flowlab)
  bool stp = false;                     // linux-bridge: kernel STP (the run waits for forwarding)
  std::vector<std::string> ports;       // declared port order (OpenFlow 1, 2, ...); empty: link order
  // `ports: {eth1: 1, eth9: 9}`: each declared port's OpenFlow number (gaps allowed),
  // parallel to `ports`; empty: 1, 2, ... in the declared order.
  std::vector<int> port_numbers;
  // The OpenFlow number of the i-th port in the declared order.
  int port_number(size_t i) const { return i < port_numbers.size() ? port_numbers[i] : int(i) + 1; }
  std::string machine;  // `machine: m1`: placed on that machine (lab across machines)
  int line = 0;
  // Whether the switch connects to controller `name` (the first or any other).
  bool uses(const std::string& name) const {
    return !name.empty() && (controller == name || std::find(more_controllers.begin(), more_controllers.end(),
                                                             name) != more_controllers.end());
  }
};

// A controller the lab does not start (`kind: remote`, Mininet's RemoteController):
// ONOS, OpenDaylight, a Ryu elsewhere, reached from the lab's own namespace.
enum class ControllerKind { kNone, kFlowlab, kOsKen, kRemote };
std::string_view to_string(ControllerKind k);

struct ControllerSpec {
  std::string name;
  ControllerKind kind = ControllerKind::kNone;
  std::vector<std::string> apps;  // flowlab apps, in order
  std::string config;             // flowlab --config file (resolved path)
  std::string app_file;           // os-ken app (resolved path)
  int port = 0;                   // OpenFlow listen port (assigned if 0); remote: its port (0: 6653,
                                  // else 6633 when only that one listens, as Mininet)
  std::string address;            // remote: the controller's IPv4 address (127.0.0.1)
  int line = 0;
};

struct Endpoint {
  std::string node;  // host or switch name
  std::string ifname;
};

struct LinkSpec {
  Endpoint a, b;
  int mtu = 0;
  // `type: underlay`: a physical link between machines (a provider network), carried
  // on the machines' underlay NIC as VLAN `vlan` (802.1Q) instead of a VXLAN
  // tunnel; on one machine it is a veth like any link.
  bool underlay = false;
  int vlan = 0;
  LinkShapes shape;  // bw/delay/jitter/loss/queue per direction (a = first endpoint)
  int line = 0;
};

enum class TestType { kPing, kIperf3Tcp, kIperf3Udp, kIperf2Window, kTcpRr, kPingall, kProbe };
std::string_view to_string(TestType t);

struct TestSpec {
  std::string name;  // unique within the scenario (defaults to type, de-duplicated)
  TestType type = TestType::kPing;
  std::string from, to;   // host names; `to` may be "host:ifname"; none for pingall
  int count = 10;         // ping, tcp-rr, pingall (per pair)
  double interval = 0.2;  // ping, probe seconds
  double duration = 3;    // seconds
  int streams = 1;        // iperf3-tcp -P
  std::string window;     // iperf3-tcp -w (e.g. 64K), empty: default
  std::string rate;       // iperf3 -b: UDP's offered rate (empty: 1G), TCP's cap (empty: none)
  int size = 1400;        // iperf3-udp -l, tcp-rr message bytes
  std::vector<std::string> windows = {"16K", "32K", "64K"};  // iperf2-window
  bool full = false;  // pingall: every pair's sent/received and RTT min/avg/max/mdev (Mininet's pingallfull)
  // The scenario's events run during this test (`events: true`); the default for
  // probe tests. A ping runs count x interval seconds, the others `duration`.
  bool events = false;
  int line = 0;
  double run_seconds() const { return type == TestType::kPing ? count * interval : duration; }
};

struct CaseSpec {
  std::string name;  // case key `switch: {...}` overrides every switch, `switches:` one by name
  std::string description;
  std::map<std::string, SwitchSpec> switches;
  std::map<std::string, ControllerSpec> controllers;
  bool offloads = true;
  double settle_s = 0;             // > 0: before the tests, wait up to this long until the first host
                                   // reaches every other (a spanning tree converging), timed
  std::vector<std::string> tests;  // subset of test names, empty: all
  // `controller_link: {delay: 5ms}`: the case's controllers run in a namespace of
  // their own, reached from the switches' core namespace over a link shaped this
  // way (both directions): a controller far away. Unset: on the core's loopback.
  std::optional<LinkShape> controller_link;
  int line = 0;
};

struct Scenario {
  std::string path;
  std::string name;
  std::string description;
  std::vector<HostSpec> hosts;
  std::vector<LinkSpec> links;
  std::vector<CaseSpec> cases;  // at least one (a "default" case when none declared)
  std::vector<TestSpec> tests;
  std::string generator;              // "tree depth=2 fanout=2" when `topology:` generated the nodes
  std::vector<std::string> warnings;  // "FILE:LINE: ..." lines validate and run print (loops)
  std::vector<EventSpec> events;      // faults on a schedule, run during the tests with `events`
  // `capture: [s1-s2, h1:eth0]` or `capture: all`: the links captured to .pcap files
  // (lab/capture/link_select.h reads the items; the run checks them against the links).
  std::vector<std::string> capture;
  int capture_line = 0;
  // `metrics: true` or `metrics: {interval: 1s, port: 9090}`: a Prometheus in each
  // case scraping its flowlab switches and controllers every `interval`, listening
  // on 127.0.0.1:`port` of the case's core namespace (lab/measure/prometheus.h).
  bool metrics = false;
  double metrics_interval_s = 1;
  int metrics_port = 9090;
  // `underlay: {rate: 1G, mtu: 1500}`: the machines' network when the scenario runs
  // across machines (--machines shapes its emulated NICs to the rate; the verdicts
  // take it as the bound); --underlay-rate / --underlay-mtu override. 0: not given.
  double underlay_rate_bps = 0;
  int underlay_mtu = 0;
  // `static_arp: true` (Mininet's --arp): every host gets a permanent neighbour entry
  // for every other host's addressed interfaces before the tests.
  bool static_arp = false;

  const HostSpec* host(std::string_view name) const;
  // Address (without prefix length) of host[:ifname]; the first addressed interface
  // when no ifname is given.
  Result<std::string> address_of(std::string_view target) const;
};

// Parses and checks a scenario file. Errors read "FILE:LINE: key 'K': message".
Result<Scenario> load_scenario(const std::string& path);
// Same from text (path used in messages and to resolve relative file names).
Result<Scenario> parse_scenario(const std::string& text, const std::string& path);

// Applies --quick: shorter durations and fewer pings, for smoke runs.
void make_quick(Scenario& s);

}  // namespace flowlab::lab

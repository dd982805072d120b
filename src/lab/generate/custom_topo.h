// Mininet's --custom topologies: `flowlab lab run --custom mytopo.py --topo mytopo,3`.
//
// The user's Python file runs unchanged under python/flowlab_custom_topo.py (Debian's
// /usr/bin/python3 with its mininet.topo, or a stand-in when that is absent), which
// prints the Topo it built as JSON; decode_custom_topology() turns that JSON into
// the topology the lab builds. Mininet's semantics kept:
//   hosts      in Mininet's natural order; the N-th gets 10.0.0.N/8 (N in --ipbase) and 00:00:00:00:00:0N
//              unless it has ip= (an address without /len gets /8) or mac=
//   switches   dpid= (hex, ':' allowed), else the first number in the name (s12 -> 0xc)
//   links      in the order Mininet's buildFromTopo creates them; port1/port2 as Topo
//              numbered them (host ends eth<port>, switch ports eth<port>, OpenFlow
//              ports in port-number order)
//   shaping    only on a TCLink (cls=TCLink or a subclass, or `--link tc`), as in
//              Mininet where a plain Link ignores bw/delay: bw (Mbit/s), delay, jitter,
//              loss (%), max_queue_size (packets)
// Any option the lab cannot honour is an error naming the node or link and the option.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "lab/generate/generators.h"

namespace flowlab::lab {

struct CustomHost {
  std::string name;
  std::string ip;   // CIDR
  std::string mac;  // colon hex
};

struct CustomSwitch {
  std::string name;
  uint64_t dpid = 0;
};

struct CustomLink {
  std::string node1, node2;
  int port1 = 0, port2 = 0;
  bool tc = false;                      // a TCLink: the shaping below applies
  std::string bw, delay, jitter, loss;  // in the scenario's units ("10M", "5ms", "1%"); empty: unset
  int queue = 0;                        // max_queue_size, 0: unset
  std::vector<std::string> ignored;     // shaping options a plain Link ignores (named in notes)
};

struct CustomTopology {
  std::string topo_module;  // "mininet.topo /usr/lib/..." or "flowlab stand-in"
  std::vector<CustomHost> hosts;
  std::vector<CustomSwitch> switches;
  std::vector<CustomLink> links;
  std::vector<std::string> notes;  // what was ignored, for the user (stderr)
};

// Link options every link starts from: Mininet's `--link tc,bw=10,delay=5ms`, as the
// JSON object the exporter would give for a link ({"bw": 10, "delay": "5ms"}) plus tc.
struct LinkDefaults {
  bool tc = false;
  std::string opts_json = "{}";
};
// Parses --link: "default" | "tc[,KEY=VAL...]" (values numeric when they parse, as mn).
Result<LinkDefaults> parse_link_arg(const std::string& s);
// --link tc,... as a scenario link's shaping keys ({bw: 10M, delay: 5ms, loss: 1%,
// queue: 100}), what every link of a generated topology gets; an empty map for
// --link default.
Result<YAML::Node> link_shape_keys(const LinkDefaults& d);

// The exporter's JSON -> the topology. Errors: not JSON, the exporter's own error
// object (its message and traceback), a missing or mistyped field, an unknown or
// unsupported option, a bad address, dpid or port.
// Hosts without ip= are numbered in `ipbase` (Mininet's --ipbase).
Result<CustomTopology> decode_custom_topology(std::string_view json, const LinkDefaults& link = {},
                                              const IpBase& ipbase = {});

// Adds the topology to a scenario's YAML root: `hosts`, `switches` (each a copy of
// `switch_template`, the kind/controller of every switch, with its dpid and ports) and
// `links` (with their shaping), for scenario_from_mininet_args.
void add_custom_topology(YAML::Node& root, const CustomTopology& t, const YAML::Node& switch_template);

// Runs the exporter on FILES ("a.py,b.py") and TOPO ("mytopo,3") and decodes its
// output. The interpreter is $FLOWLAB_PYTHON or /usr/bin/python3; the exporter is
// found in $FLOWLAB_PYTHON_DIR, next to the binary (../python, ../../python,
// ../share/flowlab/python) or in the source tree it was built from.
Result<CustomTopology> load_custom_topology(const std::string& files, const std::string& topo,
                                            const LinkDefaults& link = {}, const IpBase& ipbase = {});
// The exporter's path, or an error listing where it was looked for.
Result<std::string> custom_topo_exporter();

}  // namespace flowlab::lab

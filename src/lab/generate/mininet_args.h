// A scenario from Mininet-style command-line arguments, so that
//   flowlab lab run --topo tree,2,3 --switch flowlab --controller flowlab:learning-switch --test pingall
// needs no YAML (Mininet's `mn --topo tree,2,3 --test pingall`):
//   --topo TYPE[,ARG...]   single|linear|tree|torus|fat-tree, Mininet's positional order (generators.h)
//   --switch KIND[,OPT]    flowlab|ovs|ovs-tso|linux-bridge|lxbr, options stp=1 (bridges) and
//                          protocols=OpenFlow13[,...] (OpenFlow switches); ovsk (the kernel datapath)
//                          is refused with the ones that run here
//   --controller C         none | flowlab:APP[,APP] | os-ken:FILE.py (ryu,FILE.py alike) |
//                          remote[,ip=A][,port=P] (127.0.0.1, 6653 or else 6633); repeatable: every
//                          switch connects to each (c0, c1, ...)
//   --test T[+T...]        none | build | pingall | pingallfull | pingpair | iperf[,RATE] | iperfudp[,RATE]
//                          (iperf3 from the first to the last host, UDP at 10M by default, as Mininet)
//   --mac / --arp          MACs from host numbers / static ARP entries on every host
//   --ipbase NET/LEN       the hosts' network (10.0.0.0/8)
//   --custom F.py[,F2.py]  with --topo NAME[,ARG...]: a topology of Mininet's topos = {...} (custom_topo.h)
//   --link tc[,bw=N,...]   every link a TCLink with these options (Mininet's --link; a --custom
//                          link's own options over them, a generated topology's `link:` key)
// Every error names the argument it is about; nothing is built for a bad one.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct MininetArgs {
  std::string topo;
  std::string switch_kind = "flowlab";
  // Each --controller; empty: flowlab:learning-switch, or none for linux-bridge.
  std::vector<std::string> controllers;
  std::string test = "pingall";
  bool mac = false;      // --mac: host MACs from host numbers (what --topo/--custom hosts get anyway)
  bool arp = false;      // --arp: static ARP entries on every host for every other
  std::string ipbase{};  // --ipbase: empty for 10.0.0.0/8
};

// --custom and --link: Mininet's own topology files.
struct MininetCustom {
  std::string files;  // Python files, comma-separated; --topo then names one of their topos
  std::string link = "default";
};

// The scenario as YAML text (for parse_scenario / RunOptions::scenario_text), and the
// label to name it by in messages ("--topo tree,2,3").
struct MininetScenario {
  std::string yaml;
  std::string label;
  std::vector<std::string> notes;  // options the run ignores, for stderr
};
Result<MininetScenario> scenario_from_mininet_args(const MininetArgs& a, const MininetCustom& custom = {});

}  // namespace flowlab::lab

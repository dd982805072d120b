// A scenario from Mininet-style command-line arguments, so that
//   flowlab lab run --topo tree,2,3 --switch flowlab --controller flowlab:learning-switch --test pingall
// needs no YAML (Mininet's `mn --topo tree,2,3 --test pingall`):
//   --topo TYPE[,ARG...]   single|linear|tree|torus|fat-tree, Mininet's positional order (generators.h)
//   --switch KIND[,stp=1]  flowlab|ovs|ovs-tso|linux-bridge (Mininet's lxbr and ovsk accepted)
//   --controller C         none | flowlab:APP[,APP] | os-ken:FILE.py
//   --test T               none | pingall | pingpair | iperf (iperf3 TCP, first to last host, as Mininet)
//   --custom F.py[,F2.py]  with --topo NAME[,ARG...]: a topology of Mininet's topos = {...} (custom_topo.h)
//   --link tc[,bw=N,...]   with --custom: every link a TCLink with these options (Mininet's --link)
// Every error names the argument it is about; nothing is built for a bad one.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

struct MininetArgs {
  std::string topo;
  std::string switch_kind = "flowlab";
  std::string controller;  // empty: flowlab:learning-switch, or none for linux-bridge
  std::string test = "pingall";
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

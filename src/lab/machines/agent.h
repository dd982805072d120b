// `flowlab lab agent`: one machine's share of labs across machines.
//
// The agent registers under its name with a lease (a second live agent of the
// same name is refused), then reconciles what etcd says with what it built, the
// controller pattern: every plan under /flowlab/lab/runs/ that names it is built
// (its part only: build_case with a MachinePart) and its status put under its
// lease; whatever no plan names any more is torn down and its status removed.
// It talks to no other agent: the links between machines are VXLAN over the
// underlay, and everything else goes through etcd.
//
// Faults: etcd unreachable: what stands stays up and the agent retries; its
// lease lost (expired while etcd was unreachable, or revoked): the coordinator
// has marked this machine lost, so everything is torn down and the agent
// registers anew. A restarted agent first removes what its previous life left
// (its runs' state files, labelled with its name) and nothing else.
#pragma once

#include <string>

#include "core/result.h"

namespace flowlab::lab {

struct AgentOptions {
  std::string etcd;          // endpoints, "http://E:2379[,...]"
  std::string name;          // the machine's name in plans ("m1")
  std::string underlay;      // its underlay address (the VXLAN tunnels' local end)
  std::string underlay_ns;   // where that address lives; empty: the agent's own namespace
  int ttl_s = 3;             // its lease: how soon a dead agent is noticed
  std::string underlay_dev;  // set at start: the interface holding `underlay`
};

// Runs until SIGINT/SIGTERM (then tears everything down and returns ok), or an
// error that keeps it from starting (bad options, the name taken, no etcd).
Status run_agent(const AgentOptions& opts);

}  // namespace flowlab::lab

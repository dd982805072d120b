// libFuzzer target for what an agent and the coordinator read from etcd: a
// case's plan (lab::decode_plan, then the scenario inside it and each machine's
// part of it), an agent's status and its registration, a command for an agent
// and its reply (exec_wire.h; an event's `set` shape too). Never crash; whatever
// decodes encodes to text that decodes to the same again.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "lab/machines/agent_status.h"
#include "lab/machines/exec_wire.h"
#include "lab/machines/plan.h"

namespace lab = flowlab::lab;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  if (auto p = lab::decode_plan(text); p.ok()) {
    auto again = lab::decode_plan(lab::encode_plan(*p));
    if (!again.ok() || again->placement != p->placement || again->machines.size() != p->machines.size())
      std::abort();
    if (p->scenario.size() < 4096)
      if (auto sc = lab::parse_scenario(p->scenario, "plan"); sc.ok())
        for (const auto& cs : sc->cases) {
          if (cs.name != p->case_name) continue;
          for (const auto& [m, info] : p->machines) (void)lab::part_for(*sc, cs, *p, m);
        }
  }
  if (auto s = lab::decode_status(text); s.ok()) {
    auto again = lab::decode_status(lab::encode_status(*s));
    if (!again.ok() || again->host_ns != s->host_ns || again->link_ends != s->link_ends) std::abort();
  }
  if (auto a = lab::decode_agent(text); a.ok()) {
    auto again = lab::decode_agent(lab::encode_agent(*a));
    if (!again.ok() || again->name != a->name || again->underlay != a->underlay) std::abort();
  }
  if (auto q = lab::decode_exec_request(text); q.ok()) {
    auto again = lab::decode_exec_request(lab::encode_exec_request(*q));
    if (!again.ok() || again->argv != q->argv || again->ns != q->ns || again->env != q->env) std::abort();
    if (again->event.set.a_to_b.to_wire() != q->event.set.a_to_b.to_wire() ||
        again->event.set.b_to_a.to_wire() != q->event.set.b_to_a.to_wire())
      std::abort();
  }
  if (auto r = lab::decode_exec_reply(text); r.ok()) {
    auto again = lab::decode_exec_reply(lab::encode_exec_reply(*r));
    if (!again.ok() || again->state != r->state || again->exit_code != r->exit_code) std::abort();
    if (r->out.size() <= lab::kExecOutputCap && again->out != r->out) std::abort();
  }
  return 0;
}

// A shaped link, built in namespaces. Instead of one veth between its two ends,
// the link passes through a small "wire" namespace of its own:
//
//   end A (host or switch port) ==veth== [wire-a  wire namespace  wire-b] ==veth== end B
//
// so shaping never touches the ends (a flowlab switch sends with
// PACKET_QDISC_BYPASS, OVS and the bridge have their own paths; all are shaped the
// same). For direction a->b, frames enter the wire at `a` and leave at `b`:
//   - rate: HTB on b's egress (one class, rate = ceil = bw, burst sized for the
//     rate and for 64 KB GSO frames), its leaf a pfifo of `queue` packets;
//   - delay/jitter: netem where the kernel has it; otherwise the lab's delay line
//     (delay_line.h), one process in the wire namespace for both directions;
//   - loss: netem where present; otherwise the lab's tc program (tc_bpf.h) on b's
//     egress, or, without a delay line, on a's ingress together with the
//     redirect that forwards the frame to b (no bridge, no process);
//   - nothing to delay: forwarding is that tc redirect, in the kernel.
// results.json records per direction which mechanism shaped it: htb, netem,
// flowlab-bpf-loss, flowlab-delay-line (and the forwarder, bpf-redirect or the
// delay line). Teardown: the delay line stops, programs detach (fds closed),
// the wire namespace is deleted (its qdiscs and veths with it).
//
// A link between machines is shaped in halves: each machine builds a wire whose
// side b is the link's VXLAN end itself (made in the wire namespace as wire-b,
// create_to_tunnel), and shapes the direction that leaves it (a_to_b, on the
// tunnel's egress); the other machine shapes the way back at its own end.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/result.h"
#include "lab/host/netns.h"
#include "lab/host/process.h"
#include "lab/net/delay_line.h"
#include "lab/net/tc_bpf.h"
#include "lab/net/vxlan.h"
#include "lab/scenario/shaping.h"

namespace flowlab::lab {

class RunState;

struct LinkEnd {
  std::string ns;
  std::string ifname;
};

struct ShapeEnv {
  std::string flowlab_bin;
  std::string log_dir;  // the delay line's log and counters
  RunState* state = nullptr;
  // Test hook: build with the lab's own mechanisms even where netem exists.
  bool force_flowlab = false;
};

// True when the kernel accepts a netem qdisc (tried on `lo` of namespace ns).
bool netem_available(const std::string& ns);

class ShapedLink {
 public:
  static Result<std::unique_ptr<ShapedLink>> create(const LinkEnd& a, const LinkEnd& b, int mtu,
                                                    const LinkShapes& shape, const std::string& wire_ns,
                                                    const ShapeEnv& env);
  // One machine's half of a link between machines: end `a` (here) to the wire,
  // the wire's side b the link's tunnel (`tunnel.ns`/`ifname` are set here).
  static Result<std::unique_ptr<ShapedLink>> create_to_tunnel(const LinkEnd& a, VxlanEnd tunnel, int mtu,
                                                              const LinkShapes& shape,
                                                              const std::string& wire_ns,
                                                              const ShapeEnv& env);
  ShapedLink(const ShapedLink&) = delete;
  ShapedLink& operator=(const ShapedLink&) = delete;
  ~ShapedLink();

  // An event's `set`: merged into the current shape, applied in place where the
  // mechanisms stay the same (loss and rate change atomically), rebuilt otherwise.
  Status reshape(const LinkShapes& over);
  // Replaces the whole shape (restoring the declared one after the events).
  Status set_shape(const LinkShapes& shape);
  // Stops the delay line (so its counters are final); the link stops forwarding
  // if it had one. Idempotent.
  void finish();
  // {wire_ns, a_to_b: {shape, mechanisms}, b_to_a: ..., forwarder, delay_line: counters}
  nlohmann::json to_json() const;
  const std::string& wire_ns() const { return ns_.name(); }
  const LinkShapes& shape() const { return shape_; }

 private:
  ShapedLink() = default;
  static Result<std::unique_ptr<ShapedLink>> create_with(const LinkEnd& a, int mtu, const LinkShapes& shape,
                                                         const std::string& wire_ns, const ShapeEnv& env,
                                                         const std::function<Status()>& make_b);
  Status apply();
  Status apply_qdisc(const std::string& out_if, const LinkShape& s, nlohmann::json& mech);
  void clear();
  Status start_delay_line(const DelayLineDirection& ab, const DelayLineDirection& ba);

  Netns ns_;  // declared first: destroyed last
  ShapeEnv env_;
  LinkShapes shape_;
  bool netem_ = false;
  bool delay_line_mode_ = false;
  uint64_t generation_ = 0;     // delay line restarts (one log and counters file each)
  TcxProgram fwd_a_, fwd_b_;    // ingress of a / b: loss + redirect (no delay line)
  TcxProgram loss_a_, loss_b_;  // egress of a / b: loss (with a delay line)
  Process delay_line_;
  std::string line_args_;                         // the running delay line's parameters
  std::map<std::string, std::string> qdisc_key_;  // interface -> what its qdiscs were built for
  nlohmann::json mech_ = nlohmann::json::object();
  nlohmann::json delay_line_stats_ = nlohmann::json::array();
};

}  // namespace flowlab::lab

// Building, re-shaping and tearing down a shaped link (see shaped_link.h).
#include "lab/net/shaped_link.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/clock.h"
#include "lab/net/delay_line.h"
#include "lab/net/netlink_tc.h"

namespace flowlab::lab {

namespace {

constexpr const char* kWireA = "wire-a";
constexpr const char* kWireB = "wire-b";
constexpr int kDefaultQueue = 1000;
constexpr int kDelayLineQueue = 100000;  // frames; the delay line's own bound without `queue`

// HTB burst: enough bytes to cover ~2 ms of scheduling latency at the rate (so a
// late dequeue does not cost throughput at 10 Gbit/s) and at least two 64 KB GSO
// frames (so a super-frame never waits for tokens it can never have).
uint64_t htb_burst_bytes(uint64_t bps) { return std::max<uint64_t>(bps / 8 / 500, 2 * 65536 + 3000); }

NetemSpec netem_spec(const LinkShape& s, int limit) {
  NetemSpec n;
  n.limit = uint32_t(limit);
  if (s.delays()) {
    n.delay_ns = s.delay_ns.value_or(0);
    n.jitter_ns = s.jitter_ns.value_or(0);
  }
  if (s.loses()) n.loss_pct = *s.loss_pct;
  return n;
}

std::string netem_key(const NetemSpec& n) {
  return fmt::format("netem {} {} {} {}", n.limit, n.delay_ns, n.jitter_ns, n.loss_pct);
}

}  // namespace

bool netem_available(const std::string& ns) { return netem_supported(ns); }

Result<std::unique_ptr<ShapedLink>> ShapedLink::create(const LinkEnd& a, const LinkEnd& b, int mtu,
                                                       const LinkShapes& shape, const std::string& wire_ns,
                                                       const ShapeEnv& env) {
  return create_with(a, mtu, shape, wire_ns, env,
                     [&] { return create_veth(wire_ns, kWireB, b.ns, b.ifname, mtu); });
}

Result<std::unique_ptr<ShapedLink>> ShapedLink::create_to_tunnel(const LinkEnd& a, VxlanEnd tunnel, int mtu,
                                                                 const LinkShapes& shape,
                                                                 const std::string& wire_ns,
                                                                 const ShapeEnv& env) {
  tunnel.ns = wire_ns;
  tunnel.ifname = kWireB;
  tunnel.mtu = mtu;
  return create_with(a, mtu, shape, wire_ns, env, [&] { return create_vxlan(tunnel); });
}

Result<std::unique_ptr<ShapedLink>> ShapedLink::create_with(const LinkEnd& a, int mtu,
                                                            const LinkShapes& shape,
                                                            const std::string& wire_ns, const ShapeEnv& env,
                                                            const std::function<Status()>& make_b) {
  std::unique_ptr<ShapedLink> l(new ShapedLink());
  l->env_ = env;
  l->shape_ = shape;
  FLOWLAB_ASSIGN_OR_RETURN(l->ns_, Netns::create(wire_ns, env.state));
  // The wire has no addresses; IPv6 would still send its own DAD/RS frames into the link.
  for (const char* k : {"net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6"})
    (void)write_sysctl_in(wire_ns, k, "1");  // best effort: a kernel without IPv6 has neither
  FLOWLAB_TRY(create_veth(a.ns, a.ifname, wire_ns, kWireA, mtu));
  FLOWLAB_TRY(make_b());
  l->netem_ = !env.force_flowlab && netem_available(wire_ns);
  FLOWLAB_TRY(l->apply());
  return l;
}

ShapedLink::~ShapedLink() { clear(); }

void ShapedLink::clear() {
  finish();
  fwd_a_.reset();
  fwd_b_.reset();
  loss_a_.reset();
  loss_b_.reset();
}

void ShapedLink::finish() {
  if (delay_line_.pid() < 0) return;
  delay_line_.stop();
  std::string path = fmt::format("{}/delay-line-{}-{}.json", env_.log_dir, ns_.name(), generation_);
  std::ifstream in(path);
  nlohmann::json j;
  try {
    if (in) in >> j;
  } catch (const nlohmann::json::exception&) {
    j = nullptr;
  }
  delay_line_stats_.push_back(j.is_null() ? nlohmann::json{{"error", "no counters written: " + path}} : j);
  delay_line_ = Process();
}

Status ShapedLink::apply_qdisc(const std::string& out_if, const LinkShape& s, nlohmann::json& mech) {
  int limit = s.queue.value_or(kDefaultQueue);
  bool net = netem_ && (s.delays() || s.loses());
  // Unchanged since the last time: leave the qdiscs (and the packets they hold) alone.
  std::string key =
      fmt::format("{} {} {}", s.bw_bps.value_or(0), limit, net ? netem_key(netem_spec(s, limit)) : "");
  std::string& last = qdisc_key_[out_if];
  bool had = !last.empty(), same = had && last == key;
  if (same) {
    if (s.bw_bps) mech.push_back("htb");
    if (net) mech.push_back("netem");
    return ok_status();
  }
  last = key;
  FLOWLAB_ASSIGN_OR_RETURN(int ifindex, ifindex_in(ns_.name(), out_if));
  std::string where = fmt::format("{} in {}", out_if, ns_.name());
  // Start from nothing: a re-shape may drop the rate or netem.
  if (had)
    FLOWLAB_TRY(
        tc_delete(ns_.name(), qdisc_delete_request(ifindex, tc_root(), "deleting the qdiscs of " + where)));
  std::vector<RtnlRequest> reqs;
  if (s.bw_bps) {
    uint64_t burst = htb_burst_bytes(*s.bw_bps);
    reqs.push_back(htb_qdisc_request(ifindex, tc_handle(1, 0), 1, "adding an htb qdisc on " + where));
    HtbClassSpec c;
    c.rate_bps = c.ceil_bps = *s.bw_bps;
    c.burst_bytes = c.cburst_bytes = burst;
    c.quantum = 70000;
    reqs.push_back(htb_class_request(
        ifindex, c, fmt::format("adding htb class 1:1 rate {} on {}", format_rate(*s.bw_bps), where)));
    if (net)
      reqs.push_back(netem_qdisc_request(ifindex, tc_handle(1, 1), tc_handle(0x10, 0), netem_spec(s, limit),
                                         "adding netem under htb on " + where));
    else
      reqs.push_back(pfifo_qdisc_request(ifindex, tc_handle(1, 1), tc_handle(0x10, 0), uint32_t(limit),
                                         "adding a pfifo leaf on " + where));
    mech.push_back("htb");
  } else if (net) {
    reqs.push_back(netem_qdisc_request(ifindex, tc_root(), tc_handle(0x10, 0), netem_spec(s, limit),
                                       "adding netem on " + where));
  }
  if (!reqs.empty()) FLOWLAB_TRY(tc_apply(ns_.name(), std::move(reqs)));
  if (net) mech.push_back("netem");
  return ok_status();
}

Status ShapedLink::apply() {
  const LinkShape& ab = shape_.a_to_b;
  const LinkShape& ba = shape_.b_to_a;
  mech_ = {{"a_to_b", nlohmann::json::array()}, {"b_to_a", nlohmann::json::array()}};
  FLOWLAB_TRY(apply_qdisc(kWireB, ab, mech_["a_to_b"]));
  FLOWLAB_TRY(apply_qdisc(kWireA, ba, mech_["b_to_a"]));
  bool want_line = !netem_ && (ab.delays() || ba.delays());
  double loss_ab = netem_ ? 0 : ab.loss_pct.value_or(0), loss_ba = netem_ ? 0 : ba.loss_pct.value_or(0);
  if (want_line != delay_line_mode_) {  // the forwarder changes: start from a clean wire
    finish();
    fwd_a_.reset();
    fwd_b_.reset();
    loss_a_.reset();
    loss_b_.reset();
  }
  delay_line_mode_ = want_line;
  // Attaches, replaces or removes the program of one hook.
  auto set_prog = [&](TcxProgram& p, const char* ifname, bool ingress, const TcAction& act,
                      bool wanted) -> Status {
    if (!wanted) {
      p.reset();
      return ok_status();
    }
    if (p.attached()) return p.replace(act);
    FLOWLAB_ASSIGN_OR_RETURN(p, TcxProgram::attach(ns_.name(), ifname, ingress, act));
    return ok_status();
  };
  if (want_line) {
    FLOWLAB_TRY(set_prog(loss_b_, kWireB, false, TcAction{loss_ab, 0}, loss_ab > 0));
    FLOWLAB_TRY(set_prog(loss_a_, kWireA, false, TcAction{loss_ba, 0}, loss_ba > 0));
    auto dir = [](const LinkShape& s) {
      return DelayLineDirection{s.delay_ns.value_or(0), s.jitter_ns.value_or(0),
                                s.queue.value_or(kDelayLineQueue)};
    };
    std::string args = to_arg(dir(ab)) + " " + to_arg(dir(ba));
    // A re-shape keeps the running delay line (and what it holds): new delays by SIGUSR1.
    if (delay_line_.pid() < 0) {
      FLOWLAB_TRY(start_delay_line(dir(ab), dir(ba)));
    } else if (args != line_args_) {
      std::string params = fmt::format("{}/delay-line-{}-{}.params", env_.log_dir, ns_.name(), generation_);
      std::ofstream(params) << args << "\n";
      if (::kill(delay_line_.pid(), SIGUSR1) != 0)
        return fail("signalling the delay line: {}", std::strerror(errno));
    }
    line_args_ = args;
    for (const char* d : {"a_to_b", "b_to_a"}) mech_[d].push_back("flowlab-delay-line");
  } else {
    FLOWLAB_ASSIGN_OR_RETURN(int ia, ifindex_in(ns_.name(), kWireA));
    FLOWLAB_ASSIGN_OR_RETURN(int ib, ifindex_in(ns_.name(), kWireB));
    FLOWLAB_TRY(set_prog(fwd_a_, kWireA, true, TcAction{loss_ab, ib}, true));
    FLOWLAB_TRY(set_prog(fwd_b_, kWireB, true, TcAction{loss_ba, ia}, true));
  }
  if (loss_ab > 0) mech_["a_to_b"].push_back("flowlab-bpf-loss");
  if (loss_ba > 0) mech_["b_to_a"].push_back("flowlab-bpf-loss");
  return ok_status();
}

Status ShapedLink::start_delay_line(const DelayLineDirection& ab, const DelayLineDirection& ba) {
  finish();
  ++generation_;
  std::string base = fmt::format("{}/delay-line-{}-{}", env_.log_dir, ns_.name(), generation_);
  FLOWLAB_ASSIGN_OR_RETURN(
      delay_line_, Process::spawn("delay line " + ns_.name(),
                                  {env_.flowlab_bin, "lab", "delay-line", "--a", kWireA, "--b", kWireB,
                                   "--a-to-b", to_arg(ab), "--b-to-a", to_arg(ba), "--stats", base + ".json",
                                   "--params", base + ".params"},
                                  in_ns(ns_.name()), base + ".log", env_.state));
  // Ready once both sockets are bound (it says so in its log); bounded wait.
  uint64_t deadline = monotonic_ns() + 10'000'000'000ULL;
  for (;;) {
    if (delay_line_.log_tail(200).find("delay line ready") != std::string::npos) return ok_status();
    if (!delay_line_.running())
      return fail("delay line in {} exited: {}", ns_.name(), delay_line_.log_tail(400));
    if (monotonic_ns() > deadline) return fail("delay line in {} not ready after 10 s", ns_.name());
    if (!sleep_unless_interrupted(0.02)) return fail("interrupted");
  }
}

Status ShapedLink::reshape(const LinkShapes& over) {
  LinkShapes next = shape_;
  next.merge(over);
  return set_shape(next);
}

Status ShapedLink::set_shape(const LinkShapes& shape) {
  LinkShapes before = shape_;
  shape_ = shape;
  auto st = apply();
  if (!st.ok()) shape_ = before;
  return st;
}

nlohmann::json ShapedLink::to_json() const {
  nlohmann::json j = {
      {"wire_ns", ns_.name()},
      {"netem_available", netem_},
      {"forwarder", delay_line_mode_ ? "flowlab-delay-line" : "bpf-redirect"},
      {"a_to_b",
       {{"shape", shape_.a_to_b.to_json()}, {"mechanisms", mech_.value("a_to_b", nlohmann::json::array())}}},
      {"b_to_a",
       {{"shape", shape_.b_to_a.to_json()}, {"mechanisms", mech_.value("b_to_a", nlohmann::json::array())}}}};
  if (!delay_line_stats_.empty()) j["delay_line"] = delay_line_stats_;
  return j;
}

}  // namespace flowlab::lab

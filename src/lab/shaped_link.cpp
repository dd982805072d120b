// Building, re-shaping and tearing down a shaped link (see shaped_link.h).
#include "lab/shaped_link.h"

#include <fmt/ranges.h>
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/clock.h"
#include "lab/delay_line.h"

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

std::string tc_rate(uint64_t bps) { return fmt::format("{}bit", bps); }

std::vector<std::string> netem_args(const LinkShape& s, int limit) {
  std::vector<std::string> a = {"netem", "limit", std::to_string(limit)};
  if (s.delays()) {
    a.insert(a.end(), {"delay", fmt::format("{}us", s.delay_ns.value_or(0) / 1000)});
    if (s.jitter_ns.value_or(0) > 0) a.push_back(fmt::format("{}us", *s.jitter_ns / 1000));
  }
  if (s.loses()) a.insert(a.end(), {"loss", fmt::format("{}%", *s.loss_pct)});
  return a;
}

}  // namespace

bool netem_available(const std::string& ns) {
  auto r = run_command({"tc", "qdisc", "add", "dev", "lo", "root", "handle", "9:", "netem", "delay", "1ms"},
                       in_ns(ns, 5));
  if (!r.ok()) return false;
  run_command({"tc", "qdisc", "del", "dev", "lo", "root"}, in_ns(ns, 5));
  return true;
}

Result<std::unique_ptr<ShapedLink>> ShapedLink::create(const LinkEnd& a, const LinkEnd& b, int mtu,
                                                       const LinkShapes& shape, const std::string& wire_ns,
                                                       const ShapeEnv& env) {
  std::unique_ptr<ShapedLink> l(new ShapedLink());
  l->env_ = env;
  l->shape_ = shape;
  FLOWLAB_ASSIGN_OR_RETURN(l->ns_, Netns::create(wire_ns, env.state));
  // The wire has no addresses; IPv6 would still send its own DAD/RS frames into the link.
  run_command(
      {"sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"},
      in_ns(wire_ns, 5));
  FLOWLAB_TRY(create_veth(a.ns, a.ifname, wire_ns, kWireA, mtu));
  FLOWLAB_TRY(create_veth(wire_ns, kWireB, b.ns, b.ifname, mtu));
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
  auto ns = in_ns(ns_.name(), 10);
  int limit = s.queue.value_or(kDefaultQueue);
  bool net = netem_ && (s.delays() || s.loses());
  // Unchanged since the last time: leave the qdiscs (and the packets they hold) alone.
  std::string key = fmt::format("{} {} {}", s.bw_bps.value_or(0), limit,
                                net ? fmt::format("{}", fmt::join(netem_args(s, limit), " ")) : "");
  std::string& last = qdisc_key_[out_if];
  bool had = !last.empty(), same = had && last == key;
  if (same) {
    if (s.bw_bps) mech.push_back("htb");
    if (net) mech.push_back("netem");
    return ok_status();
  }
  last = key;
  // Start from nothing: a re-shape may drop the rate or netem.
  if (had) run_command({"tc", "qdisc", "del", "dev", out_if, "root"}, ns);
  if (s.bw_bps) {
    uint64_t burst = htb_burst_bytes(*s.bw_bps);
    FLOWLAB_TRY(run_checked(
        {"tc", "qdisc", "add", "dev", out_if, "root", "handle", "1:", "htb", "default", "1"}, ns));
    FLOWLAB_TRY(run_checked({"tc",      "class",
                             "add",     "dev",
                             out_if,    "parent",
                             "1:",      "classid",
                             "1:1",     "htb",
                             "rate",    tc_rate(*s.bw_bps),
                             "ceil",    tc_rate(*s.bw_bps),
                             "burst",   std::to_string(burst),
                             "cburst",  std::to_string(burst),
                             "quantum", "70000"},
                            ns));
    std::vector<std::string> leaf = {"tc", "qdisc", "add", "dev", out_if, "parent", "1:1", "handle", "10:"};
    if (net) {
      auto n = netem_args(s, limit);
      leaf.insert(leaf.end(), n.begin(), n.end());
    } else {
      leaf.insert(leaf.end(), {"pfifo", "limit", std::to_string(limit)});
    }
    FLOWLAB_TRY(run_checked(leaf, ns));
    mech.push_back("htb");
  } else if (net) {
    std::vector<std::string> q = {"tc", "qdisc", "add", "dev", out_if, "root", "handle", "10:"};
    auto n = netem_args(s, limit);
    q.insert(q.end(), n.begin(), n.end());
    FLOWLAB_TRY(run_checked(q, ns));
  }
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

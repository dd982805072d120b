// The verdict rules (see verdict.h for the method; docs/LAB.md for the list).
#include "lab/explain/verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "lab/explain/verdict_facts.h"
#include "lab/explain/verdict_rules.h"
#include "lab/format/json_access.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

using namespace verdict_detail;  // NOLINT(google-build-using-namespace): the rules' own facts

constexpr double kExplains = 0.8;          // a bound must account for this share
constexpr double kOverBound = 1.25;        // a rate bound exceeded by more than this is no bound
constexpr double kAtLink = 0.9;            // a stream this close to a shaped link's rate is at the link
constexpr double kCoreSaturated = 90;      // % busy: a core with no room left
constexpr double kMachineSaturated = 0.9;  // the cores' busy share of their capacity: no room left
constexpr int kCrossingsPerRtt = 2;        // through a hub: a segment, then its ACK, each via the controller

std::string rate(double bps) {
  if (bps >= 1e9) return fmt::format("{:.3g} Gbit/s", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:.3g} Mbit/s", bps / 1e6);
  return fmt::format("{:.3g} kbit/s", bps / 1e3);
}

std::string bytes(double b) {
  if (b >= 1024 * 1024) return fmt::format("{:.1f} MB", b / (1024 * 1024));
  if (b >= 1024) return fmt::format("{:.0f} KB", b / 1024);
  return fmt::format("{:.0f} B", b);
}

// A rate bound's share: measured / bound, 0 when the measurement passes it by > 25 %.
double rate_share(double measured, double bound) {
  if (bound <= 0 || measured <= 0) return 0;
  double s = measured / bound;
  return s > kOverBound ? 0 : std::min(1.0, s);
}

void rule_checksum(const Facts& f, std::vector<Candidate>& out) {
  if (f.csum <= 0) return;
  double share = losses(f) > 0 ? std::min(1.0, f.csum / losses(f)) : 1.0;
  if (f.status != "ok") share = 1.0;  // a stream that died of bad checksums
  out.push_back(
      {Bound::kChecksumDrops,
       share,
       fmt::format("{} dropped {:.0f} segments with bad checksums (InCsumErrors), {}% of the {:.0f} {}: "
                   "the path forwarded partial checksums without completing them",
                   f.to, f.csum, pct(share), losses(f), losses_what(f)),
       f.to,
       {{"csum_errors", f.csum}, {"losses", losses(f)}}});
}

void rule_receiver_buffer(const Facts& f, std::vector<Candidate>& out) {
  // The sender waited for the receiver's window. With a fixed window (iperf -w sets
  // the receiver's buffer too) that is the window itself: window / RTT's business.
  if (f.tcp && f.rwnd_limited_pct > 0 && f.window <= 0) {
    double share = std::min(1.0, f.rwnd_limited_pct / 100);
    out.push_back(
        {Bound::kReceiverBuffer,
         share,
         fmt::format("the sender was limited by {}'s receive window {:.0f}% of its busy time (ss "
                     "rwnd_limited; {:.0f} zero-window advertisements): the receiving application did "
                     "not empty its socket buffer fast enough",
                     f.to, f.rwnd_limited_pct, f.zero_windows),
         f.to,
         {{"rwnd_limited_pct", f.rwnd_limited_pct}, {"zero_windows", f.zero_windows}}});
  }
  double drops = f.udp ? f.rcvbuf : f.pruned;
  if (drops <= 0 || losses(f) <= 0) return;
  double share = std::min(1.0, drops / losses(f));
  out.push_back({Bound::kReceiverBuffer,
                 share,
                 fmt::format("{}'s socket buffer dropped {:.0f}{} of the {:.0f} {} ({}%, {}): the receiving "
                             "application did not read fast enough",
                             f.to, std::min(drops, losses(f)), drops > losses(f) ? " (and more)" : "",
                             losses(f), losses_what(f), pct(share),
                             f.udp ? "Udp.RcvbufErrors" : "TcpExt RcvPruned/OfoPruned/TCPRcvQDrop"),
                 f.to,
                 {{"drops", drops}, {"losses", losses(f)}}});
}

void rule_process_cpu(const Facts& f, std::vector<Candidate>& out) {
  std::string who;
  double best = 0, used = 0, cap = 100;
  for (const auto& [label, p] : f.procs.items()) {
    double c = num(p, "limit_pct", 100), u = num(p, "mean_pct");
    if (c <= 0) c = 100;
    if (u / c > best) {
      best = u / c;
      who = label;
      used = u;
      cap = c;
    }
  }
  if (who.empty()) return;
  const json& p = f.procs[who];
  double share = std::min(1.0, best);
  std::string limit =
      cap < 100 ? fmt::format("its cgroup's CPU limit of {:.0f}% of a core", cap) : "one core";
  out.push_back({Bound::kProcessCpu,
                 share,
                 fmt::format("{} used {:.0f}% of a core (user {:.0f}%, system {:.0f}%) against {} ({}%): it "
                             "is CPU-bound at {}",
                             who, used, num(p, "user_mean_pct"), num(p, "system_mean_pct"), limit, pct(share),
                             rate(f.measured_bps)),
                 who,
                 {{"process", who}, {"cpu_pct", used}, {"limit_pct", cap}}});
}

// The case's processes: their CPU summed (% of a core) and the busiest four,
// "iperf3 (h1) 87%, iperf3 (h2) 40%".
std::pair<double, std::string> case_processes(const Facts& f) {
  std::vector<std::pair<double, std::string>> procs;
  double procs_pct = 0;
  for (const auto& [label, p] : f.procs.items()) {
    procs_pct += num(p, "mean_pct");
    if (num(p, "mean_pct") >= 1) procs.emplace_back(num(p, "mean_pct"), label);
  }
  std::sort(procs.rbegin(), procs.rend());
  std::string who_list;
  for (size_t i = 0; i < procs.size() && i < 4; ++i)
    who_list += fmt::format("{}{} {:.0f}%", i ? ", " : "", procs[i].second, procs[i].first);
  return {procs_pct, who_list};
}

// A core saturated by the case: same-host traffic is forwarded in softirq (veth,
// the kernel's share of the switch's work) on the cores the sender, the receiver
// and the switch run on, and has no per-process figure. The busiest core must be
// >= 90 % busy and the case (its processes plus the softirq time, which on this
// machine is the test's packets) must account for the busy CPU of all cores; the
// share is the saturated core's busy fraction times that accounted fraction.
void rule_core_cpu(const Facts& f, std::vector<Candidate>& out) {
  std::string core;
  double busy = 0, total_busy = 0, softirq = 0;
  for (const auto& [name, c] : f.cores.items()) {
    double b = num(c, "busy_mean_pct");
    total_busy += b;
    softirq += num(c, "softirq_mean_pct");
    if (b > busy) {
      busy = b;
      core = name;
    }
  }
  if (core.empty() || busy < kCoreSaturated || total_busy <= 0) return;
  const auto [procs_pct, who_list] = case_processes(f);
  double accounted = std::min(1.0, (procs_pct + softirq) / total_busy);
  double share = std::min(1.0, busy / 100) * accounted;
  const json& c = f.cores[core];
  out.push_back(
      {Bound::kCoreCpu,
       share,
       fmt::format("{} was saturated (busy {:.0f}%: softirq {:.0f}%, system {:.0f}%, user {:.0f}%; all cores "
                   "{:.0f}% of {:.0f}%); the case's processes ({}) and the softirq time of its packets "
                   "({:.0f}% of a core) account for {}% of the busy CPU: {} is CPU-bound",
                   core, busy, num(c, "softirq_mean_pct"), num(c, "system_mean_pct"), num(c, "user_mean_pct"),
                   total_busy, 100.0 * double(f.cores.size()), who_list.empty() ? "none seen" : who_list,
                   softirq, pct(accounted), rate(f.measured_bps)),
       core,
       {{"core", core},
        {"busy_pct", busy},
        {"softirq_pct", num(c, "softirq_mean_pct")},
        {"system_pct", num(c, "system_mean_pct")},
        {"user_pct", num(c, "user_mean_pct")},
        {"all_cores_busy_pct", total_busy},
        {"case_procs_pct", procs_pct},
        {"softirq_all_pct", softirq},
        {"accounted", accounted}}});
}

// Every core busy with the case: on a machine with few cores the sender, the
// receiver, the switch and the softirq that forwards the packets are more busy
// stages than there are cores, so the scheduler moves them between cores and no
// single core (nor process) shows saturation while the machine as a whole has no
// room left. The cores' busy time over their capacity must reach the bound's
// share and the case (its processes plus softirq) must account for that busy
// time; share = busy / capacity x the accounted fraction.
void rule_machine_cpu(const Facts& f, std::vector<Candidate>& out) {
  double total_busy = 0, softirq = 0;
  for (const auto& [name, c] : f.cores.items()) {
    total_busy += num(c, "busy_mean_pct");
    softirq += num(c, "softirq_mean_pct");
  }
  double capacity = 100.0 * double(f.cores.size());
  if (capacity <= 0 || total_busy <= 0) return;
  const auto [procs_pct, who_list] = case_processes(f);
  double accounted = std::min(1.0, (procs_pct + softirq) / total_busy);
  double share = std::min(1.0, total_busy / capacity) * accounted;
  out.push_back(
      {Bound::kMachineCpu,
       share,
       fmt::format("the {} cores were {:.0f}% busy of {:.0f}% ({}; softirq, the forwarding of its "
                   "packets, {:.0f}% of a core): the case's processes and softirq account for {}% of "
                   "it, more busy stages than cores, so {} is CPU-bound on the machine",
                   f.cores.size(), total_busy, capacity, who_list.empty() ? "no process seen" : who_list,
                   softirq, pct(accounted), rate(f.measured_bps)),
       "all cores",
       {{"cores", f.cores.size()},
        {"all_cores_busy_pct", total_busy},
        {"case_procs_pct", procs_pct},
        {"softirq_all_pct", softirq},
        {"accounted", accounted}}});
  // The cores had no time left, but the case took less of it than the figure needs to
  // be its own: work outside the case (another program, a build) shared the machine.
  // The figure is still CPU-bound; the verdict says whose CPU it lost.
  if (total_busy / capacity >= kMachineSaturated && accounted < kExplains) {
    double case_pct = procs_pct + softirq;
    out.push_back(
        {Bound::kMachineCpu,
         std::min(1.0, total_busy / capacity),
         fmt::format("the {} cores were {:.0f}% busy of {:.0f}%, the case's processes ({}) and softirq "
                     "{:.0f}% of it and work outside the case {:.0f}%: the machine had no CPU left, so {} is "
                     "CPU-bound on a machine shared with other work (not the case's own figure)",
                     f.cores.size(), total_busy, capacity, who_list.empty() ? "no process seen" : who_list,
                     case_pct, std::max(0.0, total_busy - case_pct), rate(f.measured_bps)),
         "shared",
         {{"cores", f.cores.size()},
          {"all_cores_busy_pct", total_busy},
          {"case_procs_pct", procs_pct},
          {"softirq_all_pct", softirq},
          {"outside_pct", std::max(0.0, total_busy - case_pct)},
          {"accounted", accounted}}});
  }
}

// The window in flight: what ss saw, else the fixed window of the test.
double flight_window(const Facts& f) { return f.inflight > 0 ? f.inflight : f.window; }

// Window / RTT. A fixed window (iperf -w) keeps the stream window-limited, so the
// RTT it met under load is the one that bounds it (the mean of window/RTT per ss
// sample); a growing cwnd fills whatever queue there is, and then only the idle
// RTT makes window/RTT a bound rather than Little's law restated.
struct WindowBound {
  double bps = 0, window = 0, rtt_ms = 0;
  bool loaded = false;
};
WindowBound window_bound(const Facts& f) {
  WindowBound b;
  b.window = flight_window(f);
  if (b.window <= 0) return b;
  if (f.window > 0 && f.window_rate_bps > 0) {
    b.bps = f.window_rate_bps;
    b.rtt_ms = b.window * 8 / b.bps * 1000;
    b.loaded = true;
  } else if (f.idle_rtt_ms > 0) {
    b.rtt_ms = f.idle_rtt_ms;
    b.bps = b.window * 8 / (f.idle_rtt_ms / 1000);
  }
  return b;
}

std::string rtt_words(const WindowBound& b, const Facts& f) {
  if (!b.loaded) return fmt::format("{:.3g} ms idle round trip", b.rtt_ms);
  return fmt::format("{:.3g} ms round trip under load{}", b.rtt_ms,
                     f.idle_rtt_ms > 0 ? fmt::format(" ({:.3g} ms idle)", f.idle_rtt_ms) : "");
}

void rule_controller_rtt(const Facts& f, std::vector<Candidate>& out) {
  if (!f.via_ctl || !f.tcp) return;
  WindowBound b = window_bound(f);
  if (b.bps <= 0) return;
  double share = rate_share(f.measured_bps, b.bps);
  auto [ctl, cpu] = controller_cpu(f);
  double h = controller_handling_us(f.case_rec);
  // An idle ping crosses the controller twice (echo, reply): half its RTT is one
  // packet's round trip switch -> controller -> switch.
  double crossing_ms = f.ping_rtt_ms / 2;
  std::string crossing =
      crossing_ms > 0
          ? fmt::format(" (packet-in + packet-out: {:.3g} ms per packet idle, half the {:.3g} ms ping)",
                        crossing_ms, f.ping_rtt_ms)
          : "";
  std::string idle;
  if (cpu >= 0)
    idle = fmt::format(
        "; {} was busy {:.0f}% of a core ({:.0f}% idle): it gets one window ({:.0f} segments) per round "
        "trip, then waits for the sender, whose next window waits for the ACKs coming back through it",
        ctl, cpu, std::max(0.0, 100 - cpu), std::ceil(b.window / 1448));
  if (h > 0) idle += fmt::format(" (median packet-in handling {:.3g} us)", h);
  json numbers = {{"window_bytes", b.window},        {"rtt_ms", b.rtt_ms}, {"idle_rtt_ms", f.idle_rtt_ms},
                  {"packet_in_rtt_ms", crossing_ms}, {"bound_bps", b.bps}, {"loaded", b.loaded},
                  {"controller_cpu_pct", cpu}};
  if (f.packet_ins_per_s > 0) numbers["packet_ins_per_s"] = f.packet_ins_per_s;
  if (f.ctl_delay_ms > 0) {
    // A controller far away (controller_link): one round trip of the stream is the
    // segment's trip through the controller and then its ACK's, each over the
    // control channel and back (2 x its one-way delay); the rest is handling,
    // switching and the queues.
    double channel_ms = kCrossingsPerRtt * 2 * f.ctl_delay_ms;
    double rest_ms = std::max(0.0, b.rtt_ms - channel_ms);
    numbers["channel_delay_ms"] = f.ctl_delay_ms;
    numbers["controller_crossings"] = kCrossingsPerRtt;
    numbers["channel_ms"] = channel_ms;
    numbers["rest_ms"] = rest_ms;
    out.push_back(
        {Bound::kControllerRoundTrip, share,
         fmt::format("every segment and ACK crosses the controller, {:.3g} ms away: the {} = {} controller "
                     "round trips (the segment's, then its ACK's) x 2 x {:.3g} ms channel delay = {:.3g} ms, "
                     "+ {:.3g} ms handling, switching and queues{}; TCP keeps {} in flight and gets one "
                     "window per round trip = {}, measured {} ({}%){}",
                     f.ctl_delay_ms, rtt_words(b, f), kCrossingsPerRtt, f.ctl_delay_ms, channel_ms, rest_ms,
                     h > 0 ? fmt::format(" (median packet-in handling {:.3g} us)", h) : "", bytes(b.window),
                     rate(b.bps), rate(f.measured_bps), pct(share),
                     cpu >= 0 ? fmt::format("; {} was busy {:.0f}% of a core ({:.0f}% idle){}: it waits for "
                                            "the next window, which waits for the ACKs",
                                            ctl, cpu, std::max(0.0, 100 - cpu),
                                            f.packet_ins_per_s > 0
                                                ? fmt::format(" for {:.0f} packet-ins/s", f.packet_ins_per_s)
                                                : "")
                              : ""),
         ctl, numbers});
    return;
  }
  out.push_back(
      {Bound::kControllerRoundTrip, share,
       fmt::format("every segment and ACK crosses the controller{}: TCP keeps {} in flight and gets one "
                   "window per {} = {}, measured {} ({}%){}",
                   crossing, bytes(b.window), rtt_words(b, f), rate(b.bps), rate(f.measured_bps), pct(share),
                   idle),
       ctl, numbers});
}

void rule_window_rtt(const Facts& f, std::vector<Candidate>& out) {
  if (!f.tcp || f.via_ctl) return;
  WindowBound b = window_bound(f);
  if (b.bps <= 0) return;
  double share = rate_share(f.measured_bps, b.bps);
  out.push_back({Bound::kWindowRtt,
                 share,
                 fmt::format("{} in flight / {} = {}, measured {} ({}%)", bytes(b.window), rtt_words(b, f),
                             rate(b.bps), rate(f.measured_bps), pct(share)),
                 "",
                 {{"window_bytes", b.window},
                  {"rtt_ms", b.rtt_ms},
                  {"idle_rtt_ms", f.idle_rtt_ms},
                  {"bound_bps", b.bps},
                  {"loaded", b.loaded}}});
}

// Whether a qdisc carried the test's stream: at least half the bytes the measured
// rate moved in the test (a shaped link the stream does not cross still passes ARP,
// LLDP or the ACKs of the other direction). Records without bytes: any packet.
bool carried_the_stream(const Facts& f, const json& q) {
  if (!q.contains("bytes") || f.measured_bps <= 0 || f.duration_s <= 0) return num(q, "packets") > 0;
  return num(q, "bytes") >= 0.5 * f.measured_bps * f.duration_s / 8;
}

// The shaped qdisc on the path with the lowest rate that carried the stream.
const json* shaped_qdisc(const Facts& f) {
  const json* best = nullptr;
  for (const auto& q : f.qdiscs)
    if (num(q, "rate_bps") > 0 && carried_the_stream(f, q) &&
        (!best || num(q, "rate_bps") < num(*best, "rate_bps")))
      best = &q;
  return best;
}

void rule_loss_timeouts(const Facts& f, std::vector<Candidate>& out) {
  if (!f.tcp || f.timeouts <= 0 || f.duration_s <= 0) return;
  double idle_s = f.timeouts * f.rto_ms / 1000;
  double idle = std::min(1.0, idle_s / f.duration_s);
  double ref = f.delivery_max_bps;
  if (const json* q = shaped_qdisc(f))
    ref = ref > 0 ? std::min(ref, num(*q, "rate_bps")) : num(*q, "rate_bps");
  double gap = ref - f.measured_bps;
  if (ref <= 0 || gap <= 0) return;
  double cost = idle >= 1 ? gap : f.measured_bps * idle / (1 - idle);
  double share = std::min(1.0, cost / gap);
  out.push_back(
      {Bound::kLossTimeouts,
       share,
       fmt::format("{:.0f} retransmission timeouts x {:.0f} ms RTO = {:.2g} s of the {:.2g} s spent "
                   "idle waiting ({:.0f} retransmits); that accounts for {}% of the gap between {} "
                   "(the rate while sending) and {}",
                   f.timeouts, f.rto_ms, idle_s, f.duration_s, f.retrans, pct(share), rate(ref),
                   rate(f.measured_bps)),
       "",
       {{"timeouts", f.timeouts}, {"rto_ms", f.rto_ms}, {"idle_s", idle_s}, {"reference_bps", ref}}});
}

void rule_shaped_link(const Facts& f, std::vector<Candidate>& out) {
  const json* q = shaped_qdisc(f);
  if (!q) return;
  double r = num(*q, "rate_bps");
  double share = rate_share(f.measured_bps, r);
  double drops = 0;  // the shaper's, its class's or its leaf queue's (the same packets)
  for (const auto& o : f.qdiscs)
    if (o.value("ns", "") == q->value("ns", "") && o.value("dev", "") == q->value("dev", ""))
      drops = std::max(drops, num(o, "drops"));
  std::string where =
      fmt::format("{} on {} ({})", q->value("kind", "?"), q->value("dev", "?"), q->value("ns", "?"));
  out.push_back(
      {Bound::kShapedLink,
       share,
       fmt::format("the link is shaped to {} ({}), measured {} ({}%){}", rate(r), where, rate(f.measured_bps),
                   pct(share), drops > 0 ? fmt::format("; its queue dropped {:.0f}", drops) : ""),
       where,
       {{"rate_bps", r}, {"drops", drops}}});
}

// Across machines: a test between two machines crosses their underlay, a NIC's
// rate when it is shaped (--underlay-rate). What of it carries the stream's
// payload: each frame of the underlay's MTU (+14 bytes of Ethernet, which the
// shaper counts) holds the MTU less VXLAN's 50 bytes less the inner IP and
// TCP (with timestamps) or UDP headers.
void rule_underlay(const Facts& f, std::vector<Candidate>& out) {
  const json& u = member(f.case_rec, "underlay");
  double r = num(u, "rate_bps"), mtu = num(u, "mtu");
  if (r <= 0 || mtu <= 100 || f.machine.find("->") == std::string::npos) return;
  if (f.machine.substr(0, f.machine.find("->")) == f.machine.substr(f.machine.find("->") + 2)) return;
  double headers = f.udp ? 28 : 52;
  // Every link of the lab carries the tunnels' inner MTU (the underlay's less 50);
  // a tunnel adds 50 bytes to each frame on the NIC, a provider link's tag 4.
  bool vlan = f.crossing == "vlan";
  double inner = mtu - 50, wire = inner + 14 + (vlan ? 4 : 50);
  double payload = r * (inner - headers) / wire;
  double share = rate_share(f.measured_bps, payload);
  out.push_back({Bound::kShapedLink,
                 share,
                 fmt::format("the machines' underlay ({}) is shaped to {}: less {} and the headers of each "
                             "{:.0f}-byte packet, {} of payload; measured {} ({}%)",
                             f.machine, rate(r), vlan ? "the provider VLAN's 4-byte tag" : "VXLAN's 50 bytes",
                             inner, rate(payload), rate(f.measured_bps), pct(share)),
                 "underlay " + f.machine,
                 {{"rate_bps", r}, {"payload_bps", payload}, {"mtu", mtu}}});
}

void rule_offered(const Facts& f, std::vector<Candidate>& out) {
  double loss = f.sent > 0 ? 100 * f.lost / f.sent : f.loss_pct;  // iperf3's own count misses the tail
  if (!f.udp || f.offered_bps <= 0 || loss >= 1 || f.measured_bps < 0.9 * f.offered_bps) return;
  auto [ctl, cpu] = controller_cpu(f);
  json numbers = {{"offered_bps", f.offered_bps}, {"loss_pct", f.loss_pct}};
  std::string via;
  if (f.via_ctl && cpu >= 0) {
    // Through a hub: UDP has no window, so the controller's round trip costs it
    // nothing; the controller's CPU is what the datagram rate asks of it.
    via = fmt::format(
        "; no window: the sender waits for no ACK, so the controller round trip{} does not "
        "bound it; {} was busy {:.0f}% of a core ({:.0f}% idle) with a packet-in per datagram",
        f.ctl_delay_ms > 0 ? fmt::format(" ({:.3g} ms over the control channel)", 2 * f.ctl_delay_ms) : "",
        ctl, cpu, std::max(0.0, 100 - cpu));
    if (f.packet_ins_per_s > 0) via += fmt::format(", {:.0f} packet-ins/s", f.packet_ins_per_s);
    numbers["controller_cpu_pct"] = cpu;
    numbers["packet_ins_per_s"] = f.packet_ins_per_s;
  }
  out.push_back({Bound::kOffered, 1.0,
                 fmt::format("{} of the {} offered arrived (loss {:.2g}%): no bound was reached{}",
                             rate(f.measured_bps), rate(f.offered_bps), f.loss_pct, via),
                 "", numbers});
}

}  // namespace

Verdict decide_verdict(const json& r, const json& c, const json& doc) {
  Verdict v;
  if (!r.is_object()) {
    v.sentence = "not explained: not a test record";
    return v;
  }
  Facts f = gather(r, c, doc);
  std::vector<Candidate> cands;
  rule_checksum(f, cands);
  if (f.status != "ok") {
    if (!cands.empty() && cands[0].share >= kExplains) {
      v.bound = cands[0].bound;
      v.share = cands[0].share;
      v.sentence = "failed: " + cands[0].sentence;
    } else {
      v.bound = Bound::kNotExplained;
      v.sentence = fmt::format("{}: {}", f.status, r.value("reason", "no reason recorded"));
    }
    return v;
  }
  if (f.type == "ping" || f.type == "tcp-rr" || f.type == "pingall" || f.type == "probe") {
    v.bound = Bound::kLatency;
    v.share = 1;
    const json& m = member(r, "metrics");
    if (f.type == "ping")
      v.sentence = fmt::format("round trip {:.3g} ms{}", num(m, "rtt_avg_ms"),
                               f.via_ctl ? ": each echo and reply crosses the controller" : "");
    else if (f.type == "tcp-rr")
      v.sentence = fmt::format("{:.0f} transactions/s, one per {:.3g} us round trip",
                               num(m, "transactions_per_s"), num(m, "rtt_avg_us"));
    else if (f.type == "pingall")
      v.sentence = fmt::format("{:.0f} of {:.0f} host pairs reached, round trip {:.3g} ms on average",
                               num(m, "pairs_reached"), num(m, "pairs"), num(m, "rtt_avg_ms"));
    else
      v.sentence =
          fmt::format("{:.0f} of {:.0f} probes delivered ({:.2g}% lost){}", num(m, "delivered"),
                      num(m, "sent"), num(m, "loss_pct"),
                      r.contains("probe_explain") ? ": the outages are under the probe's events" : "");
    return v;
  }
  rule_receiver_buffer(f, cands);
  rule_process_cpu(f, cands);
  rule_core_cpu(f, cands);
  rule_machine_cpu(f, cands);
  rule_controller_rtt(f, cands);
  rule_loss_timeouts(f, cands);
  rule_switch_drops(f, cands);
  rule_link_drops(f, cands);
  rule_shaped_link(f, cands);
  rule_underlay(f, cands);
  rule_window_rtt(f, cands);
  rule_offered(f, cands);
  // A receive window that stays full because the receiving process is out of CPU is
  // that process's CPU: the buffer is the symptom.
  bool receiver_cpu = std::any_of(cands.begin(), cands.end(), [&](const Candidate& cd) {
    return cd.bound == Bound::kProcessCpu && cd.share >= kExplains &&
           cd.who.find("(" + f.to + ")") != std::string::npos;
  });
  if (receiver_cpu)
    std::erase_if(cands, [](const Candidate& cd) { return cd.bound == Bound::kReceiverBuffer; });
  const Candidate* best = nullptr;
  for (const auto& cd : cands)
    if (!best || cd.share > best->share + 1e-9 ||
        (std::abs(cd.share - best->share) <= 1e-9 && int(cd.bound) < int(best->bound)))
      best = &cd;
  // A fixed window meets the RTT of the queue it fills: window / RTT under load then
  // restates the rate. A stream within 10 % of a shaped link's rate is at the link;
  // the grown RTT is the window waiting in the link's queue.
  auto shaped = std::find_if(cands.begin(), cands.end(),
                             [](const Candidate& cd) { return cd.bound == Bound::kShapedLink; });
  if (best && shaped != cands.end() && shaped->share >= kAtLink &&
      (best->bound == Bound::kControllerRoundTrip || best->bound == Bound::kWindowRtt) &&
      best->numbers.value("loaded", false)) {
    shaped->sentence += fmt::format(
        "; the {} window waited in its queue: the round trip grew from {:.3g} ms idle to {:.3g} ms under "
        "load, so window / RTT ({}) only restates the link's rate",
        bytes(num(best->numbers, "window_bytes")), num(best->numbers, "idle_rtt_ms"),
        num(best->numbers, "rtt_ms"), rate(num(best->numbers, "bound_bps")));
    best = &*shaped;
  }
  // The offered load went through (< 1 % lost): that is the figure's bound; a rule
  // that accounts for the few lost datagrams explains them, not the rate.
  auto offered = std::find_if(cands.begin(), cands.end(),
                              [](const Candidate& cd) { return cd.bound == Bound::kOffered; });
  if (best && offered != cands.end() && best->bound != Bound::kOffered) {
    if (best->share >= kExplains && losses(f) > 0)
      offered->sentence += fmt::format("; the {:.0f} lost: {}", losses(f), best->sentence);
    best = &*offered;
  }
  if (!best || best->share < kExplains)
    if (auto combined = combine_losses(f, cands); combined && combined->main.share >= kExplains) {
      v.bound = combined->main.bound;
      v.also = combined->also;
      v.share = combined->main.share;
      v.sentence = fmt::format("{}: {}", combined->main.numbers.value("bounds", ""), combined->main.sentence);
      v.numbers = combined->main.numbers;
      v.who = combined->main.who;
      return v;
    }
  if (best && best->share >= kExplains) {
    v.bound = best->bound;
    v.share = best->share;
    v.sentence = fmt::format("{}: {}", to_string(best->bound), best->sentence);
    v.numbers = best->numbers;
    v.who = best->who;
    return v;
  }
  v.bound = Bound::kNotExplained;
  v.share = best ? best->share : 0;
  v.sentence =
      best ? fmt::format("not explained: no bound accounts for 80% of {} (closest, {}%: {}: {})",
                         rate(f.measured_bps), pct(best->share), to_string(best->bound), best->sentence)
           : fmt::format("not explained: nothing measured bounds {}", rate(f.measured_bps));
  if (best) v.numbers = best->numbers;
  std::string busy;
  bool saturated = !f.cores.empty();
  for (const auto& [core, cs] : f.cores.items()) {
    busy += fmt::format("{}{} {:.0f}%", busy.empty() ? "" : ", ", core, num(cs, "busy_mean_pct"));
    saturated &= num(cs, "busy_mean_pct") >= 95;
  }
  auto core = std::find_if(cands.begin(), cands.end(),
                           [](const Candidate& cd) { return cd.bound == Bound::kCoreCpu; });
  if (saturated)
    v.sentence += fmt::format("; every core was busy ({}): processes outside the case took the CPU{}", busy,
                              core != cands.end()
                                  ? fmt::format(" (the case's processes and softirq account for {}% of it)",
                                                pct(num(core->numbers, "accounted")))
                                  : "");
  return v;
}

}  // namespace flowlab::lab

// Case-level verdict text: the TCP vs UDP comparison through a hub controller (the
// question behind hub-100m.yaml), and filling the verdicts into results.json.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "lab/explain/verdict.h"
#include "lab/explain/verdict_facts.h"
#include "lab/format/json_access.h"
#include "lab/measure/sampler.h"

namespace flowlab::lab {

using nlohmann::json;

namespace {

struct PathLoad {
  double bps = 0, ctl_cpu = -1, packet_ins_per_s = 0;
  std::string ctl;
  const json* verdict = nullptr;
};

std::string mbit(double bps) { return fmt::format("{:.3g} Mbit/s", bps / 1e6); }

double rate_of(const json& r) {
  const json& m = member(r, "metrics");
  if (m.contains("gbps")) return num(m, "gbps") * 1e9;
  double best = 0;  // iperf2-window: the best window
  for (const auto& [k, v] : m.items())
    if (k.rfind("gbps_", 0) == 0 && v.is_number()) best = std::max(best, v.get<double>() * 1e9);
  return best;
}

PathLoad load_of(const json& r) {
  PathLoad p;
  p.bps = rate_of(r);
  const json& s = member(r, "samples");
  for (const auto& [label, pr] : member(s, "procs").items())
    if ((label.rfind("flowlab controller", 0) == 0 || label == "os-ken") && num(pr, "mean_pct") > p.ctl_cpu) {
      p.ctl = label;
      p.ctl_cpu = num(pr, "mean_pct");
    }
  p.packet_ins_per_s = verdict_detail::packet_in_rate(r);
  if (r.contains("verdict")) p.verdict = &r["verdict"];
  return p;
}

// Why the controller idles during TCP (or, when the measurements say otherwise,
// that it did not): its CPU follows the packet-in rate, which TCP's window per
// round trip bounds while UDP's sender sets it.
std::string controller_idle_sentence(const PathLoad& a, const PathLoad& b) {
  std::string s = fmt::format(
      "{} was busy {:.0f}% of a core during TCP ({:.0f}% idle) and {:.0f}% during UDP ({:.0f}% idle)", a.ctl,
      a.ctl_cpu, std::max(0.0, 100 - a.ctl_cpu), b.ctl_cpu, std::max(0.0, 100 - b.ctl_cpu));
  bool rates = a.packet_ins_per_s > 0 && b.packet_ins_per_s > 0;
  if (rates) {
    s += fmt::format(", for {:.0f} vs {:.0f} packet-ins/s", a.packet_ins_per_s, b.packet_ins_per_s);
    double ua = a.ctl_cpu / 100 / a.packet_ins_per_s * 1e6, ub = b.ctl_cpu / 100 / b.packet_ins_per_s * 1e6;
    s += fmt::format(" ({:.3g} and {:.3g} us of CPU per packet-in)", ua, ub);
  }
  bool tcp_idler = a.ctl_cpu < 0.8 * b.ctl_cpu;
  bool fewer = rates && a.packet_ins_per_s < 0.8 * b.packet_ins_per_s;
  if (tcp_idler && (fewer || !rates))
    return s +
           ": the controller idles during TCP because TCP brings it fewer packets: one window per round "
           "trip, and the next window waits for the ACKs that come back through the controller; UDP's "
           "sender does not wait, so the controller gets every packet the sender offers";
  if (tcp_idler)
    return s +
           ": TCP brought as many packet-ins per second, yet each cost it less CPU (not explained by the "
           "rates)";
  if (rates && a.packet_ins_per_s >= 0.8 * b.packet_ins_per_s)
    return s + fmt::format(
                   ": here the controller did not idle during TCP: TCP reached {}, so its segments and "
                   "ACKs brought the controller as many packet-ins per second as UDP; TCP starves the "
                   "controller only when window / RTT through it falls far below the link",
                   mbit(a.bps));
  return s + ": the controller was not idler during TCP in this run";
}

}  // namespace

std::vector<std::string> compare_controller_path(const json& doc, const std::string& case_name) {
  std::vector<std::string> out;
  const json* tcp = nullptr;
  const json* udp = nullptr;
  const json* cs = nullptr;
  for (const auto& c : array_member(doc, "cases"))
    if (c.value("name", "") == case_name) cs = &c;
  if (!cs || !every_packet_via_controller(*cs)) return out;
  for (const auto& r : array_member(doc, "results")) {
    if (r.value("case", "") != case_name || r.value("status", "") != "ok") continue;
    std::string t = r.value("type", "");
    if (!tcp && (t == "iperf3-tcp" || t == "iperf2-window")) tcp = &r;
    if (!udp && t == "iperf3-udp") udp = &r;
  }
  if (!tcp || !udp) return out;
  PathLoad a = load_of(*tcp), b = load_of(*udp);
  std::string why =
      "TCP sends at most one window per round trip and every segment and its ACK wait for the "
      "controller";
  if (a.verdict && a.verdict->value("bound", "") == "controller round trip") {
    const json& n = member(*a.verdict, "numbers");
    why = fmt::format(
        "TCP sends at most one window per round trip, and every segment and its ACK cross the "
        "controller: {:.0f} KB / {:.3g} ms = {}",
        num(n, "window_bytes") / 1024, num(n, "rtt_ms"), mbit(num(n, "bound_bps")));
    if (double idle = num(n, "idle_rtt_ms"); idle > 0 && num(n, "rtt_ms") > 1.5 * idle)
      why += fmt::format(
          " (the round trip through the controller grew from {:.3g} ms idle to {:.3g} ms under "
          "load: packets wait in the controller path)",
          idle, num(n, "rtt_ms"));
  }
  if (a.verdict && a.verdict->value("bound", "") == "shaped link rate")
    why =
        "TCP did not collapse here: the controller path was fast enough for its window, and it reached "
        "the link's rate (" +
        a.verdict->value("sentence", "") + ")";
  std::string udp_why = b.verdict ? b.verdict->value("sentence", "") : "";
  // UDP keeps the sender's rate only when little of it is lost; otherwise what the
  // controller path could not carry was dropped, and its verdict says where.
  double udp_loss = num(member(*udp, "metrics"), "loss_pct");
  if (b.bps > a.bps && udp_loss < 10)
    out.push_back(
        fmt::format("TCP {} vs UDP {}: {}; UDP does not wait for ACKs, so it keeps the sender's rate{}",
                    mbit(a.bps), mbit(b.bps), why, udp_why.empty() ? "" : " (" + udp_why + ")"));
  else if (b.bps > a.bps)
    out.push_back(fmt::format(
        "TCP {} vs UDP {}: {}; UDP does not wait for ACKs, so the sender keeps sending and what the "
        "controller path cannot carry is lost ({:.0f}% of it){}",
        mbit(a.bps), mbit(b.bps), why, udp_loss, udp_why.empty() ? "" : " (" + udp_why + ")"));
  else
    out.push_back(
        fmt::format("TCP {} vs UDP {}: {}; UDP waits for no ACK, yet here it did not keep its rate "
                    "either: {}",
                    mbit(a.bps), mbit(b.bps), why, udp_why.empty() ? "no verdict" : udp_why));
  if (a.ctl_cpu >= 0 && b.ctl_cpu >= 0) out.push_back(controller_idle_sentence(a, b));
  return out;
}

void annotate_verdicts(json& doc) {
  std::map<std::string, const json*> cases;
  for (const auto& c : array_member(doc, "cases")) cases[c.value("name", "")] = &c;
  static const json kEmpty = json::object();
  if (doc.contains("results") && doc["results"].is_array())
    for (auto& r : doc["results"]) {
      auto it = cases.find(r.value("case", ""));
      r["verdict"] = to_json(decide_verdict(r, it == cases.end() ? kEmpty : *it->second, doc));
    }
  if (doc.contains("cases") && doc["cases"].is_array())
    for (auto& c : doc["cases"]) {
      auto cmp = compare_controller_path(doc, c.value("name", ""));
      if (cmp.empty())
        c.erase("comparison");
      else
        c["comparison"] = cmp;
    }
}

}  // namespace flowlab::lab

// The drop rules of the verdicts (verdict_rules.h): what the switches and the link
// queues lost, over the packets the test lost.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "lab/explain/verdict_rules.h"
#include "lab/format/json_access.h"

namespace flowlab::lab::verdict_detail {

namespace {

// Whether a qdisc sits under a shaper (the leaf pfifo of an htb class, a qdisc in
// the same namespace and device as a tbf/htb): its drops are the shaped link's queue.
bool under_a_shaper(const Facts& f, const json& q) {
  for (const auto& o : f.qdiscs)
    if (&o != &q && num(o, "rate_bps") > 0 && o.value("ns", "") == q.value("ns", "") &&
        o.value("dev", "") == q.value("dev", ""))
      return true;
  return false;
}

}  // namespace

void rule_switch_drops(const Facts& f, std::vector<Candidate>& out) {
  // To-controller queue full; packet-ins shed by flowlab's packet-in pacing (the
  // connection's window of unread packet-in bytes full: a controller or channel
  // slower than the packet-in rate); buffered packet-ins evicted or expired.
  double queue = 0, paced = 0, buffers = 0;
  std::string who;
  for (const auto& [k, a] : f.counters.items()) {
    bool q = k.find("to_controller.dropped") != std::string::npos ||
             k.find("packet_in.dropped") != std::string::npos;
    bool p = k.ends_with(".packet_ins.congested");
    bool b = k.find("buffers.evicted") != std::string::npos || k.find("buffers.expired") != std::string::npos;
    if (!q && !p && !b) continue;
    if (double d = series_delta(a); d > 0) {
      (q ? queue : p ? paced : buffers) += d;
      who = k.substr(0, k.find('.'));
    }
  }
  // Open vSwitch: packet-ins dropped because the connection's queue to the controller
  // held its 100 messages (coverage rconn_overflow) or, before that, because the
  // handler threads' queue of packet-ins for the main thread was full (coverage
  // packet_in_overflow), upcalls lost, port ring drops.
  double ovs_queue = num(f.ovs, "coverage.rconn_overflow") + num(f.ovs, "coverage.packet_in_overflow"),
         ovs_upcall = num(f.ovs, "lookups.lost") + num(f.ovs, "coverage.datapath_drop_upcall_error"),
         ovs_ports = 0;
  for (const auto& [k, v] : f.ovs.items())
    if (k.rfind("port.", 0) == 0 && (k.ends_with(".tx_dropped") || k.ends_with(".rx_dropped")) &&
        v.is_number())
      ovs_ports += v.get<double>();
  if (ovs_queue + ovs_upcall + ovs_ports > 0) who = "ovs-vswitchd";
  queue += ovs_queue;
  // The switches' packet sockets (OVS's ports, flowlab's without rings): receive
  // buffer full before the switch read them.
  double sockets = 0;
  for (const auto& d : f.packet_drops) {
    std::string p = d.value("process", "");
    if (p != "ovs-vswitchd" && p != "flowlab") continue;
    sockets += num(d, "drops");
    if (who.empty()) who = p == "flowlab" ? "flowlab switch" : p;
  }
  // Through a hub every packet is a packet-in answered by a packet-out: the ones
  // the controller had not answered when the test ended are lost to the receiver
  // (queued in the connection, or dropped by the controller).
  double unanswered = 0;
  if (f.via_ctl) {
    if (double in = num(f.ovs, "coverage.rconn_sent"); in > 0)
      unanswered += std::max(0.0, in - num(f.ovs, "coverage.ofproto_packet_out"));
    for (const auto& [k, a] : f.counters.items()) {
      if (!k.ends_with(".packet_ins.sent")) continue;
      std::string sw = k.substr(0, k.size() - std::string_view(".packet_ins.sent").size());
      double outs = series_delta(array_member(f.counters, (sw + ".packet_outs").c_str()));
      double buf = series_delta(array_member(f.counters, (sw + ".buffers.evicted").c_str())) +
                   series_delta(array_member(f.counters, (sw + ".buffers.expired").c_str()));
      if (f.counters.contains(sw + ".packet_outs")) {
        unanswered += std::max(0.0, series_delta(a) - outs - buf);
        if (who.empty()) who = sw;
      }
    }
  }
  double drops = queue + paced + buffers + ovs_upcall + ovs_ports + sockets + unanswered;
  if (drops <= 0 || losses(f) <= 0) return;
  double share = std::min(1.0, drops / losses(f));
  std::string what =
      queue > 0 ? fmt::format("{:.0f} because its queue to the controller was full{}", queue,
                              ovs_queue > 0 ? (num(f.ovs, "coverage.packet_in_overflow") > 0
                                                   ? " (coverage rconn_overflow + packet_in_overflow)"
                                                   : " (coverage rconn_overflow)")
                                            : "")
                : "";
  auto also = [&](double n, const char* text) {
    if (n > 0) what += fmt::format("{}{:.0f} {}", what.empty() ? "" : ", ", n, text);
  };
  also(paced,
       "packet-ins shed because the controller connection's window of unread packet-ins was full "
       "(packet_ins.congested: the controller or its channel was slower than the packet-in rate)");
  also(buffers, "buffered packet-ins evicted or expired before the controller answered");
  also(ovs_upcall, "upcalls lost (dpctl lookups lost)");
  also(ovs_ports, "dropped by its ports (dpctl rx/tx dropped)");
  also(sockets, "dropped by its ports' receive buffers (packet sockets, ss -0 skmem d)");
  also(unanswered, "packet-ins the controller had not answered when the test ended");
  out.push_back({Bound::kSwitchQueueDrops,
                 share,
                 fmt::format("{} lost {:.0f} packets ({}), {}% of the {:.0f} {}", who, drops, what,
                             pct(share), losses(f), losses_what(f)),
                 who,
                 {{"drops", drops},
                  {"queue_drops", queue},
                  {"paced_drops", paced},
                  {"buffer_drops", buffers},
                  {"upcall_drops", ovs_upcall},
                  {"port_drops", ovs_ports},
                  {"socket_drops", sockets},
                  {"unanswered_packet_ins", unanswered},
                  {"losses", losses(f)}}});
}

void rule_link_drops(const Facts& f, std::vector<Candidate>& out) {
  // Per device the largest count: a shaper, its class and its leaf pfifo count the
  // same drops. A shaper's queue dropping bursts is this bound too (the rate rule
  // judges only the mean rate).
  std::map<std::string, double> per_dev;
  std::map<std::string, std::string> where_of;
  for (const auto& q : f.qdiscs) {
    if (num(q, "drops") <= 0) continue;
    std::string k = q.value("ns", "?") + "/" + q.value("dev", "?");
    if (num(q, "drops") > per_dev[k]) {
      per_dev[k] = num(q, "drops");
      bool shaped = num(q, "rate_bps") > 0 || under_a_shaper(f, q);
      where_of[k] = fmt::format("{}{} on {} ({})", shaped ? "the shaped link's queue, " : "",
                                q.value("kind", "?"), q.value("dev", "?"), q.value("ns", "?"));
    }
  }
  double qdisc_drops = 0;
  std::string where;
  for (const auto& [k, d] : per_dev) {
    qdisc_drops += d;
    where = where_of[k];
  }
  // The kernel's per-CPU backlog behind a veth (netdev_max_backlog) drops before
  // any qdisc or socket sees the packet: the receiving interface's rx dropped.
  double backlog = 0;
  std::string backlog_where;
  for (const auto& d : f.iface_drops)
    if (double n = num(d, "rx_dropped"); n > 0) {
      backlog += n;
      backlog_where += fmt::format("{}{} {} ({})", backlog_where.empty() ? "" : ", ", d.value("dev", "?"), n,
                                   d.value("ns", "?"));
    }
  double drops = qdisc_drops + backlog;
  if (drops <= 0 || losses(f) <= 0) return;
  double share = std::min(1.0, drops / losses(f));
  std::string detail = qdisc_drops > 0 ? "last: " + where : "";
  if (backlog > 0)
    detail +=
        fmt::format("{}{:.0f} by interfaces on receive: ip -s link rx dropped, the backlog behind a veth, {}",
                    detail.empty() ? "" : "; ", backlog, backlog_where);
  out.push_back(
      {Bound::kLinkQueueDrops,
       share,
       fmt::format("link queues dropped {:.0f} packets ({}), {}% of the {:.0f} {}", drops, detail, pct(share),
                   losses(f), losses_what(f)),
       where.empty() ? backlog_where : where,
       {{"drops", drops}, {"qdisc_drops", qdisc_drops}, {"backlog_drops", backlog}, {"losses", losses(f)}}});
}

std::optional<CombinedLosses> combine_losses(const Facts& f, const std::vector<Candidate>& cands) {
  // One count per place: the loss rules answer once each, but keep the largest
  // should a rule answer twice (the receive window's candidate counts no drops).
  std::map<Bound, const Candidate*> places;
  for (const auto& cd : cands) {
    bool counts_drops = cd.numbers.contains("losses") || cd.bound == Bound::kChecksumDrops;
    if (!counts_drops || cd.share <= 0) continue;
    if (cd.bound != Bound::kSwitchQueueDrops && cd.bound != Bound::kLinkQueueDrops &&
        cd.bound != Bound::kReceiverBuffer && cd.bound != Bound::kChecksumDrops)
      continue;
    auto& slot = places[cd.bound];
    if (!slot || cd.share > slot->share) slot = &cd;
  }
  if (places.size() < 2 || losses(f) <= 0) return std::nullopt;
  std::vector<const Candidate*> parts;
  double sum = 0;
  for (const auto& [b, cd] : places) {
    parts.push_back(cd);
    sum += cd->share;
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Candidate* a, const Candidate* b) { return a->share > b->share; });
  CombinedLosses out;
  out.main.bound = parts.front()->bound;
  out.main.share = std::min(1.0, sum);
  out.main.who = parts.front()->who;
  std::string names, sentences;
  json list = json::array();
  for (const Candidate* cd : parts) {
    names += fmt::format("{}{}", names.empty() ? "" : " + ", to_string(cd->bound));
    sentences += fmt::format("{}{}", sentences.empty() ? "" : "; ", cd->sentence);
    list.push_back({{"bound", to_string(cd->bound)}, {"share", cd->share}, {"numbers", cd->numbers}});
    if (cd != parts.front()) out.also.push_back(cd->bound);
  }
  out.main.sentence = fmt::format("the {:.0f} {} were lost at {} places, together {}%: {}", losses(f),
                                  losses_what(f), parts.size(), pct(out.main.share), sentences);
  out.main.numbers = {{"losses", losses(f)}, {"places", list}, {"bounds", names}};
  return out;
}

}  // namespace flowlab::lab::verdict_detail

// What the verdict rules share (verdict.cpp holds most of them; the drop rules are
// in verdict_drops.cpp): a candidate bound and how losses are counted. Internal.
#pragma once

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/explain/verdict.h"
#include "lab/explain/verdict_facts.h"

namespace flowlab::lab::verdict_detail {

// One rule's answer: the share of the figure or gap it accounts for, with the
// sentence and numbers that prove it.
struct Candidate {
  Bound bound;
  double share = 0;
  std::string sentence, who;
  json numbers = json::object();
};

inline int pct(double share) { return int(std::lround(share * 100)); }
// The packets this test lost: UDP datagrams, TCP retransmitted segments.
inline double losses(const Facts& f) { return f.udp ? f.lost : f.retrans; }
inline const char* losses_what(const Facts& f) { return f.udp ? "lost datagrams" : "retransmitted segments"; }

// Switch ring / queue drops (flowlab's to-controller queue and buffers, OVS's
// rconn_overflow, upcalls and port drops, packet-socket drops, packet-ins left
// unanswered through a hub) over the losses.
void rule_switch_drops(const Facts& f, std::vector<Candidate>& out);
// Link queue drops (qdiscs, a shaper's queue included, one count per device) over the losses.
void rule_link_drops(const Facts& f, std::vector<Candidate>& out);

// Losses counted at several places (switch, link queues, the receiver's socket
// buffer, bad checksums: each a different packet) that together account for the
// lost packets: one candidate for the largest place whose share is the sum, the
// others in `also`, largest first. Nothing when fewer than two places count.
struct CombinedLosses {
  Candidate main;
  std::vector<Bound> also;
};
std::optional<CombinedLosses> combine_losses(const Facts& f, const std::vector<Candidate>& cands);

}  // namespace flowlab::lab::verdict_detail

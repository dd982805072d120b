// Verdicts: for each case x test, the one bound that explains the measured figure,
// from a fixed set, with the numbers that prove it. All the rules live here
// (verdict.cpp); docs/LAB.md lists them.
//
// Every rule computes a share in [0, 1]: how much of the figure (a rate bound: the
// measured rate over the bound's rate) or of the gap (a loss: the drops it counts
// over the packets lost; idle time: the rate it cost over the gap to the reference)
// the bound accounts for. The verdict is the rule with the largest share >= 0.8
// (ties go to the earlier rule in the enum); below that the verdict is
// "not explained", naming the best candidate and its share. A rate bound that the
// measurement exceeds by more than 25 % is no bound (share 0). Losses counted at
// several places (the switch, a link queue, the receiver's socket buffer, bad
// checksums) are distinct packets: when no one place accounts for 80 % of the lost
// packets but together they do, the verdict names them all, the largest first.
//
// Inputs are the results.json records: the test record (metrics, receiver_stack,
// sender_stack and the sampler's `samples`), its case record and the document
// (for the case's idle ping RTT).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace flowlab::lab {

enum class Bound {
  kChecksumDrops,        // the receiver dropped segments with bad checksums
  kReceiverBuffer,       // the receiver's socket buffer dropped (Udp.RcvbufErrors, TCP pruning)
  kProcessCpu,           // a process of the case used its core (or its cgroup's limit)
  kCoreCpu,              // a core saturated by the case: its processes and softirq (packet forwarding)
  kMachineCpu,           // every core busy with the case: sender, receiver and forwarding share them
  kControllerRoundTrip,  // every packet crosses the controller: window / controller RTT
  kLossTimeouts,         // loss with retransmission timeouts: the sender idles waiting
  kSwitchQueueDrops,     // the switch's ring / to-controller queue dropped
  kLinkQueueDrops,       // an unshaped queue (qdisc) on the path dropped
  kShapedLink,           // a shaped link's rate (tbf / htb on the path)
  kWindowRtt,            // TCP window / round trip
  kOffered,              // nothing bounds it: the offered load went through
  kLatency,              // a latency test (ping, tcp-rr): no rate to bound
  kNotExplained,         // no bound accounts for >= 80 %
};
const char* to_string(Bound b);  // "process CPU", "controller round trip", ...

struct Verdict {
  Bound bound = Bound::kNotExplained;
  double share = 0;      // of the figure / gap this bound accounts for
  std::string sentence;  // one sentence with the numbers
  nlohmann::json numbers = nlohmann::json::object();
  std::string short_label() const;  // for the terminal table: "cpu: iperf3 (h2)", "ctl-rtt", ...
  std::string who;                  // the named process / link, when there is one
  std::vector<Bound> also;          // the other places of a loss verdict counted at several
};

// The verdict for one test record.
Verdict decide_verdict(const nlohmann::json& result, const nlohmann::json& case_rec,
                       const nlohmann::json& doc);
nlohmann::json to_json(const Verdict& v);

// Whether a case sends every packet through its controller (a hub app).
bool every_packet_via_controller(const nlohmann::json& case_rec);

// Case-level comparison of its TCP and UDP tests when every packet crosses the
// controller: why TCP collapses while UDP does not, and why the controller idles
// during TCP, from the test records of the case. Empty when it does not apply.
std::vector<std::string> compare_controller_path(const nlohmann::json& doc, const std::string& case_name);

// Fills results[].verdict and cases[].comparison.
void annotate_verdicts(nlohmann::json& doc);

}  // namespace flowlab::lab

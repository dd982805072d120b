// The names of the bounds, the verdict's JSON and which cases send every packet
// through their controller (verdict.h). The rules themselves are in verdict.cpp.
#include "lab/explain/verdict.h"
#include "lab/format/json_access.h"

namespace flowlab::lab {

using nlohmann::json;

const char* to_string(Bound b) {
  switch (b) {
    case Bound::kChecksumDrops:
      return "checksum drops";
    case Bound::kReceiverBuffer:
      return "receiver socket buffer";
    case Bound::kProcessCpu:
      return "process CPU";
    case Bound::kCoreCpu:
      return "core CPU";
    case Bound::kMachineCpu:
      return "machine CPU";
    case Bound::kControllerRoundTrip:
      return "controller round trip";
    case Bound::kLossTimeouts:
      return "loss with retransmission timeouts";
    case Bound::kSwitchQueueDrops:
      return "switch queue drops";
    case Bound::kLinkQueueDrops:
      return "link queue drops";
    case Bound::kShapedLink:
      return "shaped link rate";
    case Bound::kWindowRtt:
      return "window / RTT";
    case Bound::kOffered:
      return "offered load";
    case Bound::kLatency:
      return "latency";
    case Bound::kNotExplained:
      return "not explained";
  }
  return "?";
}

namespace {

std::string label_of(Bound bound, const std::string& who) {
  switch (bound) {
    case Bound::kProcessCpu:
    case Bound::kCoreCpu:
      return "cpu: " + who;
    case Bound::kMachineCpu:
      return who == "shared" ? "cpu: shared" : "cpu: all cores";
    case Bound::kControllerRoundTrip:
      return "ctl-rtt";
    case Bound::kWindowRtt:
      return "win/rtt";
    case Bound::kLossTimeouts:
      return "rto-idle";
    case Bound::kShapedLink:
      return "link";
    case Bound::kReceiverBuffer:
      return "rcvbuf";
    case Bound::kChecksumDrops:
      return "csum";
    case Bound::kSwitchQueueDrops:
      return "sw-drops";
    case Bound::kLinkQueueDrops:
      return "q-drops";
    case Bound::kOffered:
      return "offered";
    case Bound::kLatency:
      return "-";
    case Bound::kNotExplained:
      return "?";
  }
  return "?";
}

}  // namespace

std::string Verdict::short_label() const {
  std::string label = label_of(bound, who);
  for (Bound b : also) label += "+" + label_of(b, "");
  return label;
}

bool every_packet_via_controller(const json& c) {
  for (const auto& [n, s] : member(c, "switches").items()) {
    if (s.value("kind", "") == "linux-bridge") continue;
    std::string ctl = s.value("controller", "");
    const json& ct = member(member(c, "controllers"), ctl.c_str());
    for (const auto& a : array_member(ct, "apps"))
      if (a.is_string() && a.get<std::string>() == "hub") return true;
    if (ct.value("app_file", "").find("hub") != std::string::npos) return true;
  }
  return false;
}

json to_json(const Verdict& v) {
  return {{"bound", to_string(v.bound)},
          {"label", v.short_label()},
          {"share", v.share},
          {"sentence", v.sentence},
          {"who", v.who},
          {"numbers", v.numbers}};
}

}  // namespace flowlab::lab

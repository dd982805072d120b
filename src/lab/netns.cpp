// Namespaces, veths, offloads and stack counters (see netns.h).
#include "lab/netns.h"

#include <sstream>
#include <vector>

#include "lab/process.h"
#include "lab/run_state.h"

namespace flowlab::lab {

Result<Netns> Netns::create(const std::string& name, RunState* state) {
  // Record first: if we die between add and record, clean would miss it.
  if (state) state->add_netns(name);
  Netns n;
  n.name_ = name;
  n.state_ = state;
  auto st = run_checked({"ip", "netns", "add", name});
  if (!st.ok()) {
    if (state) state->remove_netns(name);
    n.name_.clear();
    return unexpected(st.error());
  }
  FLOWLAB_TRY(run_checked({"ip", "link", "set", "lo", "up"}, in_ns(name)));
  return n;
}

Netns& Netns::operator=(Netns&& o) noexcept {
  if (this != &o) {
    destroy();
    name_ = std::exchange(o.name_, {});
    state_ = std::exchange(o.state_, nullptr);
  }
  return *this;
}

void Netns::destroy() {
  if (name_.empty()) return;
  auto r = run_command({"ip", "netns", "del", name_}, uninterruptible(10));
  if (r.ok() && state_) state_->remove_netns(name_);
  name_.clear();
}

Status create_veth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                   const std::string& if_b, int mtu) {
  FLOWLAB_TRY(run_checked(
      {"ip", "link", "add", if_a, "netns", ns_a, "type", "veth", "peer", "name", if_b, "netns", ns_b}));
  for (auto [ns, ifn] : {std::pair{ns_a, if_a}, std::pair{ns_b, if_b}}) {
    if (mtu > 0) FLOWLAB_TRY(run_checked({"ip", "link", "set", ifn, "mtu", std::to_string(mtu)}, in_ns(ns)));
    FLOWLAB_TRY(run_checked({"ip", "link", "set", ifn, "up"}, in_ns(ns)));
  }
  return ok_status();
}

Status set_offloads(const std::string& ns, const std::string& ifname, bool on) {
  const char* v = on ? "on" : "off";
  return run_checked({"ethtool", "-K", ifname, "rx", v, "tx", v, "sg", v, "tso", v, "gso", v, "gro", v},
                     in_ns(ns));
}

std::map<std::string, std::string> parse_ethtool_features(const std::string& text) {
  static const char* kKeep[] = {"rx-checksumming",
                                "tx-checksumming",
                                "scatter-gather",
                                "tcp-segmentation-offload",
                                "generic-segmentation-offload",
                                "generic-receive-offload"};
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    while (!key.empty() && (key.front() == ' ' || key.front() == '\t')) key.erase(0, 1);
    for (const char* k : kKeep) {
      if (key != k) continue;
      std::istringstream vs(line.substr(colon + 1));
      std::string val;
      vs >> val;
      out[key] = val;
    }
  }
  return out;
}

std::map<std::string, std::string> offload_state(const std::string& ns, const std::string& ifname) {
  auto r = run_command({"ethtool", "-k", ifname}, in_ns(ns, 5));
  if (!r.ok()) return {{"error", r.describe()}};
  return parse_ethtool_features(r.out);
}

std::map<std::string, long long> parse_snmp(const std::string& text) {
  // Pairs of lines: "Tcp: Name1 Name2 ..." then "Tcp: 1 2 ...".
  std::map<std::string, long long> out;
  std::istringstream in(text);
  std::string names, values;
  while (std::getline(in, names) && std::getline(in, values)) {
    std::istringstream ns(names), vs(values);
    std::string proto, p2;
    ns >> proto;
    vs >> p2;
    if (proto != p2 || proto.empty()) continue;
    proto.pop_back();  // trailing ':'
    std::string n;
    long long v;
    while (ns >> n && vs >> v) out[proto + "." + n] = v;
  }
  return out;
}

std::map<std::string, long long> snmp_counters(const std::string& ns) {
  auto r = run_command({"cat", "/proc/net/snmp"}, in_ns(ns, 5));
  if (!r.ok()) return {};
  return parse_snmp(r.out);
}

}  // namespace flowlab::lab

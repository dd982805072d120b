// Network namespaces and veth links for the lab, owned by RAII types, plus the
// per-interface facts the report explains with (offload state, checksum errors).
#pragma once

#include <map>
#include <string>

#include "core/result.h"

namespace flowlab::lab {

class RunState;

// A named network namespace (`ip netns add`), deleted by the destructor.
// Recorded in the RunState while it exists.
class Netns {
 public:
  static Result<Netns> create(const std::string& name, RunState* state);
  Netns() = default;
  Netns(Netns&& o) noexcept { *this = std::move(o); }
  Netns& operator=(Netns&& o) noexcept;
  Netns(const Netns&) = delete;
  Netns& operator=(const Netns&) = delete;
  ~Netns() { destroy(); }

  const std::string& name() const { return name_; }
  void destroy();

 private:
  std::string name_;
  RunState* state_ = nullptr;
};

// A veth pair created directly in its two namespaces (nothing ever appears in the
// lab's own namespace); it disappears with either namespace.
Status create_veth(const std::string& ns_a, const std::string& if_a, const std::string& ns_b,
                   const std::string& if_b, int mtu);
// offloads off: rx/tx checksum, TSO, GSO, GRO, scatter-gather all off.
Status set_offloads(const std::string& ns, const std::string& ifname, bool on);
// The main offload features as "feature" -> "on"/"off" (from `ethtool -k`).
std::map<std::string, std::string> offload_state(const std::string& ns, const std::string& ifname);
// Parses `ethtool -k` output (exposed for tests).
std::map<std::string, std::string> parse_ethtool_features(const std::string& text);
// Checksum-error and retransmit counters of a namespace's stack (/proc/net/snmp):
// "Tcp.InCsumErrors", "Udp.InCsumErrors", "Tcp.RetransSegs", "Udp.RcvbufErrors", ...
std::map<std::string, long long> snmp_counters(const std::string& ns);
std::map<std::string, long long> parse_snmp(const std::string& text);

}  // namespace flowlab::lab

// Security-group rules for the firewall app: the model, YAML loading and the
// allow/deny decision for one IPv4 packet.
//
// rules.yaml:
//   default: deny                      # traffic between endpoints no group covers (deny|allow)
//   address_groups:                    # named sets of CIDRs / MACs, usable as target or remote
//     web: [10.0.0.2/32]
//   security_groups:
//     - name: server
//       targets: [{port: 2}, {ip: 10.0.0.2}, {mac: "00:00:00:00:00:02"}, {group: web}]  # any of
//       ingress:                       # traffic arriving at a target
//         - {protocol: tcp, port: 5201, remote: 10.0.0.0/24}
//         - {protocol: icmp, icmp_type: 8}
//       egress:                        # traffic leaving a target
//         - {protocol: any}
// A packet passes when, for each of its two endpoints that some group covers,
// one of those groups allows it in that direction (the source's egress, the
// destination's ingress), and at least one endpoint is covered or default is
// allow. Rule fields: protocol (tcp|udp|icmp|any|number), port (N or "N-M",
// destination port), icmp_type, icmp_code, remote (CIDR) or remote_group.
// ARP, DHCP and IPv6 neighbour discovery always pass (as in Neutron); return
// traffic of an allowed connection passes (the firewall tracks connections).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::controller {

struct Cidr {
  uint32_t addr = 0;  // host order
  uint8_t len = 0;
  bool contains(uint32_t ip) const { return len == 0 || ((ip ^ addr) >> (32 - len)) == 0; }
};

struct AddressSet {
  std::vector<Cidr> cidrs;
  std::vector<uint64_t> macs;
};

struct FwRule {
  int protocol = -1;  // -1 any, else IP protocol number
  uint16_t port_min = 0, port_max = 65535;
  int icmp_type = -1, icmp_code = -1;
  std::optional<AddressSet> remote;  // unset = anywhere
  int line = 0;                      // 1-based line in the YAML file
};

struct FwTarget {
  std::optional<uint32_t> port;
  std::optional<uint64_t> dpid;
  AddressSet addrs;  // ip / mac / group
};

struct SecurityGroup {
  std::string name;
  std::vector<FwTarget> targets;
  std::vector<FwRule> ingress, egress;
};

// One endpoint of a packet as the firewall knows it.
struct FwEndpoint {
  uint64_t dpid = 0;
  uint32_t port = 0;  // 0 = unknown
  uint64_t mac = 0;
  uint32_t ip = 0;
};

struct FwPacket {
  FwEndpoint src, dst;
  uint8_t proto = 0;
  uint16_t tp_src = 0, tp_dst = 0;  // TCP/UDP ports
  uint8_t icmp_type = 0, icmp_code = 0;
};

struct FwDecision {
  bool allow = false;
  std::string why;  // "group server ingress rule at line 9" / "no rule allows ..."
};

class FwRuleSet {
 public:
  static Result<FwRuleSet> load_file(const std::string& path);
  static Result<FwRuleSet> parse(const std::string& yaml_text, const std::string& name);

  FwDecision decide(const FwPacket& p) const;
  size_t group_count() const { return groups_.size(); }
  bool default_allow() const { return default_allow_; }

 private:
  bool covers(const FwTarget& t, const FwEndpoint& e) const;
  bool rule_allows(const FwRule& r, const FwPacket& p, const FwEndpoint& remote) const;
  std::vector<SecurityGroup> groups_;
  bool default_allow_ = false;
};

}  // namespace flowlab::controller

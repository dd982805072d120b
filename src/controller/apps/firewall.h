// firewall: security groups (rules in YAML, see firewall_rules.h) enforced with flows.
//
// OpenFlow 1.3: the firewall owns the first table of its place in the stack.
// Base flows: table-miss -> CONTROLLER; ARP, DHCP and IPv6 neighbour discovery
// -> goto the next app's table. A packet-in from its table is decided by the
// rules (or the connection table, for return traffic): allowed -> two exact
// flows (the connection and its reverse) -> goto next table, and the event goes
// on to the next app (e.g. learning-switch, which forwards it); denied -> an
// exact drop flow, event consumed. OpenFlow 1.0 (one table): the firewall
// installs the drop flows at priority 200 and narrows the flows later apps
// install to the allowed 5-tuple (PacketInEvent::narrow), so no L2 flow can
// carry traffic the rules did not allow.
//
// Reload (SIGHUP): the new file is parsed first; on error the old rules stay
// and the error names file, line and rule. On success the rules are swapped,
// tracked connections are re-checked against them, and every firewall flow is
// deleted, so the next packet of each connection is decided by the new rules.
// No window lets denied traffic pass: until the delete reaches the switch only
// flows allowed by the old rules exist, and after it every packet comes back
// to the controller.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "controller/app.h"
#include "controller/apps/firewall_rules.h"

namespace flowlab::controller {

class Firewall : public App {
 public:
  static Result<std::unique_ptr<Firewall>> load(const std::string& path);
  Firewall(std::string path, FwRuleSet rules);

  std::string_view name() const override { return "firewall"; }
  void switch_connected(Datapath& dp) override;
  void switch_disconnected(Datapath& dp) override;
  Verdict packet_in(Datapath& dp, PacketInEvent& ev) override;
  Status reload() override;

  uint64_t allowed() const;
  uint64_t denied() const;

  static constexpr uint64_t kCookie = 0xf1f1000000000000ull;
  static constexpr uint64_t kCookieMask = 0xffff000000000000ull;
  static constexpr uint16_t kPriority = 200;

  struct ConnKey {
    uint8_t proto;
    uint32_t src, dst;
    uint16_t sport, dport;
    bool operator==(const ConnKey&) const = default;
  };
  struct ConnKeyHash {
    size_t operator()(const ConnKey& k) const {
      return std::hash<uint64_t>()((uint64_t(k.src) << 32 | k.dst) ^
                                   (uint64_t(k.sport) << 24 | uint64_t(k.dport) << 8 | k.proto));
    }
  };

 private:
  void install_base(Datapath& dp);
  void install_connection(Datapath& dp, const ConnKey& k, bool allow);

  std::string path_;
  mutable std::mutex mu_;
  FwRuleSet rules_;
  struct Conn {
    FwPacket fwd;
    bool reverse = false;  // return-traffic entry of an allowed connection
  };
  std::unordered_map<ConnKey, Conn, ConnKeyHash> conns_;
  std::unordered_map<uint32_t, FwEndpoint> hosts_;  // ip -> where it was seen
  std::map<uint64_t, Datapath*> dps_;               // connected switches (touch on their thread only)
  uint64_t allowed_ = 0, denied_ = 0;
};

}  // namespace flowlab::controller

// SwitchPorts: the switch's set of ports, as the datapath, the forwarding
// threads and the OpenFlow agent see it.
//
// The set is fixed when the switch starts (ports are opened before anything
// runs), so the list itself needs no synchronisation. What changes at run time
// is per port and atomic: liveness (link up/down, polled by the agent),
// OpenFlow config bits (port-mod: PORT_DOWN, NO_RECV, NO_FWD, NO_PACKET_IN)
// and counters the switch adds on top of the port's own (drops by config).
// Implements dp::PortView for FLOOD/ALL and fast-failover liveness.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "datapath/datapath.h"
#include "openflow/message.h"
#include "port/port.h"

namespace flowlab::sw {

struct SwitchPort {
  std::unique_ptr<Port> port;
  uint32_t port_no = 0;
  std::atomic<uint32_t> config{0};  // of::port_config bits
  std::atomic<bool> link_up{false};
  std::atomic<uint64_t> config_drops{0};  // dropped because of NO_RECV/NO_FWD/PORT_DOWN
  uint64_t added_ns = 0;                  // for duration in port stats
  // Link speed in Mbit/s (0: unknown), read once when the port is added. Not
  // read per request: the ethtool ioctl waits for the kernel's RTNL lock,
  // which other programs' namespace and link changes can hold for seconds,
  // and the agent thread (port-desc, features, port-status) must not wait
  // behind it (the soak's stalls, docs/RELIABILITY.md).
  uint32_t speed_mbps = 0;
};

class SwitchPorts final : public dp::PortView {
 public:
  // Takes the opened ports with their OpenFlow numbers already set (set_port_no).
  explicit SwitchPorts(std::vector<std::unique_ptr<Port>> ports);
  // Closes the ports at once (core/parallel_release.h): each close waits for the
  // kernel's RCU grace period.
  ~SwitchPorts() override;
  SwitchPorts(const SwitchPorts&) = delete;
  SwitchPorts& operator=(const SwitchPorts&) = delete;

  // dp::PortView
  void list_ports(std::vector<uint32_t>& out) const override;
  bool is_live(uint32_t port_no) const override;

  size_t size() const { return ports_.size(); }
  SwitchPort& at(size_t i) { return *ports_[i]; }
  const SwitchPort& at(size_t i) const { return *ports_[i]; }
  // nullptr for an unknown number (including reserved ports).
  SwitchPort* find(uint32_t port_no);
  const SwitchPort* find(uint32_t port_no) const;

  of::PortDesc desc(const SwitchPort& p) const;
  std::vector<of::PortDesc> descs() const;
  of::PortStats stats(const SwitchPort& p, uint64_t now_ns) const;

  // Port-mod: checks the number and hardware address, applies config under mask.
  BasicStatus<of::OfError> port_mod(const of::PortMod& pm);

  // Re-reads link state of every port (control path: a syscall per port);
  // returns the indices whose state changed.
  std::vector<size_t> poll_links();

 private:
  std::vector<std::unique_ptr<SwitchPort>> ports_;
  std::vector<uint32_t> numbers_;
};

}  // namespace flowlab::sw

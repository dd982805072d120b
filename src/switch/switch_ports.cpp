// SwitchPorts (see switch_ports.h): port descriptions, stats, port-mod, liveness.
#include "switch/switch_ports.h"

#include "core/clock.h"
#include "core/parallel_release.h"

namespace flowlab::sw {

SwitchPorts::SwitchPorts(std::vector<std::unique_ptr<Port>> ports) {
  uint64_t now = monotonic_ns();
  for (auto& p : ports) {
    auto sp = std::make_unique<SwitchPort>();
    sp->port_no = p->port_no();
    sp->link_up.store(p->link_up(), std::memory_order_relaxed);
    sp->added_ns = now;
    sp->speed_mbps = p->speed_mbps();
    sp->port = std::move(p);
    numbers_.push_back(sp->port_no);
    ports_.push_back(std::move(sp));
  }
}

SwitchPorts::~SwitchPorts() { release_in_parallel(ports_); }

void SwitchPorts::list_ports(std::vector<uint32_t>& out) const {
  out.clear();
  for (const auto& p : ports_) {
    if (p->config.load(std::memory_order_relaxed) & (of::port_config::kNoFwd | of::port_config::kPortDown))
      continue;
    out.push_back(p->port_no);
  }
}

bool SwitchPorts::is_live(uint32_t port_no) const {
  const SwitchPort* p = find(port_no);
  return p && p->link_up.load(std::memory_order_relaxed) &&
         !(p->config.load(std::memory_order_relaxed) & of::port_config::kPortDown);
}

SwitchPort* SwitchPorts::find(uint32_t port_no) {
  for (auto& p : ports_)
    if (p->port_no == port_no) return p.get();
  return nullptr;
}
const SwitchPort* SwitchPorts::find(uint32_t port_no) const {
  for (const auto& p : ports_)
    if (p->port_no == port_no) return p.get();
  return nullptr;
}

of::PortDesc SwitchPorts::desc(const SwitchPort& p) const {
  of::PortDesc d;
  d.port_no = p.port_no;
  d.hw_addr = p.port->mac();
  d.name = std::string(p.port->name());
  d.config = p.config.load(std::memory_order_relaxed);
  bool up = p.link_up.load(std::memory_order_relaxed);
  d.state = up ? of::port_state::kLive : of::port_state::kLinkDown;
  uint32_t mbps = p.speed_mbps;
  if (mbps == 0) mbps = 10000;
  d.curr = d.advertised = d.supported = of::port_features::k10GbFd | of::port_features::kCopper;
  d.curr_speed = d.max_speed = mbps * 1000;
  return d;
}

std::vector<of::PortDesc> SwitchPorts::descs() const {
  std::vector<of::PortDesc> v;
  for (const auto& p : ports_) v.push_back(desc(*p));
  return v;
}

of::PortStats SwitchPorts::stats(const SwitchPort& p, uint64_t now_ns) const {
  PortStats s = p.port->stats();
  of::PortStats o;
  o.port_no = p.port_no;
  o.rx_packets = s.rx_packets;
  o.tx_packets = s.tx_packets;
  o.rx_bytes = s.rx_bytes;
  o.tx_bytes = s.tx_bytes;
  o.rx_dropped = s.rx_dropped + p.config_drops.load(std::memory_order_relaxed);
  o.tx_dropped = s.tx_dropped;
  o.rx_errors = s.rx_errors;
  o.tx_errors = s.tx_errors;
  uint64_t d = now_ns - p.added_ns;
  o.duration_sec = uint32_t(d / 1'000'000'000);
  o.duration_nsec = uint32_t(d % 1'000'000'000);
  return o;
}

BasicStatus<of::OfError> SwitchPorts::port_mod(const of::PortMod& pm) {
  SwitchPort* p = find(pm.port_no);
  if (!p)
    return unexpected(
        of::OfError::make(of::PortModFailedCode::kBadPort, fmt::format("port_mod: no port {}", pm.port_no)));
  if (pm.hw_addr != p->port->mac())
    return unexpected(of::OfError::make(of::PortModFailedCode::kBadHwAddr,
                                        fmt::format("port_mod: port {} has address {}, not {}", pm.port_no,
                                                    p->port->mac().to_string(), pm.hw_addr.to_string())));
  constexpr uint32_t kSupported = of::port_config::kPortDown | of::port_config::kNoRecv |
                                  of::port_config::kNoFwd | of::port_config::kNoPacketIn;
  if (pm.mask & ~kSupported)
    return unexpected(
        of::OfError::make(of::PortModFailedCode::kBadConfig,
                          fmt::format("port_mod: config mask {:#x} has unsupported bits", pm.mask)));
  uint32_t cur = p->config.load(std::memory_order_relaxed);
  p->config.store((cur & ~pm.mask) | (pm.config & pm.mask), std::memory_order_relaxed);
  return {};
}

std::vector<size_t> SwitchPorts::poll_links() {
  std::vector<size_t> changed;
  for (size_t i = 0; i < ports_.size(); ++i) {
    bool up = ports_[i]->port->link_up();
    if (up != ports_[i]->link_up.exchange(up, std::memory_order_relaxed)) changed.push_back(i);
  }
  return changed;
}

}  // namespace flowlab::sw

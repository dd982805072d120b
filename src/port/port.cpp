// Port: shared pieces of the port interface (capabilities, counters, open_port).
#include "port/port.h"

#include "core/result.h"
#include "port/af_packet_port.h"
#include "port/tap_port.h"

namespace flowlab {

bool PortCapabilities::accepts(const OffloadInfo& o) const {
  if (o.flags == 0 && !o.is_gso()) return true;
  if (!vnet_hdr) return false;
  if (o.needs_csum() && !csum) return false;
  if ((o.gso_type & OffloadInfo::kGsoEcn) && !tso_ecn) return false;
  switch (o.gso_type & ~OffloadInfo::kGsoEcn) {
    case OffloadInfo::kGsoNone:
      return true;
    case OffloadInfo::kGsoTcpv4:
      return tso4;
    case OffloadInfo::kGsoTcpv6:
      return tso6;
    case OffloadInfo::kGsoUdp:
      return ufo;
    case OffloadInfo::kGsoUdpL4:
      return uso;
    default:
      return false;
  }
}

PortCapabilities PortCapabilities::all() {
  PortCapabilities c;
  c.vnet_hdr = c.csum = c.tso4 = c.tso6 = c.tso_ecn = c.ufo = c.uso = true;
  return c;
}

PortStats PortCounters::snapshot() const {
  constexpr auto r = std::memory_order_relaxed;
  PortStats s;
  s.rx_packets = rx_packets_.load(r);
  s.rx_bytes = rx_bytes_.load(r);
  s.rx_dropped = rx_dropped_.load(r);
  s.rx_errors = rx_errors_.load(r);
  s.tx_packets = tx_packets_.load(r);
  s.tx_bytes = tx_bytes_.load(r);
  s.tx_dropped = tx_dropped_.load(r);
  s.tx_errors = tx_errors_.load(r);
  return s;
}

size_t Port::tx_one(Packet& pkt) {
  thread_local PacketBatch b;  // no allocation after the first call on a thread
  b.clear();
  b.pkts.push_back(&pkt);
  size_t n = tx_batch(b);
  b.clear();
  return n;
}

Result<std::unique_ptr<Port>> open_port(std::string_view spec, const PortOptions& opts) {
  constexpr std::string_view kTap = "tap:";
  if (spec.substr(0, kTap.size()) == kTap) {
    FLOWLAB_ASSIGN_OR_RETURN(auto tap, TapPort::open(spec.substr(kTap.size()), opts));
    return std::unique_ptr<Port>(std::move(tap));
  }
  FLOWLAB_ASSIGN_OR_RETURN(auto port, AfPacketPort::open(spec, opts));
  return std::unique_ptr<Port>(std::move(port));
}

}  // namespace flowlab

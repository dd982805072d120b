// UpcallDevice: the TAP `flup<ifindex>` through which the eBPF fast path hands
// one switch's misses to its slow path (one device per switch, named after the
// switch's first fast-path port). The program pushes an outer 802.1Q tag on
// each miss whose TCI is the ingress port's tag (its index in the switch,
// fast_path_abi.h) and redirects it here; pop_port_tag() takes it off again.
//
// One queue per forwarding thread (IFF_MULTI_QUEUE when more than one: the
// kernel spreads the frames over the queues by flow hash, so one flow stays on
// one thread). Read with the virtio-net header, so GSO super-frames and
// partial checksums come up whole. Non-persistent: the device goes with its
// last queue, even on a crash. IPv6 off and no address, so the host stack
// never sends into it: every frame read from it comes from the program.
//
// Cost per switch, paid once instead of once per port: one device registered
// (its netlink notifications), one sysctl write, one link up.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "port/tap_port.h"

namespace flowlab::kernel {

class UpcallDevice {
 public:
  // `first_ifindex`: the switch's first fast-path port (names the device).
  static Result<std::unique_ptr<UpcallDevice>> open(int first_ifindex, size_t queues);

  int ifindex() const { return queues_.front()->ifindex(); }
  std::string_view name() const { return queues_.front()->name(); }
  size_t queue_count() const { return queues_.size(); }
  TapPort& queue(size_t i) { return *queues_[i]; }

  // Takes the outer tag off a frame read from the device (the offload
  // metadata follows); the port tag it carried, or -1 when the frame has
  // none (the frame is then left as it was).
  static int pop_port_tag(Packet& pkt);

 private:
  UpcallDevice() = default;
  std::vector<std::unique_ptr<TapPort>> queues_;
};

}  // namespace flowlab::kernel

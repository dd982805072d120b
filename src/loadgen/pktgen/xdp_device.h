// What `flowlab pktgen --mode xdp` needs of the kernel and of the sending
// interface, checked before anything is sent, each failure with the fix:
//  * Linux 5.18 or later (BPF_F_TEST_XDP_LIVE_FRAMES);
//  * the interface up, with carrier (a veth has none while its peer is down),
//    and an MTU the frame fits;
//  * a driver that can transmit XDP frames (ndo_xdp_xmit). On a veth that
//    depends on the peer: XDP_TX out of a veth is veth_xdp_xmit into the
//    peer's XDP ring, which only exists while the peer's NAPI is on, that is
//    with GRO enabled on the peer (`ethtool -K PEER gro on`) or an XDP
//    program attached to it. Linux 6.3+ says so in the interface's XDP
//    features (netdev generic netlink: ndo-xmit is set on a veth only when
//    its peer qualifies) and then drops refused frames silently; 5.18-6.2
//    drop them in veth_xdp_xmit and count them in the sender's tx_dropped,
//    which a probe batch detects. Either way the run fails before it
//    starts, with the fix in the message. The generator does not change the
//    peer: it usually sits in another namespace and belongs to someone else
//    (a switch's port), and a change made there could not be undone if the
//    generator were killed.
// The sender's tx_dropped also counts frames the peer's ring had no room for
// (its NAPI slower than the generator): read before and after a run, the
// difference is what the peer refused (and shows as its rx_dropped).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"

namespace flowlab::loadgen {

struct SendingDevice {
  std::string name;
  int ifindex = 0;
  std::string driver;                    // ethtool's driver name ("veth"), empty if unknown
  std::optional<uint64_t> xdp_features;  // NETDEV_XDP_ACT_* bits (Linux 6.3+)
  bool is_veth() const { return driver == "veth"; }
};

inline constexpr uint64_t kXdpActNdoXmit = 4;  // NETDEV_XDP_ACT_NDO_XMIT

// Linux >= 5.18, from uname (major.minor of the release string).
Status check_live_frames_kernel();
// Parses a release string ("6.18.44-fc") into major * 1000 + minor; 0 if unreadable.
int kernel_version_code(const std::string& release);

// Up, carrier, frame_len - 14 <= MTU, XDP transmit where the kernel tells;
// the driver's name.
Result<SendingDevice> check_sending_device(const std::string& name, int ifindex, size_t frame_len);

// The error for a veth whose peer takes no XDP frames: what to run instead.
std::string veth_peer_without_napi(const std::string& dev);

// The interface's XDP features (netdev generic netlink); nullopt on kernels
// without the netdev family (before 6.3).
Result<std::optional<uint64_t>> xdp_features(int ifindex);

// The interface's tx_dropped counter (rtnetlink, this namespace).
Result<uint64_t> tx_dropped(int ifindex);

}  // namespace flowlab::loadgen

// KernelPort (see kernel_port.h).
#include "kernel/kernel_port.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>

#include <cstring>
#include <fstream>

#include "core/log.h"
#include "port/netdev.h"

namespace flowlab::kernel {
namespace {

std::string driver_of(std::string_view ifname) {
  auto sock = netdev::control_socket();
  if (!sock.ok()) return "";
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifreq ifr{};
  std::memcpy(ifr.ifr_name, ifname.data(), std::min(ifname.size(), size_t(IFNAMSIZ - 1)));
  ifr.ifr_data = reinterpret_cast<char*>(&info);
  if (::ioctl(sock->get(), SIOCETHTOOL, &ifr) != 0) return "";
  return info.driver;
}

int read_iflink(std::string_view ifname) {
  std::ifstream f("/sys/class/net/" + std::string(ifname) + "/iflink");
  int v = 0;
  return f >> v ? v : 0;
}

// A veth's iflink is its peer's ifindex; when no other interface here has
// that index and points back, the peer lives in another namespace. (Indexes
// are per namespace: the peer of p1 (index 2 here) is often eth0 with index 2
// in a host namespace, so "index 2 here" can be p1 itself — that is not its
// peer; the first version missed this and used bpf_redirect on such ports.)
bool peer_elsewhere(std::string_view ifname, int ifindex) {
  if (driver_of(ifname) != "veth") return false;
  int peer = read_iflink(ifname);
  if (peer <= 0) return false;
  if (peer == ifindex) return true;
  auto name = netdev::name_of(peer);
  return !name.ok() || read_iflink(*name) != ifindex;
}

}  // namespace

Result<std::unique_ptr<KernelPort>> KernelPort::open(std::string_view ifname) {
  std::unique_ptr<KernelPort> p(new KernelPort());
  PortOptions tx_opts;
  tx_opts.receive = false;
  FLOWLAB_ASSIGN_OR_RETURN(p->tx_, AfPacketPort::open(ifname, tx_opts));
  p->veth_peer_elsewhere_ = peer_elsewhere(ifname, p->tx_->ifindex());
  if (p->veth_peer_elsewhere_)
    log::debug("kernel", "{}: veth peer in another namespace (redirect_peer)", ifname);
  return p;
}

size_t KernelPort::rx_batch(PacketBatch&, size_t) { return 0; }  // misses come through the upcall device

// The agent's packet-outs and the forwarding threads' slow-path outputs can
// transmit on one port at once: each call counts its own share (the socket's
// counters read before and after outside its lock counted the other's too).
size_t KernelPort::tx_batch(PacketBatch& batch) {
  PortStats d = tx_->tx_batch_counted(batch);
  counters_.add_tx(d.tx_packets, d.tx_bytes);
  counters_.add_tx_dropped(d.tx_dropped);
  counters_.add_tx_errors(d.tx_errors);
  return size_t(d.tx_packets);
}

}  // namespace flowlab::kernel

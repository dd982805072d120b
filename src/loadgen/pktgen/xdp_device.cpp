// Checks of the kernel and the sending interface (see xdp_device.h).
#include "loadgen/pktgen/xdp_device.h"

#include <fmt/format.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool.h>
#include <linux/genetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "lab/host/netlink.h"

namespace flowlab::loadgen {

namespace {

constexpr int kLiveFramesVersion = 5018;  // Linux 5.18

// The netdev generic netlink family (include/uapi/linux/netdev.h, Linux 6.3;
// Debian 12's headers predate it).
constexpr uint8_t kNetdevCmdDevGet = 1;
constexpr uint16_t kNetdevAttrIfindex = 1;
constexpr uint16_t kNetdevAttrXdpFeatures = 3;

// A generic netlink socket, closed on every path.
class GenlSocket {
 public:
  GenlSocket() : nl_(mnl_socket_open(NETLINK_GENERIC)) {
    if (nl_ && mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) {
      mnl_socket_close(nl_);
      nl_ = nullptr;
    }
  }
  ~GenlSocket() {
    if (nl_) mnl_socket_close(nl_);
  }
  GenlSocket(const GenlSocket&) = delete;
  GenlSocket& operator=(const GenlSocket&) = delete;
  bool ok() const { return nl_ != nullptr; }

  // One request (family, command, one attribute put by `put`); `attr` is
  // called for each attribute of the answer. Returns 0 or the errno.
  template <typename Put, typename Attr>
  int ask(uint16_t family, uint8_t cmd, Put put, Attr attr) {
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = family;
    nlh->nlmsg_flags = NLM_F_REQUEST;
    nlh->nlmsg_seq = ++seq_;
    auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = 1;
    put(nlh);
    if (mnl_socket_sendto(nl_, nlh, nlh->nlmsg_len) < 0) return errno;
    ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0) return errno;
    auto msg_cb = [](const nlmsghdr* h, void* data) -> int {
      auto attr_cb = [](const nlattr* a, void* d) -> int {
        (*static_cast<Attr*>(d))(a);
        return MNL_CB_OK;
      };
      mnl_attr_parse(h, sizeof(genlmsghdr), attr_cb, data);
      return MNL_CB_OK;
    };
    if (mnl_cb_run(buf.data(), size_t(n), seq_, mnl_socket_get_portid(nl_), msg_cb, &attr) < 0) return errno;
    return 0;
  }

 private:
  mnl_socket* nl_;
  uint32_t seq_ = 0;
};

// ifreq ioctls on a throwaway datagram socket, closed on every path.
class IoctlSocket {
 public:
  IoctlSocket() : fd_(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {}
  ~IoctlSocket() {
    if (fd_ >= 0) ::close(fd_);
  }
  IoctlSocket(const IoctlSocket&) = delete;
  IoctlSocket& operator=(const IoctlSocket&) = delete;
  bool call(const std::string& dev, unsigned long req, ifreq& ifr) const {
    std::snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev.c_str());
    return fd_ >= 0 && ::ioctl(fd_, req, &ifr) == 0;
  }

 private:
  int fd_;
};

}  // namespace

int kernel_version_code(const std::string& release) {
  int major = 0, minor = 0;
  if (std::sscanf(release.c_str(), "%d.%d", &major, &minor) != 2) return 0;
  return major * 1000 + minor;
}

Status check_live_frames_kernel() {
  utsname u{};
  if (::uname(&u) != 0) return ok_status();
  int v = kernel_version_code(u.release);
  if (v != 0 && v < kLiveFramesVersion)
    return fail(
        "--mode xdp needs Linux 5.18 or later (BPF_PROG_RUN live frames); this kernel is {}: use "
        "--mode udp",
        u.release);
  return ok_status();
}

Result<SendingDevice> check_sending_device(const std::string& name, int ifindex, size_t frame_len) {
  SendingDevice d;
  d.name = name;
  d.ifindex = ifindex;
  IoctlSocket s;
  ifreq ifr{};
  if (!s.call(name, SIOCGIFFLAGS, ifr)) return fail("--dev {}: {}", name, std::strerror(errno));
  if (!(ifr.ifr_flags & IFF_UP)) return fail("--dev {} is down (ip link set {} up)", name, name);
  if (!(ifr.ifr_flags & IFF_RUNNING))
    return fail("--dev {} has no carrier (a veth has none while its peer is down)", name);
  ifr = {};
  if (s.call(name, SIOCGIFMTU, ifr) && frame_len > size_t(ifr.ifr_mtu) + 14)
    return fail("a {}-byte frame does not fit {}'s MTU ({}): --size at most {}", frame_len, name, ifr.ifr_mtu,
                ifr.ifr_mtu - 28);
  ethtool_drvinfo info{};
  info.cmd = ETHTOOL_GDRVINFO;
  ifr = {};
  ifr.ifr_data = reinterpret_cast<char*>(&info);
  if (s.call(name, SIOCETHTOOL, ifr)) d.driver.assign(info.driver, strnlen(info.driver, sizeof info.driver));
  FLOWLAB_ASSIGN_OR_RETURN(d.xdp_features, xdp_features(ifindex));
  if (d.xdp_features && !(*d.xdp_features & kXdpActNdoXmit)) {
    if (d.is_veth()) return fail("{}", veth_peer_without_napi(name));
    return fail("--dev {} cannot transmit XDP frames (its driver{}{} has no XDP transmit): use --mode udp",
                name, d.driver.empty() ? "" : " ", d.driver);
  }
  return d;
}

std::string veth_peer_without_napi(const std::string& dev) {
  return fmt::format(
      "{}'s veth peer takes no XDP frames (its NAPI is off). Turn GRO on at the peer, in its namespace: "
      "ethtool -K PEER gro on (or attach an XDP program to it); pktgen leaves the peer as it is",
      dev);
}

Result<std::optional<uint64_t>> xdp_features(int ifindex) {
  GenlSocket nl;
  if (!nl.ok()) return fail("generic netlink socket: {}", std::strerror(errno));
  uint16_t family = 0;
  int e = nl.ask(
      GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
      [](nlmsghdr* h) { mnl_attr_put_strz(h, CTRL_ATTR_FAMILY_NAME, "netdev"); },
      [&family](const nlattr* a) {
        if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID) family = mnl_attr_get_u16(a);
      });
  if (e == ENOENT || (e == 0 && family == 0)) return std::optional<uint64_t>();  // before Linux 6.3
  if (e != 0) return fail("asking the kernel for the netdev netlink family: {}", std::strerror(e));
  std::optional<uint64_t> features;
  e = nl.ask(
      family, kNetdevCmdDevGet,
      [ifindex](nlmsghdr* h) { mnl_attr_put_u32(h, kNetdevAttrIfindex, uint32_t(ifindex)); },
      [&features](const nlattr* a) {
        if (mnl_attr_get_type(a) == kNetdevAttrXdpFeatures) features = mnl_attr_get_u64(a);
      });
  if (e != 0) return fail("reading the XDP features of interface {}: {}", ifindex, std::strerror(e));
  return features;
}

Result<uint64_t> tx_dropped(int ifindex) {
  FLOWLAB_ASSIGN_OR_RETURN(auto sock, lab::RtnlSocket::open());
  FLOWLAB_ASSIGN_OR_RETURN(auto links, sock.dump_links());
  for (const lab::LinkInfo& l : links)
    if (l.index == ifindex) return l.tx_dropped;
  return fail("interface {} disappeared", ifindex);
}

}  // namespace flowlab::loadgen

// rtnetlink requests through libmnl (see netlink.h).
#include "lab/host/netlink.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/if_addr.h>
#include <linux/if_bridge.h>
#include <linux/if_link.h>
#include <linux/neighbour.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "lab/host/netns_visit.h"

namespace flowlab::lab {

namespace {

constexpr size_t kMsgMax = 1024;       // one request (a veth with both ends is ~200 bytes)
constexpr size_t kBatchBytes = 32768;  // per sendmsg, well under the socket's send buffer
// Requests per sendmsg: each ack costs ~1 KB of the receive buffer until read; 2000
// link-ups in one batch overflowed it (ENOBUFS).
constexpr size_t kBatchMessages = 64;

// A request under construction: a buffer, the header, and the final size.
struct Msg {
  std::vector<uint8_t> buf = std::vector<uint8_t>(kMsgMax, 0);
  nlmsghdr* nlh = nullptr;
  explicit Msg(uint16_t type, uint16_t flags) {
    nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = uint16_t(NLM_F_REQUEST | NLM_F_ACK | flags);
  }
  RtnlRequest done(const std::string& what) {
    buf.resize(nlh->nlmsg_len);
    return {std::move(buf), what};
  }
};

ifinfomsg* put_ifinfo(nlmsghdr* nlh) {
  auto* ifm = static_cast<ifinfomsg*>(mnl_nlmsg_put_extra_header(nlh, sizeof(ifinfomsg)));
  ifm->ifi_family = AF_UNSPEC;
  return ifm;
}

// The attributes of one veth end (the device or, inside VETH_INFO_PEER, its peer).
Status put_end(nlmsghdr* nlh, const VethEnd& e) {
  mnl_attr_put_strz(nlh, IFLA_IFNAME, e.ifname.c_str());
  if (e.ns_fd >= 0) mnl_attr_put_u32(nlh, IFLA_NET_NS_FD, uint32_t(e.ns_fd));
  if (e.mtu > 0) mnl_attr_put_u32(nlh, IFLA_MTU, uint32_t(e.mtu));
  if (e.group) mnl_attr_put_u32(nlh, IFLA_GROUP, e.group);
  if (!e.mac.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(auto mac, parse_mac(e.mac));
    mnl_attr_put(nlh, IFLA_ADDRESS, mac.size(), mac.data());
  }
  return ok_status();
}

// An IPv4 or IPv6 address as the kernel takes it (4 or 16 bytes, network order).
struct IpBytes {
  int family = AF_UNSPEC;
  uint8_t b[16] = {};
  size_t len() const { return family == AF_INET ? 4 : 16; }
};

Result<IpBytes> parse_ip(const std::string& s, const std::string& what) {
  IpBytes ip;
  if (inet_pton(AF_INET, s.c_str(), ip.b) == 1)
    ip.family = AF_INET;
  else if (inet_pton(AF_INET6, s.c_str(), ip.b) == 1)
    ip.family = AF_INET6;
  else
    return fail("{}: '{}' is not an IPv4 or IPv6 address", what, s);
  return ip;
}

struct AckAttrs {
  std::string msg;
};

int ack_attr_cb(const nlattr* a, void* data) {
  if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
    static_cast<AckAttrs*>(data)->msg = mnl_attr_get_str(a);
  return MNL_CB_OK;
}

// IFLA_LINKINFO of a bridge port: IFLA_INFO_SLAVE_DATA holds IFLA_BRPORT_STATE.
int slave_data_cb(const nlattr* a, void* data) {
  if (mnl_attr_get_type(a) == IFLA_BRPORT_STATE && mnl_attr_validate(a, MNL_TYPE_U8) == 0)
    static_cast<LinkInfo*>(data)->bridge_port_state = mnl_attr_get_u8(a);
  return MNL_CB_OK;
}

struct LinkInfoParse {
  LinkInfo* out;
  bool bridge_slave = false;
  const nlattr* slave_data = nullptr;
};

int linkinfo_cb(const nlattr* a, void* data) {
  auto* p = static_cast<LinkInfoParse*>(data);
  if (mnl_attr_get_type(a) == IFLA_INFO_SLAVE_KIND && mnl_attr_validate(a, MNL_TYPE_STRING) == 0)
    p->bridge_slave = std::strncmp(mnl_attr_get_str(a), "bridge", mnl_attr_get_payload_len(a)) == 0;
  if (mnl_attr_get_type(a) == IFLA_INFO_SLAVE_DATA && mnl_attr_validate(a, MNL_TYPE_NESTED) == 0)
    p->slave_data = a;
  return MNL_CB_OK;
}

int link_attr_cb(const nlattr* a, void* data) {
  auto* p = static_cast<LinkInfoParse*>(data);
  switch (mnl_attr_get_type(a)) {
    case IFLA_IFNAME:
      if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0) p->out->name = mnl_attr_get_str(a);
      break;
    case IFLA_MASTER:
      if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) p->out->master = int(mnl_attr_get_u32(a));
      break;
    case IFLA_STATS64:
      if (mnl_attr_get_payload_len(a) >= sizeof(rtnl_link_stats64)) {
        rtnl_link_stats64 st;
        std::memcpy(&st, mnl_attr_get_payload(a), sizeof st);
        p->out->rx_packets = st.rx_packets;
        p->out->tx_packets = st.tx_packets;
        p->out->rx_bytes = st.rx_bytes;
        p->out->tx_bytes = st.tx_bytes;
        p->out->rx_errors = st.rx_errors;
        p->out->tx_errors = st.tx_errors;
        p->out->rx_dropped = st.rx_dropped;
        p->out->tx_dropped = st.tx_dropped;
      }
      break;
    case IFLA_LINKINFO:
      if (mnl_attr_validate(a, MNL_TYPE_NESTED) == 0) {
        mnl_attr_parse_nested(a, linkinfo_cb, p);
        if (p->bridge_slave && p->slave_data) mnl_attr_parse_nested(p->slave_data, slave_data_cb, p->out);
      }
      break;
    default:
      break;
  }
  return MNL_CB_OK;
}

}  // namespace

const char* bridge_port_state_name(int state) {
  switch (state) {
    case BR_STATE_DISABLED:
      return "disabled";
    case BR_STATE_LISTENING:
      return "listening";
    case BR_STATE_LEARNING:
      return "learning";
    case BR_STATE_FORWARDING:
      return "forwarding";
    case BR_STATE_BLOCKING:
      return "blocking";
    default:
      return "unknown";
  }
}

bool parse_link_message(const void* msg, size_t len, LinkInfo& out) {
  const auto* nlh = static_cast<const nlmsghdr*>(msg);
  if (len < sizeof(nlmsghdr) || nlh->nlmsg_len > len || nlh->nlmsg_type != RTM_NEWLINK ||
      nlh->nlmsg_len < NLMSG_LENGTH(sizeof(ifinfomsg)))
    return false;
  const auto* ifm = static_cast<const ifinfomsg*>(mnl_nlmsg_get_payload(nlh));
  out = LinkInfo{};
  out.index = ifm->ifi_index;
  out.up = (ifm->ifi_flags & IFF_UP) != 0;
  LinkInfoParse p{&out};
  mnl_attr_parse(nlh, sizeof(ifinfomsg), link_attr_cb, &p);
  return true;
}

Result<std::vector<uint8_t>> parse_mac(const std::string& mac) {
  std::vector<uint8_t> out;
  unsigned v[6];
  char tail = 0;
  if (std::sscanf(mac.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
                  &tail) != 6)
    return fail("'{}' is not a MAC address (aa:bb:cc:dd:ee:ff)", mac);
  for (unsigned b : v) out.push_back(uint8_t(b));
  return out;
}

Result<RtnlRequest> veth_request(const VethEnd& a, const VethEnd& b, const std::string& what) {
  Msg m(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  ifinfomsg* ifm = put_ifinfo(m.nlh);
  ifm->ifi_flags = IFF_UP;
  ifm->ifi_change = IFF_UP;
  FLOWLAB_TRY(put_end(m.nlh, a));
  nlattr* linkinfo = mnl_attr_nest_start(m.nlh, IFLA_LINKINFO);
  mnl_attr_put_strz(m.nlh, IFLA_INFO_KIND, "veth");
  nlattr* data = mnl_attr_nest_start(m.nlh, IFLA_INFO_DATA);
  nlattr* peer = mnl_attr_nest_start(m.nlh, VETH_INFO_PEER);
  // The peer's attributes follow its own ifinfomsg. No IFF_UP there: the kernel
  // configures the peer before the pair is joined, and a veth without its peer
  // refuses to open (ENOTCONN); the peer is set up by a second request.
  auto* pifm = static_cast<ifinfomsg*>(mnl_nlmsg_get_payload_tail(m.nlh));
  std::memset(pifm, 0, sizeof(ifinfomsg));
  pifm->ifi_family = AF_UNSPEC;
  m.nlh->nlmsg_len += MNL_ALIGN(sizeof(ifinfomsg));
  FLOWLAB_TRY(put_end(m.nlh, b));
  mnl_attr_nest_end(m.nlh, peer);
  mnl_attr_nest_end(m.nlh, data);
  mnl_attr_nest_end(m.nlh, linkinfo);
  return m.done(what);
}

RtnlRequest link_up_request(int ifindex, const std::string& what) {
  Msg m(RTM_NEWLINK, 0);
  ifinfomsg* ifm = put_ifinfo(m.nlh);
  ifm->ifi_index = ifindex;
  ifm->ifi_flags = IFF_UP;
  ifm->ifi_change = IFF_UP;
  return m.done(what);
}

RtnlRequest group_delete_request(uint32_t group, const std::string& what) {
  Msg m(RTM_DELLINK, 0);
  put_ifinfo(m.nlh);  // ifindex 0: the group names the devices
  mnl_attr_put_u32(m.nlh, IFLA_GROUP, group);
  RtnlRequest r = m.done(what);
  r.tolerated_errno = ENODEV;
  return r;
}

RtnlRequest bridge_request(const std::string& name, bool stp, const std::string& what) {
  Msg m(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  ifinfomsg* ifm = put_ifinfo(m.nlh);
  ifm->ifi_flags = IFF_UP;
  ifm->ifi_change = IFF_UP;
  mnl_attr_put_strz(m.nlh, IFLA_IFNAME, name.c_str());
  nlattr* linkinfo = mnl_attr_nest_start(m.nlh, IFLA_LINKINFO);
  mnl_attr_put_strz(m.nlh, IFLA_INFO_KIND, "bridge");
  if (stp) {
    // Timers in 1/100 s: 2 s forward delay (the least STP allows), 1 s hello.
    nlattr* data = mnl_attr_nest_start(m.nlh, IFLA_INFO_DATA);
    mnl_attr_put_u32(m.nlh, IFLA_BR_FORWARD_DELAY, 200);
    mnl_attr_put_u32(m.nlh, IFLA_BR_HELLO_TIME, 100);
    mnl_attr_put_u32(m.nlh, IFLA_BR_STP_STATE, 1);
    mnl_attr_nest_end(m.nlh, data);
  }
  mnl_attr_nest_end(m.nlh, linkinfo);
  return m.done(what);
}

RtnlRequest set_master_request(int ifindex, int master_index, const std::string& what) {
  Msg m(RTM_NEWLINK, 0);
  ifinfomsg* ifm = put_ifinfo(m.nlh);
  ifm->ifi_index = ifindex;
  mnl_attr_put_u32(m.nlh, IFLA_MASTER, uint32_t(master_index));
  return m.done(what);
}

Result<RtnlRequest> addr_request(int ifindex, const std::string& cidr, const std::string& what) {
  auto slash = cidr.find('/');
  std::string ip = cidr.substr(0, slash);
  int plen = 32;
  if (slash != std::string::npos) {
    char* end = nullptr;
    long p = std::strtol(cidr.c_str() + slash + 1, &end, 10);
    if (*end != '\0' || p < 0 || p > 32 || end == cidr.c_str() + slash + 1)
      return fail("{}: '{}' is not an IPv4 prefix (10.0.0.1/8)", what, cidr);
    plen = int(p);
  }
  in_addr a{};
  if (inet_pton(AF_INET, ip.c_str(), &a) != 1) return fail("{}: '{}' is not an IPv4 address", what, cidr);
  Msg m(RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL);
  auto* ifa = static_cast<ifaddrmsg*>(mnl_nlmsg_put_extra_header(m.nlh, sizeof(ifaddrmsg)));
  ifa->ifa_family = AF_INET;
  ifa->ifa_prefixlen = uint8_t(plen);
  ifa->ifa_index = uint32_t(ifindex);
  mnl_attr_put_u32(m.nlh, IFA_LOCAL, a.s_addr);
  mnl_attr_put_u32(m.nlh, IFA_ADDRESS, a.s_addr);
  if (plen < 31) {
    uint32_t host = ntohl(a.s_addr) | (plen == 0 ? 0xffffffffu : (0xffffffffu >> plen));
    mnl_attr_put_u32(m.nlh, IFA_BROADCAST, htonl(host));
  }
  return m.done(what);
}

Result<RtnlRequest> vxlan_request(const VxlanDevice& d, const std::string& what) {
  if (d.ifname.empty() || d.ifname.size() >= IFNAMSIZ)
    return fail("{}: '{}' is not an interface name (1-{} characters)", what, d.ifname, IFNAMSIZ - 1);
  if (d.vni > 0xffffff) return fail("{}: VNI {} is past 24 bits", what, d.vni);
  if (d.port < 1 || d.port > 65535) return fail("{}: UDP port {} out of 1-65535", what, d.port);
  FLOWLAB_ASSIGN_OR_RETURN(IpBytes local, parse_ip(d.local, what));
  IpBytes remote;
  if (!d.remote.empty()) {
    FLOWLAB_ASSIGN_OR_RETURN(remote, parse_ip(d.remote, what));
    if (remote.family != local.family)
      return fail("{}: local {} and remote {} are not of one address family", what, d.local, d.remote);
  }
  Msg m(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
  ifinfomsg* ifm = put_ifinfo(m.nlh);
  ifm->ifi_flags = IFF_UP;
  ifm->ifi_change = IFF_UP;
  mnl_attr_put_strz(m.nlh, IFLA_IFNAME, d.ifname.c_str());
  if (d.ns_fd >= 0) mnl_attr_put_u32(m.nlh, IFLA_NET_NS_FD, uint32_t(d.ns_fd));
  if (d.mtu > 0) mnl_attr_put_u32(m.nlh, IFLA_MTU, uint32_t(d.mtu));
  nlattr* linkinfo = mnl_attr_nest_start(m.nlh, IFLA_LINKINFO);
  mnl_attr_put_strz(m.nlh, IFLA_INFO_KIND, "vxlan");
  nlattr* data = mnl_attr_nest_start(m.nlh, IFLA_INFO_DATA);
  mnl_attr_put_u32(m.nlh, IFLA_VXLAN_ID, d.vni);
  bool v4 = local.family == AF_INET;
  mnl_attr_put(m.nlh, v4 ? IFLA_VXLAN_LOCAL : IFLA_VXLAN_LOCAL6, local.len(), local.b);
  if (!d.remote.empty())
    mnl_attr_put(m.nlh, v4 ? IFLA_VXLAN_GROUP : IFLA_VXLAN_GROUP6, remote.len(), remote.b);
  mnl_attr_put_u16(m.nlh, IFLA_VXLAN_PORT, htons(uint16_t(d.port)));
  mnl_attr_nest_end(m.nlh, data);
  mnl_attr_nest_end(m.nlh, linkinfo);
  return m.done(what);
}

Result<RtnlRequest> vxlan_flood_request(int ifindex, const std::string& dst, const std::string& what) {
  FLOWLAB_ASSIGN_OR_RETURN(IpBytes ip, parse_ip(dst, what));
  Msg m(RTM_NEWNEIGH, NLM_F_CREATE | NLM_F_APPEND);
  auto* ndm = static_cast<ndmsg*>(mnl_nlmsg_put_extra_header(m.nlh, sizeof(ndmsg)));
  ndm->ndm_family = AF_BRIDGE;
  ndm->ndm_ifindex = ifindex;
  ndm->ndm_state = NUD_NOARP | NUD_PERMANENT;
  ndm->ndm_flags = NTF_SELF;  // the VXLAN device's own table, not a bridge's
  const uint8_t zeros[6] = {};
  mnl_attr_put(m.nlh, NDA_LLADDR, sizeof zeros, zeros);
  mnl_attr_put(m.nlh, NDA_DST, ip.len(), ip.b);
  return m.done(what);
}

// --- the socket ---

Result<RtnlSocket> RtnlSocket::open() {
  RtnlSocket s;
  s.nl_ = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
  if (!s.nl_) return fail("netlink: opening a rtnetlink socket: {}", errno_text(errno));
  if (mnl_socket_bind(s.nl_, 0, MNL_SOCKET_AUTOPID) < 0)
    return fail("netlink: binding a rtnetlink socket: {}", errno_text(errno));
  int one = 1;
  // Acks carry the kernel's reason and only the header of the failed request.
  mnl_socket_setsockopt(s.nl_, NETLINK_EXT_ACK, &one, sizeof one);
  mnl_socket_setsockopt(s.nl_, NETLINK_CAP_ACK, &one, sizeof one);
  s.portid_ = mnl_socket_get_portid(s.nl_);
  return s;
}

Result<RtnlSocket> RtnlSocket::open_in(const std::string& ns_path) {
  Result<RtnlSocket> r = fail("netlink: no socket opened in {}", ns_path);
  Status visit = visit_netns(ns_path, [&] { r = open(); });
  if (!visit.ok()) return fail("netlink: {}", visit.error().message);
  return r;
}

RtnlSocket::RtnlSocket(RtnlSocket&& o) noexcept { *this = std::move(o); }

RtnlSocket& RtnlSocket::operator=(RtnlSocket&& o) noexcept {
  if (this != &o) {
    if (nl_) mnl_socket_close(nl_);
    nl_ = std::exchange(o.nl_, nullptr);
    portid_ = o.portid_;
    seq_ = o.seq_;
  }
  return *this;
}

RtnlSocket::~RtnlSocket() {
  if (nl_) mnl_socket_close(nl_);
}

Status RtnlSocket::run(std::vector<RtnlRequest> reqs) {
  size_t from = 0;
  while (from < reqs.size()) {
    size_t to = from, bytes = 0;
    while (to < reqs.size() && to - from < kBatchMessages &&
           (to == from || bytes + reqs[to].bytes.size() <= kBatchBytes))
      bytes += reqs[to++].bytes.size();
    FLOWLAB_TRY(send_batch(reqs, from, to));
    from = to;
  }
  return ok_status();
}

Status RtnlSocket::send_batch(std::vector<RtnlRequest>& reqs, size_t from, size_t to) {
  std::vector<uint8_t> out;
  uint32_t first = seq_;
  for (size_t i = from; i < to; ++i) {
    auto* nlh = reinterpret_cast<nlmsghdr*>(reqs[i].bytes.data());
    nlh->nlmsg_seq = seq_++;
    out.insert(out.end(), reqs[i].bytes.begin(), reqs[i].bytes.end());
  }
  if (mnl_socket_sendto(nl_, out.data(), out.size()) < 0)
    return fail("netlink: {}: sending: {}", reqs[from].what, errno_text(errno));
  // Every request carries NLM_F_ACK: one ack (error 0 or -errno) per request, even
  // after a failed one. Keep the first failure.
  size_t acked = 0, want = to - from;
  std::string first_error;
  std::vector<uint8_t> buf(MNL_SOCKET_BUFFER_SIZE);
  while (acked < want) {
    ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("netlink: {}: reading the acks: {}", reqs[from].what, errno_text(errno));
    }
    int len = int(n);
    for (auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data()); mnl_nlmsg_ok(nlh, len);
         nlh = mnl_nlmsg_next(nlh, &len)) {
      if (nlh->nlmsg_type != NLMSG_ERROR || nlh->nlmsg_seq < first || nlh->nlmsg_seq >= seq_) continue;
      ++acked;
      auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
      const RtnlRequest& req = reqs[from + (nlh->nlmsg_seq - first)];
      if (err->error == 0 || -err->error == req.tolerated_errno || !first_error.empty()) continue;
      AckAttrs extra;
      if (nlh->nlmsg_flags & NLM_F_ACK_TLVS) mnl_attr_parse(nlh, sizeof(nlmsgerr), ack_attr_cb, &extra);
      first_error = fmt::format("netlink: {}: {}{}", req.what, errno_text(-err->error),
                                extra.msg.empty() ? "" : " (" + extra.msg + ")");
    }
  }
  if (!first_error.empty()) return fail("{}", first_error);
  return ok_status();
}

Result<int> RtnlSocket::link_index(const std::string& ifname) {
  Msg m(RTM_GETLINK, 0);
  m.nlh->nlmsg_flags = NLM_F_REQUEST;
  put_ifinfo(m.nlh);
  mnl_attr_put_strz(m.nlh, IFLA_IFNAME, ifname.c_str());
  m.nlh->nlmsg_seq = seq_++;
  if (mnl_socket_sendto(nl_, m.nlh, m.nlh->nlmsg_len) < 0)
    return fail("netlink: looking up {}: {}", ifname, errno_text(errno));
  std::vector<uint8_t> buf(MNL_SOCKET_BUFFER_SIZE);
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("netlink: looking up {}: {}", ifname, errno_text(errno));
    int len = int(n);
    for (auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data()); mnl_nlmsg_ok(nlh, len);
         nlh = mnl_nlmsg_next(nlh, &len)) {
      if (nlh->nlmsg_seq != m.nlh->nlmsg_seq) continue;
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
        return fail("netlink: looking up interface {}: {}", ifname, errno_text(-err->error));
      }
      if (nlh->nlmsg_type == RTM_NEWLINK)
        return static_cast<ifinfomsg*>(mnl_nlmsg_get_payload(nlh))->ifi_index;
    }
  }
}

Result<std::vector<LinkInfo>> RtnlSocket::dump_links() {
  Msg m(RTM_GETLINK, 0);
  m.nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  put_ifinfo(m.nlh);
  m.nlh->nlmsg_seq = seq_++;
  if (mnl_socket_sendto(nl_, m.nlh, m.nlh->nlmsg_len) < 0)
    return fail("netlink: dumping the interfaces: {}", errno_text(errno));
  std::vector<LinkInfo> out;
  std::vector<uint8_t> buf(32768);  // the kernel fills up to 32 KB per read of a dump
  for (;;) {
    ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("netlink: dumping the interfaces: {}", errno_text(errno));
    int len = int(n);
    for (auto* nlh = reinterpret_cast<nlmsghdr*>(buf.data()); mnl_nlmsg_ok(nlh, len);
         nlh = mnl_nlmsg_next(nlh, &len)) {
      if (nlh->nlmsg_seq != m.nlh->nlmsg_seq) continue;
      if (nlh->nlmsg_type == NLMSG_DONE) return out;
      if (nlh->nlmsg_type == NLMSG_ERROR) {
        auto* err = static_cast<nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
        if (err->error == 0) continue;
        return fail("netlink: dumping the interfaces: {}", errno_text(-err->error));
      }
      LinkInfo li;
      if (parse_link_message(nlh, nlh->nlmsg_len, li)) out.push_back(std::move(li));
    }
  }
}

}  // namespace flowlab::lab

// TCP sockets of a namespace by NETLINK_SOCK_DIAG dumps (see sock_diag.h).
#include "lab/host/sock_diag.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "lab/host/netns_visit.h"

namespace flowlab::lab {

namespace {

// A NETLINK_SOCK_DIAG socket in /run/netns/NS: the thread enters the namespace only
// for socket(2).
Result<int> open_diag_socket(const std::string& ns) {
  if (ns.empty()) {
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return fail("sock_diag: opening a socket: {}", errno_text(errno));
    return fd;
  }
  std::string path = "/run/netns/" + ns;
  int fd = -1, e = 0;
  Status visit = visit_netns(path, [&] {
    fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    e = errno;
  });
  if (!visit.ok()) {
    if (fd >= 0) close(fd);
    return fail("sock_diag: {}", visit.error().message);
  }
  if (fd < 0) return fail("sock_diag: opening a socket in {}: {}", path, errno_text(e));
  return fd;
}

// One dump of one family into `out`.
Status dump_family(int fd, uint8_t family, uint32_t states, std::vector<TcpSocket>& out) {
  struct {
    nlmsghdr nlh;
    inet_diag_req_v2 req;
  } msg{};
  msg.nlh.nlmsg_len = sizeof msg;
  msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  msg.nlh.nlmsg_seq = family;
  msg.req.sdiag_family = family;
  msg.req.sdiag_protocol = IPPROTO_TCP;
  msg.req.idiag_states = states;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  if (sendto(fd, &msg, sizeof msg, 0, reinterpret_cast<sockaddr*>(&kernel), sizeof kernel) < 0)
    return fail("sock_diag: sending a TCP dump request: {}", errno_text(errno));
  alignas(nlmsghdr) char buf[16384];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("sock_diag: reading a TCP dump: {}", errno_text(errno));
    if (n == 0) return fail("sock_diag: the TCP dump ended without NLMSG_DONE");
    size_t len = static_cast<size_t>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_type == NLMSG_DONE) return ok_status();
      if (h->nlmsg_type == NLMSG_ERROR) {
        auto* err = static_cast<nlmsgerr*>(NLMSG_DATA(h));
        // A kernel without the family's diag module (IPv6 off) answers ENOENT.
        if (h->nlmsg_len >= NLMSG_LENGTH(sizeof *err) && err->error == -ENOENT) return ok_status();
        return fail("sock_diag: TCP dump: {}",
                    errno_text(h->nlmsg_len >= NLMSG_LENGTH(sizeof *err) ? -err->error : EPROTO));
      }
      TcpSocket s;
      if (parse_inet_diag_message(h, h->nlmsg_len, s)) out.push_back(s);
    }
  }
}

}  // namespace

bool parse_inet_diag_message(const void* msg, size_t len, TcpSocket& out) {
  if (len < NLMSG_LENGTH(sizeof(inet_diag_msg))) return false;
  const auto* h = static_cast<const nlmsghdr*>(msg);
  if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len > len ||
      h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg)))
    return false;
  inet_diag_msg m;
  std::memcpy(&m, static_cast<const char*>(msg) + NLMSG_HDRLEN, sizeof m);
  if (m.idiag_family != AF_INET && m.idiag_family != AF_INET6) return false;
  out.state = m.idiag_state;
  out.sport = ntohs(m.id.idiag_sport);
  out.dport = ntohs(m.id.idiag_dport);
  return true;
}

Result<std::vector<TcpSocket>> tcp_sockets(const std::string& ns, uint32_t states) {
  FLOWLAB_ASSIGN_OR_RETURN(int fd, open_diag_socket(ns));
  std::vector<TcpSocket> out;
  Status st = dump_family(fd, AF_INET, states, out);
  if (st.ok()) st = dump_family(fd, AF_INET6, states, out);
  close(fd);
  if (!st.ok()) return unexpected(st.error());
  return out;
}

size_t count_tcp(const std::vector<TcpSocket>& socks, uint16_t sport, uint16_t dport) {
  size_t n = 0;
  for (const auto& s : socks) n += (sport == 0 || s.sport == sport) && (dport == 0 || s.dport == dport);
  return n;
}

}  // namespace flowlab::lab

// sock_diag.h: the lab's "listening yet / connected yet" checks without `ss`. A live
// dump of this process's own namespace (no root needed) sees a listener and an
// established loopback connection made here, with their ports, and stops seeing the
// listener once it is closed; the parser refuses short and foreign messages.
#include "lab/host/sock_diag.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace flowlab::lab {
namespace {

// A TCP listener on 127.0.0.1 with a kernel-chosen port.
int listen_loopback(uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 4) != 0) return -1;
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

TEST(SockDiag, SeesAListenerAndAnEstablishedConnectionOfThisNamespace) {
  uint16_t port = 0;
  int lfd = listen_loopback(&port);
  ASSERT_GE(lfd, 0);
  auto listeners = tcp_sockets("", tcp_state_bit(TCP_LISTEN));
  ASSERT_TRUE(listeners.ok()) << listeners.error().message;
  EXPECT_EQ(count_tcp(*listeners, port, 0), 1u);
  for (const auto& s : *listeners) EXPECT_EQ(s.state, TCP_LISTEN);

  auto before = tcp_sockets("", tcp_state_bit(TCP_ESTABLISHED));
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(count_tcp(*before, 0, port), 0u);
  int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(cfd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  auto est = tcp_sockets("", tcp_state_bit(TCP_ESTABLISHED));
  ASSERT_TRUE(est.ok());
  // The client's end goes to the port; the accepted (queued) end comes from it.
  EXPECT_EQ(count_tcp(*est, 0, port), 1u);
  EXPECT_EQ(count_tcp(*est, port, 0), 1u);
  // The established ones are not listed as listeners, and a closed listener is gone.
  auto listen_again = tcp_sockets("", tcp_state_bit(TCP_LISTEN));
  ASSERT_TRUE(listen_again.ok());
  EXPECT_EQ(count_tcp(*listen_again, port, 0), 1u);
  close(cfd);
  close(lfd);
  auto after = tcp_sockets("", tcp_state_bit(TCP_LISTEN));
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(count_tcp(*after, port, 0), 0u);
}

TEST(SockDiag, AMissingNamespaceIsAnErrorNamingIt) {
  auto r = tcp_sockets("flowlab-no-such-namespace", tcp_state_bit(TCP_LISTEN));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("flowlab-no-such-namespace"), std::string::npos) << r.error().message;
}

TEST(SockDiag, ParsesAnInetDiagMessageAndRefusesOthers) {
  std::vector<char> buf(NLMSG_LENGTH(sizeof(inet_diag_msg)), 0);
  auto* h = reinterpret_cast<nlmsghdr*>(buf.data());
  h->nlmsg_len = uint32_t(buf.size());
  h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  inet_diag_msg m{};
  m.idiag_family = AF_INET;
  m.idiag_state = TCP_ESTABLISHED;
  m.id.idiag_sport = htons(40000);
  m.id.idiag_dport = htons(6653);
  std::memcpy(buf.data() + NLMSG_HDRLEN, &m, sizeof m);
  TcpSocket s;
  ASSERT_TRUE(parse_inet_diag_message(buf.data(), buf.size(), s));
  EXPECT_EQ(s.state, TCP_ESTABLISHED);
  EXPECT_EQ(s.sport, 40000);
  EXPECT_EQ(s.dport, 6653);
  EXPECT_FALSE(parse_inet_diag_message(buf.data(), buf.size() - 1, s));  // short
  h->nlmsg_type = NLMSG_ERROR;
  EXPECT_FALSE(parse_inet_diag_message(buf.data(), buf.size(), s));  // not a diag reply
  h->nlmsg_type = SOCK_DIAG_BY_FAMILY;
  m.idiag_family = AF_UNIX;
  std::memcpy(buf.data() + NLMSG_HDRLEN, &m, sizeof m);
  EXPECT_FALSE(parse_inet_diag_message(buf.data(), buf.size(), s));  // not TCP/IP
}

}  // namespace
}  // namespace flowlab::lab

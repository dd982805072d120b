// TCP sockets of a network namespace through NETLINK_SOCK_DIAG: what `ss -tn` reads,
// without forking `ss`. The lab polls it while a controller or switch comes up ("is
// it listening on its port yet", "how many switches hold a connection to it"): a
// dump of a lab's core namespace is a few microseconds where a fork of `ss` was
// milliseconds, so the waits poll every few milliseconds instead of every 100.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"

namespace flowlab::lab {

// One TCP socket as the kernel's inet_diag reports it (IPv4 or IPv6).
struct TcpSocket {
  int state = 0;                  // TCP_ESTABLISHED (1) .. TCP_LISTEN (10), as <netinet/tcp.h>
  uint16_t sport = 0, dport = 0;  // host byte order
};

// Bit of a TcpSocket state in a `states` mask: tcp_state_bit(TCP_LISTEN).
constexpr uint32_t tcp_state_bit(int state) { return 1u << state; }

// Every TCP socket (both families) of the namespace /run/netns/NS (NS empty: the
// caller's own) whose state is in `states`.
Result<std::vector<TcpSocket>> tcp_sockets(const std::string& ns, uint32_t states);

// Parses one sock_diag reply message (header included) into `out`; false if it is
// not an inet_diag message.
bool parse_inet_diag_message(const void* msg, size_t len, TcpSocket& out);

// How many of `socks` have source port `sport` (0: any) and destination port
// `dport` (0: any).
size_t count_tcp(const std::vector<TcpSocket>& socks, uint16_t sport, uint16_t dport);

}  // namespace flowlab::lab

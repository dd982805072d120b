// PeerLinks: how a cluster node learns at once that another node's process
// is gone, without waiting for its etcd lease to expire.
//
// Every node listens on a TCP port (published in its node record) and holds
// one connection to every other node's listener. A process that dies, however
// it dies (-9 included), has its sockets closed by the kernel, so the
// connection to it ends with EOF or a reset within a round trip; `on_gone`
// is then told the node and the lease it had (the caller revokes that lease,
// which ends the node's candidacies in etcd). A node that hangs (SIGSTOP) or
// is cut off keeps its connections open and is found by its lease expiring.
// Nothing is sent after a one-line greeting; no timers run on an idle link.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/result.h"

namespace flowlab::cluster {

struct PeerTarget {
  int64_t lease = 0;
  std::string address;  // HOST:PORT
  bool operator==(const PeerTarget&) const = default;
};

class PeerLinks {
 public:
  using OnGone = std::function<void(const std::string& node, int64_t lease, const std::string& why)>;

  PeerLinks(std::string self, OnGone on_gone);
  ~PeerLinks();
  PeerLinks(const PeerLinks&) = delete;
  PeerLinks& operator=(const PeerLinks&) = delete;

  // Binds the listener on HOST:PORT (port 0: any) and starts the thread;
  // returns the bound port.
  Result<uint16_t> start(const std::string& host_port);
  // The nodes to hold a connection to. A link to a node no longer listed, or
  // listed with another lease, is closed without a report.
  void set_peers(std::map<std::string, PeerTarget> peers);
  // Nodes with an established link now (any thread).
  size_t established() const;
  void stop();

  struct State;

 private:
  std::shared_ptr<State> s_;
};

// "HOST:PORT" split; false if either part is missing or the port is not 1-65535 (0 if `allow_zero`).
bool split_host_port(const std::string& s, std::string& host, uint16_t& port, bool allow_zero = false);

}  // namespace flowlab::cluster

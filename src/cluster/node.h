// ClusterNode: one `flowlab controller --cluster` process's part of the
// cluster. It registers the node in etcd under a lease, keeps the lease
// alive, enters the election of every switch connected here, and turns what
// etcd says into OF1.3 roles through the controller (controller/mastership.h):
// MASTER with the election key's create revision as generation id where this
// node leads, SLAVE elsewhere.
//
//   - Failover: a node whose process dies is seen by the others' peer links
//     (peer_links.h) at once and its lease revoked, so its switches' next
//     candidates lead within a watch round trip; a node that hangs loses its
//     lease after the TTL. A node that finds its own lease gone (it hung, or
//     was cut off) steps down everywhere before it campaigns again; its late
//     messages are refused by the switches, which have a newer generation id.
//   - Balance: the leader of a switch that balance.h gives to another live
//     candidate moves its key to the back of the queue (one transaction, so
//     etcd always shows the node serving the switch); it stays master at the
//     switch (serving packet-ins) until the new leader's key says "master",
//     so a hand-off loses no packet-in.
//   - etcd unreachable (quorum lost): no role changes at all, one log line,
//     retries until it answers.
//
// Threads: one reconciling thread (the only one that writes etcd, besides
// revoking dead peers' leases), the keepalive thread, the watch thread, the
// peer links' thread. The controller's calls only queue work.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cluster/peer_links.h"
#include "cluster/view.h"
#include "controller/controller.h"
#include "controller/mastership.h"
#include "coord/etcd_client.h"
#include "coord/watcher.h"

namespace flowlab::cluster {

struct ClusterOptions {
  coord::EtcdConfig etcd;
  std::string name = "default";  // the cluster (key root /flowlab/cluster/NAME/)
  std::string node;              // this node's name, unique in the cluster
  std::string peer = "0.0.0.0:0";
  std::string advertise;  // HOST for the peer address; "" = the address that reaches etcd
  std::string rest;       // this node's REST HOST:PORT, for status
  int64_t lease_ttl_s = 1;
};

class ClusterNode : public controller::Mastership {
 public:
  explicit ClusterNode(ClusterOptions opts);
  ~ClusterNode() override;
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Registers in etcd and starts the threads; `ctl` must outlive stop().
  // Fails (with what etcd said) if etcd cannot be reached or the node name is
  // held by a live node.
  Status start(controller::Controller& ctl);
  // Resigns everywhere, revokes the lease, stops every thread.
  void stop();

  // controller::Mastership (controller threads).
  void switch_up(uint64_t dpid) override;
  void switch_down(uint64_t dpid) override;
  void role_result(uint64_t dpid, bool master, uint64_t generation_id) override;

  // Called (on a controller thread, no lock held) when the switch grants this
  // node MASTER or it stops being master there (demoted, disconnected). Set
  // before start(); the flow store (flow_store.h) replays on it.
  void on_mastership(std::function<void(uint64_t dpid, bool master)> fn) { on_mastership_ = std::move(fn); }

  // For status and tests (any thread).
  size_t masters() const;
  int64_t lease() const;

 private:
  struct Local {
    bool connected = false;
    std::string key;  // my candidate key, "" if not entered
    int64_t create_revision = 0;
    bool proclaimed = false;        // my key says "master"
    int asked = 0;                  // 0 nothing, 1 master, 2 slave
    uint64_t asked_generation = 0;  // of the last request
    bool granted = false;           // the switch answered MASTER
    uint64_t granted_generation = 0;
    uint64_t refused_generation = 0;  // a MASTER request refused with this generation id
  };

  Status register_node();
  void run_reconcile();
  void run_keepalive();
  void reconcile();
  void reconcile_switch(uint64_t dpid, Local& l, const ClusterView& v, const std::string& preferred);
  bool enter(uint64_t dpid, Local& l);
  void resign(uint64_t dpid, Local& l);
  bool requeue(uint64_t dpid, Local& l, const Candidate& mine);
  void step_down_everywhere(const std::string& why);
  void ask(uint64_t dpid, Local& l, bool master, uint64_t generation);
  void peer_gone(const std::string& node, int64_t lease, const std::string& why);
  void wake();
  std::string advertised_peer(uint16_t port) const;

  ClusterOptions opts_;
  std::string root_;
  controller::Controller* ctl_ = nullptr;
  coord::EtcdClient etcd_;           // the reconciling thread's
  coord::EtcdClient revoker_;        // the peer thread's
  coord::EtcdClient keeper_client_;  // the keepalive thread's
  std::unique_ptr<PeerLinks> peers_;
  std::unique_ptr<coord::Watcher> watcher_;
  std::string peer_address_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool dirty_ = true;
  bool stopping_ = false;
  bool lease_lost_ = false;   // the keepalive found the lease gone
  bool unreachable_ = false;  // etcd has not answered for a TTL
  int64_t lease_ = 0;
  std::map<uint64_t, Local> local_;
  std::function<void(uint64_t, bool)> on_mastership_;
  std::thread reconciler_, keeper_;
};

}  // namespace flowlab::cluster

// FlowStore: what the REST API changes on a cluster's switches (flow-mods,
// group-mods, meter-mods, port-mods), kept in etcd so that it outlives the
// node that took it and reaches the switch's master wherever it was sent.
//
//   /flowlab/cluster-flows/NAME/DPID16/NODE-ID   {"node","replay","message"}  (no lease)
//
// `message` is the OpenFlow message in hex, in the version the switch speaks.
// A change sent to the switch's master is stored, then sent at once and
// answered with the switch's reply (barrier or error), as without a cluster;
// one sent to any other node is stored and answered 200: the master, watching
// the prefix, sends it within a watch round trip. A node that becomes master
// of a switch replays the switch's stored changes in the order etcd took them,
// so REST-installed flows survive a failover; a clear
// (DELETE /stats/flowentry/clear/DPID) empties the switch's log and is not
// replayed. Other deletes are replayed in order too: give REST's flows a
// cookie and delete by cookie so a replayed delete touches only them.
//
// Flows the apps install (learning switch, firewall, static-flows, shortest
// path) are not stored: every node's apps rebuild them from their own config
// or from packet-ins.
//
// Threads: REST threads call the SwitchAccess methods; one worker thread
// replays and applies what the watch delivers; on_mastership() only queues.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "coord/etcd_client.h"
#include "coord/watcher.h"
#include "core/bytes.h"
#include "rest/switch_access.h"

namespace flowlab::cluster {

std::string flows_root(std::string_view cluster_name);

// One stored change, decoded from its key and value (pure; fuzzed).
struct StoredChange {
  uint64_t dpid = 0;
  int64_t revision = 0;  // the key's create revision: the order of the log
  std::string node;      // who took it
  bool replay = true;    // false: applied once, never replayed (a clear)
  Bytes message;         // OpenFlow, one message
};
std::string encode_change(std::string_view node, bool replay, ByteSpan message);
// `key` is the full key under `root`; nullopt for anything malformed.
std::optional<StoredChange> decode_change(std::string_view root, const coord::KeyValue& kv);

class FlowStore : public rest::SwitchAccess {
 public:
  // `inner` talks to the switches connected to this node (the REST
  // directory); it must outlive stop().
  FlowStore(coord::EtcdConfig etcd, std::string cluster_name, std::string node, rest::SwitchAccess& inner);
  ~FlowStore() override;
  FlowStore(const FlowStore&) = delete;
  FlowStore& operator=(const FlowStore&) = delete;

  void start();
  void stop();

  // ClusterNode::on_mastership (any thread).
  void on_mastership(uint64_t dpid, bool master);

  // ---- rest::SwitchAccess (REST threads) ----
  std::vector<rest::SwitchSummary> switches() const override { return inner_.switches(); }
  std::optional<rest::SwitchSummary> find(uint64_t dpid) const override { return inner_.find(dpid); }
  rest::HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t dpid,
                                                                  of::MultipartRequestBody body) override {
    return inner_.multipart(dpid, std::move(body));
  }
  rest::HttpStatus modify(uint64_t dpid, of::MessageBody body) override;

 private:
  struct Job {
    uint64_t dpid = 0;
    std::optional<StoredChange> change;  // none: replay the switch's log
  };
  void run();
  void replay(uint64_t dpid);
  void replay_mastered();  // queues a replay of every switch mastered here
  void apply(const StoredChange& c);
  void send(const StoredChange& c);
  void push(Job job);

  std::string root_, node_;
  rest::SwitchAccess& inner_;
  coord::EtcdConfig etcd_config_;
  coord::EtcdClient writer_;  // REST threads, under write_mu_
  coord::EtcdClient reader_;  // the worker's
  std::unique_ptr<coord::Watcher> watcher_;
  uint64_t next_id_ = 0;

  std::mutex write_mu_;  // held across a store and the marking of its revision
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
  std::set<uint64_t> master_;            // switches this node masters
  std::map<uint64_t, int64_t> applied_;  // per mastered switch: the log is applied up to here
  std::set<int64_t> sent_here_;          // stored and sent by modify() on the master
  std::thread worker_;
};

}  // namespace flowlab::cluster

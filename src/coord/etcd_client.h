// EtcdClient: flowlab's client of an etcd 3.4 cluster over its JSON gateway.
//
//   auto cfg = coord::parse_endpoints("http://10.0.0.1:2379,http://10.0.0.2:2379");
//   coord::EtcdClient etcd(*cfg);
//   etcd.put("/flowlab/x", "1");            // Result<PutReply>
//   auto kv = etcd.get("/flowlab/x");       // Result<std::optional<KeyValue>>
//
// Failover: calls go to the endpoint that answered last; a transport failure
// (refused, timed out) or an unavailable member (HTTP 5xx: no leader, stopped,
// shutting down) moves to the next endpoint. When every endpoint was tried and
// one of them is up but could not answer (it hung or said 5xx: the cluster is
// electing a leader after losing one), the endpoints are tried again until the
// call's timeout (EtcdConfig::timeout) is spent; when all refused, the call
// fails at once. A call that fails is an error naming every endpoint and what
// each said last.
// A retried write may have been applied by the member that timed out; the
// transactions flowlab writes (elections, compare-and-set) are safe to retry.
// Thread-safe: calls are serialised on one connection; threads that block
// (watchers, keepers) use clients of their own.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "coord/curl_session.h"
#include "coord/etcd_json.h"
#include "core/result.h"

namespace flowlab::coord {

struct EtcdConfig {
  std::vector<std::string> endpoints;       // "http://127.0.0.1:2379"
  std::chrono::milliseconds timeout{2000};  // bounds every call, all endpoints together
  std::chrono::milliseconds attempt{800};   // bounds one try on one endpoint
};

// "http://a:2379,http://b:2379" (or host:port without a scheme) to a config.
Result<EtcdConfig> parse_endpoints(std::string_view list);
std::string join_endpoints(const std::vector<std::string>& endpoints);

class EtcdClient {
 public:
  explicit EtcdClient(EtcdConfig config);

  const EtcdConfig& config() const { return config_; }
  // The endpoint the next call goes to first.
  std::string current_endpoint() const;

  Result<std::optional<KeyValue>> get(std::string_view key);
  Result<RangeReply> get_prefix(std::string_view prefix);
  Result<RangeReply> range(const RangeRequest& request);
  Result<PutReply> put(std::string_view key, std::string_view value, int64_t lease = 0);
  Result<DeleteReply> erase(std::string_view key);
  Result<DeleteReply> erase_prefix(std::string_view prefix);
  Result<TxnReply> txn(const Txn& txn);

  Result<LeaseGrantReply> lease_grant(int64_t ttl_seconds);
  // The lease's remaining TTL in seconds; 0: the lease is gone.
  Result<int64_t> lease_keepalive(int64_t id);
  // Revoking a lease that is gone already is not an error.
  Status lease_revoke(int64_t id);
  Result<std::vector<int64_t>> leases();

  // Compacts the history up to `revision` (watches from before it are told).
  Status compact(int64_t revision);

  // One member's status (that endpoint only, no failover).
  Result<MemberStatus> member_status(const std::string& endpoint);

  // POSTs `body` to `path` ("/v3/kv/range") with failover; the reply body.
  // An etcd error object in a 4xx reply is returned as the body (the
  // decoders turn it into an error), 5xx moves on to the next endpoint.
  Result<std::string> call(std::string_view path, std::string_view body);

 private:
  EtcdConfig config_;
  mutable std::mutex mu_;
  CurlSession session_;
  size_t current_ = 0;
};

}  // namespace flowlab::coord

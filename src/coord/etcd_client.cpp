// EtcdClient (etcd_client.h).
#include "coord/etcd_client.h"

#include <algorithm>
#include <thread>

namespace flowlab::coord {

Result<EtcdConfig> parse_endpoints(std::string_view list) {
  EtcdConfig cfg;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    std::string_view item =
        list.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '/')) item.remove_suffix(1);
    if (!item.empty()) {
      std::string e(item);
      if (e.rfind("https://", 0) == 0)
        return fail("etcd endpoint {}: TLS to etcd is not supported, use http://", e);
      if (e.rfind("http://", 0) != 0) {
        if (e.find("://") != std::string::npos)
          return fail("etcd endpoint {}: only http:// is understood", e);
        e = "http://" + e;
      }
      if (e.find(':', 7) == std::string::npos) e += ":2379";
      cfg.endpoints.push_back(std::move(e));
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (cfg.endpoints.empty())
    return fail("no etcd endpoint given (expected http://HOST:2379[,http://HOST:2379...])");
  return cfg;
}

std::string join_endpoints(const std::vector<std::string>& endpoints) {
  std::string s;
  for (const auto& e : endpoints) s += (s.empty() ? "" : ",") + e;
  return s;
}

EtcdClient::EtcdClient(EtcdConfig config) : config_(std::move(config)) {}

std::string EtcdClient::current_endpoint() const {
  std::lock_guard lock(mu_);
  return config_.endpoints.empty() ? std::string() : config_.endpoints[current_ % config_.endpoints.size()];
}

Result<std::string> EtcdClient::call(std::string_view path, std::string_view body) {
  using namespace std::chrono;
  std::lock_guard lock(mu_);
  const size_t n = config_.endpoints.size();
  if (n == 0) return fail("etcd: no endpoint configured");
  const auto deadline = steady_clock::now() + config_.timeout;
  constexpr auto kPause = milliseconds(50);  // between rounds: a leader is being elected
  std::string tried;
  for (int round = 1;; ++round) {
    bool retry = false;  // a member is up but could not answer yet
    tried.clear();
    for (size_t i = 0; i < n; ++i) {
      const size_t idx = (current_ + i) % n;
      const std::string& ep = config_.endpoints[idx];
      auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
      if (left.count() <= 0) {
        tried += fmt::format("{}{}: not tried, the {} ms timeout was spent", tried.empty() ? "" : "; ", ep,
                             config_.timeout.count());
        continue;
      }
      auto r = session_.post(ep + std::string(path), body, std::min(left, config_.attempt));
      std::string why;
      if (!r) {
        why = r.error().message;
        retry = retry || session_.timed_out();
      } else if (r->status >= 500 || r->status == 0) {
        auto e = reply_error(r->body);
        why = fmt::format("{}{}: HTTP {} {}", ep, path, r->status, e ? e->message : r->body.substr(0, 120));
        retry = true;
      } else if (r->status == 404 && !reply_error(r->body)) {  // etcd's NotFound (a lease) has a body
        why = fmt::format("{}{}: HTTP 404 (not an etcd 3.4 JSON gateway?)", ep, path);
      } else {
        current_ = idx;
        return std::move(r->body);
      }
      tried += (tried.empty() ? "" : "; ") + why;
    }
    current_ = (current_ + 1) % n;  // start the next call (or round) elsewhere
    if (!retry || deadline - steady_clock::now() <= kPause) {
      if (round > 1) tried += fmt::format(" ({} rounds in {} ms)", round, config_.timeout.count());
      break;
    }
    std::this_thread::sleep_for(kPause);
  }
  return fail("etcd unreachable at {}: {}", join_endpoints(config_.endpoints), tried);
}

Result<std::optional<KeyValue>> EtcdClient::get(std::string_view key) {
  RangeRequest rq;
  rq.key = std::string(key);
  FLOWLAB_ASSIGN_OR_RETURN(auto r, range(rq));
  if (r.kvs.empty()) return std::optional<KeyValue>();
  return std::optional<KeyValue>(std::move(r.kvs.front()));
}

Result<RangeReply> EtcdClient::get_prefix(std::string_view prefix) {
  RangeRequest rq;
  rq.key = std::string(prefix);
  rq.range_end = prefix_range_end(prefix);
  return range(rq);
}

Result<RangeReply> EtcdClient::range(const RangeRequest& request) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/kv/range", encode_range(request)));
  return decode_range(body);
}

Result<PutReply> EtcdClient::put(std::string_view key, std::string_view value, int64_t lease) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/kv/put", encode_put(key, value, lease, false)));
  return decode_put(body);
}

Result<DeleteReply> EtcdClient::erase(std::string_view key) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/kv/deleterange", encode_delete(key, {})));
  return decode_delete(body);
}

Result<DeleteReply> EtcdClient::erase_prefix(std::string_view prefix) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body,
                           call("/v3/kv/deleterange", encode_delete(prefix, prefix_range_end(prefix))));
  return decode_delete(body);
}

Result<TxnReply> EtcdClient::txn(const Txn& t) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/kv/txn", encode_txn(t)));
  return decode_txn(body);
}

Result<LeaseGrantReply> EtcdClient::lease_grant(int64_t ttl_seconds) {
  if (ttl_seconds <= 0) return fail("etcd lease grant: TTL must be at least 1 s (got {})", ttl_seconds);
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/lease/grant", encode_lease_grant(ttl_seconds)));
  return decode_lease_grant(body);
}

Result<int64_t> EtcdClient::lease_keepalive(int64_t id) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/lease/keepalive", encode_lease_id(id)));
  FLOWLAB_ASSIGN_OR_RETURN(auto r, decode_lease_keepalive(body));
  return r.ttl;
}

Status EtcdClient::lease_revoke(int64_t id) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/lease/revoke", encode_lease_id(id)));
  auto e = reply_error(body);
  if (e && e->message.find("lease not found") == std::string::npos)
    return fail("etcd lease revoke {:x}: {} (code {})", id, e->message, e->code);
  return ok_status();
}

Result<std::vector<int64_t>> EtcdClient::leases() {
  FLOWLAB_ASSIGN_OR_RETURN(auto body, call("/v3/lease/leases", "{}"));
  FLOWLAB_ASSIGN_OR_RETURN(auto r, decode_lease_list(body));
  return std::move(r.ids);
}

Status EtcdClient::compact(int64_t revision) {
  FLOWLAB_ASSIGN_OR_RETURN(auto body,
                           call("/v3/kv/compaction", fmt::format(R"({{"revision":"{}"}})", revision)));
  if (auto e = reply_error(body); e)
    return fail("etcd compaction to {}: {} (code {})", revision, e->message, e->code);
  return ok_status();
}

Result<MemberStatus> EtcdClient::member_status(const std::string& endpoint) {
  std::lock_guard lock(mu_);
  FLOWLAB_ASSIGN_OR_RETURN(auto r, session_.post(endpoint + "/v3/maintenance/status", "{}", config_.attempt));
  if (r.status >= 500) return fail("{}: HTTP {}", endpoint, r.status);
  return decode_member_status(r.body);
}

}  // namespace flowlab::coord

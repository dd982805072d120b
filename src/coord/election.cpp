// Election (election.h).
#include "coord/election.h"

#include <condition_variable>
#include <mutex>

namespace flowlab::coord {

Election::Election(EtcdClient& client, std::string prefix) : client_(client), prefix_(std::move(prefix)) {
  if (prefix_.empty() || prefix_.back() != '/') prefix_ += '/';
}

Result<Candidacy> Election::enter(int64_t lease, std::string_view value) {
  if (lease == 0) return fail("election {}: a candidate needs a lease", prefix_);
  Candidacy c;
  c.key = fmt::format("{}{:x}", prefix_, lease);
  c.lease = lease;
  Txn t;
  t.compare.push_back(Compare::absent(c.key));
  t.success.push_back(TxnOp::put(c.key, std::string(value), lease));
  t.failure.push_back(TxnOp::get(c.key));
  FLOWLAB_ASSIGN_OR_RETURN(auto r, client_.txn(t));
  if (r.succeeded) {
    c.create_revision = r.header.revision;
    return c;
  }
  // The key exists: ours from a campaign retried (same lease), so keep it.
  if (r.responses.empty() || r.responses[0].range.kvs.empty())
    return fail("election {}: the candidate key {} exists but could not be read", prefix_, c.key);
  const KeyValue& kv = r.responses[0].range.kvs[0];
  c.create_revision = kv.create_revision;
  if (kv.value != value) FLOWLAB_TRY(proclaim(c, value));
  return c;
}

Result<std::vector<KeyValue>> Election::candidates() {
  RangeRequest rq;
  rq.key = prefix_;
  rq.range_end = prefix_range_end(prefix_);
  rq.sort_by_create_ascending = true;
  FLOWLAB_ASSIGN_OR_RETURN(auto r, client_.range(rq));
  return std::move(r.kvs);
}

Result<std::optional<KeyValue>> Election::leader() {
  RangeRequest rq;
  rq.key = prefix_;
  rq.range_end = prefix_range_end(prefix_);
  rq.sort_by_create_ascending = true;
  rq.limit = 1;
  FLOWLAB_ASSIGN_OR_RETURN(auto r, client_.range(rq));
  if (r.kvs.empty()) return std::optional<KeyValue>();
  return std::optional<KeyValue>(std::move(r.kvs.front()));
}

Result<bool> Election::is_leader(const Candidacy& c) {
  FLOWLAB_ASSIGN_OR_RETURN(auto l, leader());
  return l && l->key == c.key && l->create_revision == c.create_revision;
}

Result<bool> Election::wait_leader(const Candidacy& c, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  FLOWLAB_ASSIGN_OR_RETURN(auto first, is_leader(c));
  if (first) return true;
  std::mutex mu;
  std::condition_variable cv;
  bool changed = false;
  FLOWLAB_ASSIGN_OR_RETURN(auto now, client_.get(c.key));
  if (!now || now->create_revision != c.create_revision)
    return fail("election {}: the candidate key {} is gone (lease expired or revoked)", prefix_, c.key);
  WatchOptions wo;
  wo.prefix = prefix_;
  wo.start_revision = c.create_revision + 1;  // any change after we entered
  Watcher w(client_.config(), wo, [&](const WatchUpdate&) {
    std::lock_guard lock(mu);
    changed = true;
    cv.notify_all();
  });
  for (;;) {
    FLOWLAB_ASSIGN_OR_RETURN(auto lead, is_leader(c));
    if (lead) return true;
    std::unique_lock lock(mu);
    if (!cv.wait_until(lock, deadline, [&] { return changed; })) return false;
    changed = false;
  }
}

Result<bool> Election::campaign(int64_t lease, std::string_view value, std::chrono::milliseconds timeout,
                                Candidacy* out) {
  FLOWLAB_ASSIGN_OR_RETURN(auto c, enter(lease, value));
  if (out) *out = c;
  return wait_leader(c, timeout);
}

Status Election::proclaim(const Candidacy& c, std::string_view value) {
  Txn t;
  t.compare.push_back(Compare::create_revision_is(c.key, Compare::Op::kEqual, c.create_revision));
  t.success.push_back(TxnOp::put(c.key, std::string(value), c.lease));
  FLOWLAB_ASSIGN_OR_RETURN(auto r, client_.txn(t));
  if (!r.succeeded)
    return fail("election {}: {} is no longer a candidate (its lease is gone)", prefix_, c.key);
  return ok_status();
}

Status Election::resign(const Candidacy& c) {
  Txn t;
  t.compare.push_back(Compare::create_revision_is(c.key, Compare::Op::kEqual, c.create_revision));
  t.success.push_back(TxnOp::erase(c.key));
  FLOWLAB_ASSIGN_OR_RETURN(auto r, client_.txn(t));
  (void)r;  // gone already: nothing to resign
  return ok_status();
}

std::unique_ptr<Watcher> Election::observe(OnLeader on_leader) {
  auto reader = std::make_shared<EtcdClient>(client_.config());
  auto prefix = prefix_;
  auto last = std::make_shared<std::optional<KeyValue>>();
  auto report = [reader, prefix, on_leader, last](bool force) {
    Election e(*reader, prefix);
    auto l = e.leader();
    if (!l) return;
    bool same = last->has_value() == l->has_value() &&
                (!l->has_value() || ((*l)->key == (**last).key && (*l)->value == (**last).value &&
                                     (*l)->create_revision == (**last).create_revision));
    if (same && !force) return;
    *last = *l;
    on_leader(*l);
  };
  WatchOptions wo;
  wo.prefix = prefix_;
  auto start = client_.get_prefix(prefix_);
  if (start) wo.start_revision = start->header.revision + 1;
  report(true);
  return std::make_unique<Watcher>(client_.config(), wo, [report](const WatchUpdate&) { report(false); });
}

}  // namespace flowlab::coord

// Watches (resume across a killed member, compaction) and the election recipe
// against real etcd members.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "coord/election.h"
#include "coord/watcher.h"
#include "coord_support/etcd_cluster.h"

namespace flowlab::coord {
namespace {

using namespace std::chrono_literals;
using testing::EtcdCluster;

// Collects a watcher's events; waits for a count.
struct EventLog {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<WatchEvent> events;
  std::vector<WatchUpdate> compactions;
  void add(const WatchUpdate& u) {
    std::lock_guard lock(mu);
    if (u.compacted) compactions.push_back(u);
    for (const auto& e : u.events) events.push_back(e);
    cv.notify_all();
  }
  bool wait_for(size_t n, std::chrono::milliseconds t = 5s) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, t, [&] { return events.size() >= n; });
  }
  std::vector<std::string> values() {
    std::lock_guard lock(mu);
    std::vector<std::string> v;
    for (const auto& e : events)
      v.push_back(e.type == WatchEvent::Type::kDelete ? "-" + e.kv.key : e.kv.value);
    return v;
  }
};

bool wait_until(const std::function<bool()>& f, std::chrono::milliseconds t) {
  auto end = std::chrono::steady_clock::now() + t;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

TEST(EtcdWatch, ResumesOnAnotherMemberWithoutLossOrRepeat) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  auto start = c.put("/w/0", "v0");
  ASSERT_TRUE(start.ok());
  ASSERT_TRUE(c.put("/other", "no").ok());
  EventLog log;
  WatchOptions wo;
  wo.prefix = "/w/";
  wo.start_revision = start->header.revision;  // includes v0
  wo.probe_after = 300ms;
  Watcher w(etcd.config(), wo, [&](const WatchUpdate& u) { log.add(u); });
  ASSERT_TRUE(log.wait_for(1)) << "the watch from a past revision did not replay it";
  ASSERT_TRUE(c.put("/w/1", "v1").ok());
  ASSERT_TRUE(log.wait_for(2));
  etcd.kill(0);  // the watcher's member
  for (int i = 2; i < 6; ++i) ASSERT_TRUE(c.put("/w/" + std::to_string(i), "v" + std::to_string(i)).ok());
  ASSERT_TRUE(c.erase("/w/0").ok());
  ASSERT_TRUE(log.wait_for(7, 8s)) << "events after the kill did not arrive";
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(log.values(), (std::vector<std::string>{"v0", "v1", "v2", "v3", "v4", "v5", "-/w/0"}));
  EXPECT_GT(w.last_revision(), start->header.revision);
}

TEST(EtcdWatch, StoppedMemberIsLeftForAnother) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  EventLog log;
  WatchOptions wo;
  wo.prefix = "/s/";
  wo.probe_after = 300ms;
  Watcher w(etcd.config(), wo, [&](const WatchUpdate& u) { log.add(u); });
  ASSERT_TRUE(wait_until([&] { return w.started(); }, 5s));
  etcd.stop(0);
  ASSERT_TRUE(c.put("/s/a", "after-stop").ok());
  EXPECT_TRUE(log.wait_for(1, 5s)) << "a watch on a SIGSTOPped member never moved on";
  etcd.cont(0);
}

TEST(EtcdWatch, CompactedStartIsReported) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  auto first = c.put("/c/a", "1");
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(c.put("/c/a", "2").ok());
  auto third = c.put("/c/a", "3");
  ASSERT_TRUE(third.ok());
  ASSERT_TRUE(c.compact(third->header.revision).ok());
  EventLog log;
  WatchOptions wo;
  wo.prefix = "/c/";
  wo.start_revision = first->header.revision;
  Watcher w(etcd.config(), wo, [&](const WatchUpdate& u) { log.add(u); });
  ASSERT_TRUE(log.wait_for(1)) << "no event after the compaction";
  {
    std::lock_guard lock(log.mu);
    ASSERT_EQ(log.compactions.size(), 1u);
    EXPECT_EQ(log.compactions[0].compact_revision, third->header.revision);
  }
  EXPECT_EQ(log.values().front(), "3");
}

TEST(EtcdElection, LowestCreateRevisionLeadsAndTheNextTakesOver) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  Election e(c, "/elect/sw1");
  std::vector<int64_t> leases;
  std::vector<Candidacy> cands;
  for (int i = 0; i < 3; ++i) {
    auto l = c.lease_grant(5);
    ASSERT_TRUE(l.ok());
    leases.push_back(l->id);
    auto cand = e.enter(l->id, "node" + std::to_string(i));
    ASSERT_TRUE(cand.ok()) << cand.error().message;
    cands.push_back(*cand);
  }
  EXPECT_TRUE(*e.is_leader(cands[0]));
  EXPECT_FALSE(*e.is_leader(cands[1]));
  // Entering again with the same lease finds the same key.
  auto again = e.enter(leases[1], "node1");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->create_revision, cands[1].create_revision);
  auto lead = e.leader();
  ASSERT_TRUE(lead.ok() && lead->has_value());
  EXPECT_EQ((*lead)->value, "node0");

  std::mutex mu;
  std::vector<std::string> seen;
  auto obs = e.observe([&](const std::optional<KeyValue>& l) {
    std::lock_guard lock(mu);
    seen.push_back(l ? l->value : "none");
  });
  // node1 waits; node0's lease revoked (a dead node): node1 leads at once.
  std::atomic<bool> won{false};
  std::thread waiter([&] { won = e.wait_leader(cands[1], 5s).value(); });
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(won.load());
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(c.lease_revoke(leases[0]).ok());
  waiter.join();
  EXPECT_TRUE(won.load());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  // The fencing token grows; the old leader can neither proclaim nor lead.
  EXPECT_GT(cands[1].create_revision, cands[0].create_revision);
  EXPECT_FALSE(e.proclaim(cands[0], "node0-again").ok());
  EXPECT_TRUE(e.proclaim(cands[1], "node1-leading").ok());
  // Resign: node2 leads.
  ASSERT_TRUE(e.resign(cands[1]).ok());
  EXPECT_TRUE(*e.is_leader(cands[2]));
  ASSERT_TRUE(wait_until(
      [&] {
        std::lock_guard lock(mu);
        return !seen.empty() && seen.back() == "node2";
      },
      3s));
  std::lock_guard lock(mu);
  EXPECT_EQ(seen.front(), "node0");
  // The observer reads the leader after each change: changes in quick
  // succession may be seen as their outcome only, so node1 need not appear.
}

TEST(EtcdElection, CampaignWaitsAndTimesOut) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  Election e(c, "/elect/x/");
  auto l1 = c.lease_grant(5), l2 = c.lease_grant(5);
  ASSERT_TRUE(l1.ok() && l2.ok());
  EXPECT_TRUE(*e.campaign(l1->id, "a", 1s));
  auto t0 = std::chrono::steady_clock::now();
  Candidacy second;
  auto r = e.campaign(l2->id, "b", 300ms, &second);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 300ms);
  EXPECT_FALSE(e.enter(0, "no lease").ok());
  // Its lease gone, a candidate waiting is told so.
  ASSERT_TRUE(c.lease_revoke(l2->id).ok());
  EXPECT_FALSE(e.wait_leader(second, 200ms).ok());
  auto all = e.candidates();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 1u);
}

}  // namespace
}  // namespace flowlab::coord

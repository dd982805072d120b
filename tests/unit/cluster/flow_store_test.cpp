// The REST flow store (src/cluster/flow_store.h) on a real etcd member on
// loopback, with switches faked behind rest::SwitchAccess: a change sent to a
// slave reaches the master once, one sent to the master is sent once, a new
// master replays the log in order, a clear empties it; stored records decode
// back and malformed ones are refused.
#include "cluster/flow_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "coord_support/etcd_cluster.h"
#include "openflow/codec.h"

namespace flowlab::cluster {
namespace {

using namespace std::chrono_literals;

class FakeSwitches : public rest::SwitchAccess {
 public:
  std::vector<rest::SwitchSummary> switches() const override { return {summary()}; }
  std::optional<rest::SwitchSummary> find(uint64_t dpid) const override {
    if (dpid != 1) return std::nullopt;
    return summary();
  }
  rest::HttpResult<std::vector<of::MultipartReplyBody>> multipart(uint64_t,
                                                                  of::MultipartRequestBody) override {
    return std::vector<of::MultipartReplyBody>{};
  }
  rest::HttpStatus modify(uint64_t, of::MessageBody body) override {
    std::lock_guard lock(mu_);
    const auto* fm = std::get_if<of::FlowMod>(&body);
    sent_.push_back(fm ? (fm->command == of::FlowModCommand::kDelete ? -1 : int(fm->priority)) : 0);
    return {};
  }
  std::vector<int> sent() const {
    std::lock_guard lock(mu_);
    return sent_;
  }

 private:
  static rest::SwitchSummary summary() {
    rest::SwitchSummary s;
    s.dpid = 1;
    s.version = of::kOf13;
    return s;
  }
  mutable std::mutex mu_;
  std::vector<int> sent_;  // priorities of adds, -1 for deletes
};

of::FlowMod add(uint16_t priority) {
  of::FlowMod fm;
  fm.priority = priority;
  fm.cookie = 7;
  return fm;
}

of::FlowMod clear() {
  of::FlowMod fm;
  fm.command = of::FlowModCommand::kDelete;
  fm.table_id = of::table::kAll;
  return fm;
}

template <typename P>
bool eventually(P pred, std::chrono::milliseconds timeout = 5s) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

TEST(FlowStoreRecord, RoundTripsAndMalformedIsRefused) {
  const std::string root = flows_root("lab");
  EXPECT_EQ(root, "/flowlab/cluster-flows/lab/");
  of::Message m;
  m.body = add(100);
  auto wire = of::encode_message(m);
  ASSERT_TRUE(wire.ok());
  coord::KeyValue kv;
  kv.key = root + "000000000000002a/c1-1";
  kv.value = encode_change("c1", true, *wire);
  kv.create_revision = 9;
  auto c = decode_change(root, kv);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->dpid, 0x2au);
  EXPECT_EQ(c->node, "c1");
  EXPECT_TRUE(c->replay);
  EXPECT_EQ(c->revision, 9);
  EXPECT_EQ(c->message, *wire);

  auto bad = kv;
  bad.key = root + "2a/c1-1";  // a dpid of 16 hex digits
  EXPECT_FALSE(decode_change(root, bad));
  bad = kv;
  bad.key = "/elsewhere/000000000000002a/c1-1";
  EXPECT_FALSE(decode_change(root, bad));
  bad = kv;
  bad.value = R"({"node":"c1","replay":true,"message":"0x zz"})";
  EXPECT_FALSE(decode_change(root, bad));
  bad.value = R"({"node":"c1","message":"0400"})";  // no replay flag
  EXPECT_FALSE(decode_change(root, bad));
  bad.value = "[1,2]";
  EXPECT_FALSE(decode_change(root, bad));
}

class FlowStoreEtcd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(testing::kEtcdBinary, X_OK) != 0) GTEST_SKIP() << "needs etcd (Debian etcd-server)";
    etcd_ = std::make_unique<testing::EtcdCluster>(1);
    ASSERT_TRUE(etcd_->wait_healthy()) << etcd_->log_tail();
  }
  std::unique_ptr<testing::EtcdCluster> etcd_;
};

TEST_F(FlowStoreEtcd, SlaveWritesReachTheMasterOnceAndANewMasterReplaysInOrder) {
  const std::string name = "t" + std::to_string(getpid());
  FakeSwitches at_a, at_b;
  FlowStore a(etcd_->config(), name, "a", at_a), b(etcd_->config(), name, "b", at_b);
  a.start();
  b.start();
  a.on_mastership(1, true);
  b.on_mastership(1, false);

  ASSERT_TRUE(b.modify(1, add(10)).ok());  // on the slave: stored, the master sends it
  ASSERT_TRUE(eventually([&] { return at_a.sent() == std::vector<int>{10}; })) << at_a.sent().size();
  ASSERT_TRUE(a.modify(1, add(20)).ok());  // on the master: sent at once, once
  EXPECT_EQ(at_a.sent(), (std::vector<int>{10, 20}));
  EXPECT_TRUE(b.modify(2, add(5)).error().status == 404);  // not connected here
  std::this_thread::sleep_for(300ms);                      // the watch delivered both: nothing sent twice
  EXPECT_EQ(at_a.sent(), (std::vector<int>{10, 20}));
  EXPECT_TRUE(at_b.sent().empty());

  // Failover: b masters the switch and replays the log in etcd's order.
  a.on_mastership(1, false);
  b.on_mastership(1, true);
  ASSERT_TRUE(eventually([&] { return at_b.sent() == std::vector<int>{10, 20}; })) << at_b.sent().size();

  // A clear through a (a slave now) reaches b, empties the log, is not replayed.
  ASSERT_TRUE(a.modify(1, clear()).ok());
  ASSERT_TRUE(eventually([&] { return at_b.sent() == std::vector<int>{10, 20, -1}; })) << at_b.sent().size();
  FakeSwitches at_c;
  FlowStore c(etcd_->config(), name, "c", at_c);
  c.start();
  c.on_mastership(1, true);
  ASSERT_TRUE(c.modify(1, add(30)).ok());
  ASSERT_TRUE(eventually([&] { return !at_c.sent().empty(); }));
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(at_c.sent(), std::vector<int>{30});  // only its own: the log held the clear alone
  a.stop();
  b.stop();
  c.stop();
}

TEST(FlowStoreUnreachable, AWriteIsRefusedWith503AndNothingIsSent) {
  coord::EtcdConfig cfg;
  cfg.endpoints = {"http://127.0.0.1:9"};  // discard: nothing listens
  FakeSwitches sw;
  FlowStore s(cfg, "x", "a", sw);
  s.start();
  s.on_mastership(1, true);
  auto st = s.modify(1, add(10));
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().status, 503);
  EXPECT_NE(st.error().message.find("not stored"), std::string::npos) << st.error().message;
  EXPECT_TRUE(sw.sent().empty());
  s.stop();
}

}  // namespace
}  // namespace flowlab::cluster

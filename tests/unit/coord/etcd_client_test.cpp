// The etcd client against real etcd 3.4 members started by the test: kv,
// transactions, leases, failover over a killed or stopped member, unreachable
// endpoints and a peer that answers garbage.
#include "coord/etcd_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "coord/lease_keeper.h"
#include "coord_support/etcd_cluster.h"

namespace flowlab::coord {
namespace {

using namespace std::chrono_literals;
using testing::EtcdCluster;

TEST(EtcdClient, PutGetPrefixDeleteOnOneMember) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  ASSERT_TRUE(c.put("/t/a", "1").ok());
  ASSERT_TRUE(c.put("/t/b", std::string("\0\xff", 2)).ok());
  ASSERT_TRUE(c.put("/u", "x").ok());
  auto a = c.get("/t/a");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_TRUE(a->has_value());
  EXPECT_EQ((*a)->value, "1");
  EXPECT_EQ((*a)->version, 1);
  auto none = c.get("/t/zz");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto p = c.get_prefix("/t/");
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->kvs.size(), 2u);
  EXPECT_EQ(p->kvs[1].value, std::string("\0\xff", 2));
  auto d = c.erase_prefix("/t/");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->deleted, 2);
  EXPECT_TRUE(c.get_prefix("/t/")->kvs.empty());
  EXPECT_TRUE(c.get("/u")->has_value());
}

TEST(EtcdClient, TxnComparesValueVersionAndRevisions) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  // Create-if-absent: the first wins, the second reads what is there.
  Txn t;
  t.compare.push_back(Compare::absent("/k"));
  t.success.push_back(TxnOp::put("/k", "first"));
  t.failure.push_back(TxnOp::get("/k"));
  auto r1 = c.txn(t);
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  EXPECT_TRUE(r1->succeeded);
  t.success[0].value = "second";
  auto r2 = c.txn(t);
  ASSERT_TRUE(r2.ok());
  EXPECT_FALSE(r2->succeeded);
  ASSERT_EQ(r2->responses.size(), 1u);
  const KeyValue kv = r2->responses[0].range.kvs.at(0);
  EXPECT_EQ(kv.value, "first");
  EXPECT_EQ(kv.create_revision, r1->header.revision);

  auto cas = [&](Compare cmp) {
    Txn x;
    x.compare.push_back(std::move(cmp));
    x.success.push_back(TxnOp::put("/k", "cas"));
    auto r = c.txn(x);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->succeeded;
  };
  EXPECT_FALSE(cas(Compare::value_is("/k", Compare::Op::kEqual, "nope")));
  EXPECT_TRUE(cas(Compare::value_is("/k", Compare::Op::kEqual, "first")));
  EXPECT_TRUE(cas(Compare::version_is("/k", Compare::Op::kEqual, 2)));
  EXPECT_FALSE(cas(Compare::version_is("/k", Compare::Op::kLess, 2)));
  EXPECT_TRUE(cas(Compare::create_revision_is("/k", Compare::Op::kEqual, kv.create_revision)));
  auto now = c.get("/k");
  EXPECT_FALSE(cas(Compare::mod_revision_is("/k", Compare::Op::kGreater, (*now)->mod_revision)));
  EXPECT_TRUE(cas(Compare::mod_revision_is("/k", Compare::Op::kEqual, (*now)->mod_revision)));
  EXPECT_EQ((*c.get("/k"))->version, 5);
}

TEST(EtcdClient, LeaseExpiresKeeperKeepsItRevokeEndsIt) {
  EtcdCluster etcd(1);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  EtcdClient c(etcd.config());
  // Unkept: the key goes with the lease (TTL 1 s; etcd expires within ~2 s).
  auto l1 = c.lease_grant(1);
  ASSERT_TRUE(l1.ok()) << l1.error().message;
  ASSERT_TRUE(c.put("/lease/a", "x", l1->id).ok());
  EXPECT_EQ((*c.get("/lease/a"))->lease, l1->id);
  auto t0 = std::chrono::steady_clock::now();
  while (c.get("/lease/a")->has_value() && std::chrono::steady_clock::now() - t0 < 5s)
    std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(c.get("/lease/a")->has_value()) << "an unkept lease's key outlived its TTL";
  EXPECT_EQ(*c.lease_keepalive(l1->id), 0);

  // Kept: alive past three TTLs, then revoked: the keeper says lost.
  auto l2 = c.lease_grant(1);
  ASSERT_TRUE(l2.ok());
  ASSERT_TRUE(c.put("/lease/b", "y", l2->id).ok());
  std::atomic<bool> lost{false};
  std::string why;
  LeaseKeeper keeper(etcd.config(), l2->id, 1, [&](const std::string& w) {
    why = w;
    lost = true;
  });
  std::this_thread::sleep_for(3s);
  EXPECT_TRUE(c.get("/lease/b")->has_value());
  EXPECT_FALSE(lost.load());
  auto ids = c.leases();
  ASSERT_TRUE(ids.ok());
  EXPECT_NE(std::find(ids->begin(), ids->end(), l2->id), ids->end());
  ASSERT_TRUE(c.lease_revoke(l2->id).ok());
  EXPECT_FALSE(c.get("/lease/b")->has_value());
  t0 = std::chrono::steady_clock::now();
  while (!lost && std::chrono::steady_clock::now() - t0 < 3s) std::this_thread::sleep_for(20ms);
  EXPECT_TRUE(lost.load());
  EXPECT_TRUE(keeper.lost());
  EXPECT_NE(why.find("gone"), std::string::npos) << why;
  EXPECT_TRUE(c.lease_revoke(l2->id).ok()) << "revoking a gone lease is not an error";
  EXPECT_FALSE(c.lease_grant(0).ok());
}

TEST(EtcdClient, ThreeMembersSurviveAKilledAndAStoppedMember) {
  EtcdCluster etcd(3);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  // Killing the leader costs an election (0.5-1 s here, longer on a loaded
  // box): the client retries the members that are up within its timeout.
  auto cfg = etcd.config();
  cfg.timeout = std::chrono::milliseconds(4000);
  EtcdClient c(cfg);
  ASSERT_TRUE(c.put("/m/a", "1").ok());
  etcd.kill(0);  // the member the client talks to first
  auto t0 = std::chrono::steady_clock::now();
  auto p = c.put("/m/b", "2");
  ASSERT_TRUE(p.ok()) << p.error().message << etcd.log_tail();
  EXPECT_NE(c.current_endpoint(), etcd.endpoint(0));
  EXPECT_TRUE(c.get("/m/a")->has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, c.config().timeout);
  // Stop the member it moved to: the call still answers within its timeout.
  std::string moved = c.current_endpoint();
  int stopped = moved == etcd.endpoint(1) ? 1 : 2;
  etcd.stop(stopped);
  t0 = std::chrono::steady_clock::now();
  auto g = c.get("/m/b");
  auto took = std::chrono::steady_clock::now() - t0;
  // One member of three left: no quorum, a linearizable read cannot answer.
  // The client must say so within its timeout, naming the endpoints.
  if (!g.ok()) {
    EXPECT_NE(g.error().message.find(etcd.endpoint(0)), std::string::npos) << g.error().message;
  }
  EXPECT_LT(took, c.config().timeout + 500ms);
  etcd.cont(stopped);
  etcd.restart(0);
  ASSERT_TRUE(etcd.wait_healthy()) << etcd.log_tail();
  auto back = c.get("/m/b");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ((*back)->value, "2");
}

TEST(EtcdClient, UnreachableEndpointsAreAClearErrorInTime) {
  auto cfg = parse_endpoints(fmt::format("127.0.0.1:{},http://127.0.0.1:{}/", testing::free_loopback_port(),
                                         testing::free_loopback_port()));
  ASSERT_TRUE(cfg.ok());
  ASSERT_EQ(cfg->endpoints.size(), 2u);
  EtcdClient c(*cfg);
  auto t0 = std::chrono::steady_clock::now();
  auto r = c.put("/x", "y");
  ASSERT_FALSE(r.ok());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, cfg->timeout + 200ms);
  EXPECT_NE(r.error().message.find("etcd unreachable"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(cfg->endpoints[0]), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(cfg->endpoints[1]), std::string::npos) << r.error().message;
  EXPECT_FALSE(parse_endpoints("").ok());
  EXPECT_FALSE(parse_endpoints("https://a:2379").ok());
  EXPECT_FALSE(parse_endpoints("grpc://a:2379").ok());
  EXPECT_EQ(parse_endpoints("a")->endpoints.at(0), "http://a:2379");
}

// A loopback peer that answers every request with `reply` (a whole HTTP
// response), for the client's handling of what etcd would never send.
class CannedHttpPeer {
 public:
  explicit CannedHttpPeer(std::string reply) : reply_(std::move(reply)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 8);
    thread_ = std::thread([this] {
      for (;;) {
        int c = accept(fd_, nullptr, nullptr);
        if (c < 0) return;
        char buf[4096];
        (void)!read(c, buf, sizeof buf);
        (void)!write(c, reply_.data(), reply_.size());
        close(c);
      }
    });
  }
  ~CannedHttpPeer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  std::string reply_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::thread thread_;
};

TEST(EtcdClient, MalformedRepliesAreErrors) {
  for (std::string body :
       {std::string("{bad"), std::string("[]"), std::string(R"({"kvs":[{"key":"%%"}]})")}) {
    CannedHttpPeer peer("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                        std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body);
    EtcdConfig cfg;
    cfg.endpoints = {peer.endpoint()};
    EtcdClient c(cfg);
    auto r = c.get("/x");
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_NE(r.error().message.find("etcd reply"), std::string::npos) << r.error().message;
  }
  CannedHttpPeer not_etcd("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EtcdConfig cfg;
  cfg.endpoints = {not_etcd.endpoint()};
  auto r = EtcdClient(cfg).get("/x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("404"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace flowlab::coord

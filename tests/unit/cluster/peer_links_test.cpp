// Peer links (src/cluster/peer_links.h) on loopback: a node whose listener
// goes away is reported once, with the lease it was listed with; a node
// dropped from the list is not reported; a bad address is an error.
#include "cluster/peer_links.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

namespace flowlab::cluster {
namespace {

using namespace std::chrono_literals;

template <typename P>
bool eventually(P pred, std::chrono::milliseconds timeout = 5s) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

struct Gone {
  std::mutex mu;
  std::vector<std::pair<std::string, int64_t>> seen;
  PeerLinks::OnGone cb() {
    return [this](const std::string& n, int64_t lease, const std::string&) {
      std::lock_guard lock(mu);
      seen.emplace_back(n, lease);
    };
  }
  size_t size() {
    std::lock_guard lock(mu);
    return seen.size();
  }
};

TEST(PeerLinks, ANodeWhoseProcessEndsIsReportedOnceWithItsLease) {
  Gone gone_a;
  PeerLinks a("a", gone_a.cb());
  auto b = std::make_unique<PeerLinks>("b", [](const std::string&, int64_t, const std::string&) {});
  auto pa = a.start("127.0.0.1:0");
  auto pb = b->start("127.0.0.1:0");
  ASSERT_TRUE(pa.ok() && pb.ok());
  a.set_peers({{"a", {1, "127.0.0.1:1"}}, {"b", {42, "127.0.0.1:" + std::to_string(*pb)}}});  // self ignored
  ASSERT_TRUE(eventually([&] { return a.established() == 1; }));
  auto t0 = std::chrono::steady_clock::now();
  b.reset();  // closes its listener and every socket, as a dead process's kernel does
  ASSERT_TRUE(eventually([&] { return gone_a.size() == 1; }));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
  EXPECT_EQ(gone_a.seen[0], (std::pair<std::string, int64_t>{"b", 42}));
  EXPECT_EQ(a.established(), 0u);
  std::this_thread::sleep_for(400ms);  // no second report, no reconnect to a lease reported gone
  EXPECT_EQ(gone_a.size(), 1u);
}

TEST(PeerLinks, ANodeDroppedFromTheListIsNotReported) {
  Gone gone_a;
  PeerLinks a("a", gone_a.cb());
  PeerLinks b("b", [](const std::string&, int64_t, const std::string&) {});
  ASSERT_TRUE(a.start("127.0.0.1:0").ok());
  auto pb = b.start("127.0.0.1:0");
  ASSERT_TRUE(pb.ok());
  a.set_peers({{"b", {7, "127.0.0.1:" + std::to_string(*pb)}}});
  ASSERT_TRUE(eventually([&] { return a.established() == 1; }));
  a.set_peers({});
  ASSERT_TRUE(eventually([&] { return a.established() == 0; }));
  b.stop();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(gone_a.size(), 0u);
}

TEST(PeerLinks, BadListenAddressesAreErrors) {
  PeerLinks a("a", {});
  EXPECT_FALSE(a.start("nonsense").ok());
  EXPECT_FALSE(a.start("localhost:0").ok());  // an IP address, not a name
  EXPECT_FALSE(a.start("127.0.0.1:70000").ok());
  std::string host;
  uint16_t port = 0;
  EXPECT_TRUE(split_host_port("[::1]:80", host, port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 80);
  EXPECT_FALSE(split_host_port("h:0", host, port));
  EXPECT_TRUE(split_host_port("h:0", host, port, true));
}

}  // namespace
}  // namespace flowlab::cluster

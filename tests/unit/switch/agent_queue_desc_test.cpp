// The switch's agent and OpenFlow 1.4/1.5 queue description (OFPMP_QUEUE_DESC)
// over a loopback controller connection: the switch has no queues, so every
// port's (OFPP_ANY) or one port's queues (OFPQ_ALL) is an empty reply; a port
// that does not exist is OFPQOFC_BAD_PORT; any one queue OFPQOFC_BAD_QUEUE.
#include "switch_harness.h"

namespace flowlab::sw::testing {
namespace {

struct QueueDescTest : ::testing::TestWithParam<uint8_t> {
  TestController ctl{{GetParam()}};
  std::unique_ptr<SwitchFixture> fx;
  void SetUp() override {
    fx = std::make_unique<SwitchFixture>(options_with_controller(ctl.port()), 2);
    ASSERT_TRUE(ctl.wait_ready()) << "switch never connected to the controller";
  }
  void TearDown() override {
    if (fx && fx->sw) fx->sw->stop();
  }
  // The reply: at 1.5 the switch's controller status message (its own xid
  // counter) may carry the same xid as the request and is skipped.
  std::optional<of::Message> ask(uint32_t port, uint32_t queue) {
    const uint32_t xid = ctl.send(of::MultipartRequest{0, of::QueueDescRequest{port, queue}});
    for (;;) {
      auto r = ctl.wait_xid(xid);
      if (!r || !r->is<of::ControllerStatus>()) return r;
    }
  }
  void expect_empty(uint32_t port, uint32_t queue) {
    auto r = ask(port, queue);
    ASSERT_TRUE(r && r->is<of::MultipartReply>()) << "port " << port << ": no reply";
    EXPECT_EQ(r->version, GetParam());
    const auto* q = std::get_if<of::QueueDescReply>(&r->as<of::MultipartReply>().body);
    ASSERT_NE(q, nullptr) << "port " << port << ": not a queue desc reply";
    EXPECT_TRUE(q->queues.empty());
  }
  void expect_error(uint32_t port, uint32_t queue, of::QueueOpFailedCode code) {
    auto r = ask(port, queue);
    ASSERT_TRUE(r && r->is<of::ErrorMsg>()) << "port " << port << " queue " << queue << ": no error";
    EXPECT_EQ(r->as<of::ErrorMsg>().type, uint16_t(of::ErrorType::kQueueOpFailed));
    EXPECT_EQ(r->as<of::ErrorMsg>().code, uint16_t(code));
  }
};

constexpr uint32_t kAllQueues = 0xffffffff;

TEST_P(QueueDescTest, AnyPortOrAnExistingPortWithAllQueuesIsAnEmptyReply) {
  expect_empty(of::port::kAny, kAllQueues);
  expect_empty(1, kAllQueues);
  expect_empty(2, kAllQueues);
}

TEST_P(QueueDescTest, APortThatDoesNotExistIsBadPort) {
  expect_error(3, kAllQueues, of::QueueOpFailedCode::kBadPort);
  expect_error(77, 0, of::QueueOpFailedCode::kBadPort);  // the port is checked first
}

TEST_P(QueueDescTest, AnyOneQueueIsBadQueue) {
  expect_error(1, 0, of::QueueOpFailedCode::kBadQueue);
  expect_error(of::port::kAny, 7, of::QueueOpFailedCode::kBadQueue);
  expect_empty(1, kAllQueues);  // the connection still answers
}

INSTANTIATE_TEST_SUITE_P(Versions, QueueDescTest, ::testing::Values(of::kOf14, of::kOf15),
                         [](const auto& info) { return info.param == of::kOf14 ? "Of14" : "Of15"; });

}  // namespace
}  // namespace flowlab::sw::testing

// SwitchHost (src/switch/switch_host.h): its requests by line and over the
// control socket, with a factory that records what it built (no ports, no
// root): add / stop / start / remove / list, their errors, and close()
// stopping every switch.
#include "switch/switch_host.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <filesystem>
#include <thread>

#include "support/unix_ask.h"

namespace flowlab::sw {
namespace {

struct Counts {
  std::atomic<int> built{0}, destroyed{0};
};

class FakeSwitch final : public HostedSwitch {
 public:
  explicit FakeSwitch(Counts& c) : c_(c) { ++c_.built; }
  ~FakeSwitch() override { ++c_.destroyed; }

 private:
  Counts& c_;
};

// Builds a FakeSwitch unless an argument is "--bad", as a bad `flowlab switch` option.
HostedSwitchFactory factory(Counts& c, std::vector<std::vector<std::string>>* seen = nullptr) {
  return [&c, seen](const std::vector<std::string>& args) -> Result<std::unique_ptr<HostedSwitch>> {
    if (seen) seen->push_back(args);
    for (const auto& a : args)
      if (a == "--bad") return fail("--bad: not an option");
    return std::unique_ptr<HostedSwitch>(std::make_unique<FakeSwitch>(c));
  };
}

std::string socket_path() {
  return (std::filesystem::temp_directory_path() / ("flowlab-swhost-" + std::to_string(::getpid()) + ".sock"))
      .string();
}

TEST(SwitchHost, RequestsByLine) {
  Counts c;
  std::vector<std::vector<std::string>> seen;
  auto host = SwitchHost::open(socket_path(), factory(c, &seen));
  ASSERT_TRUE(host.ok()) << host.error().message;
  SwitchHost& h = **host;
  EXPECT_EQ(h.handle_line("add\ts1\t--name\ts1\t--port\tveth 1"), "ok");
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], (std::vector<std::string>{"switch", "--name", "s1", "--port", "veth 1"}));
  EXPECT_EQ(h.handle_line("add\ts2\t--dpid\t2"), "ok");  // named by the request
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], (std::vector<std::string>{"switch", "--name", "s2", "--dpid", "2"}));
  EXPECT_EQ(h.handle_line("list"), "ok\ts1=running,s2=running");
  EXPECT_EQ(h.handle_line("add\ts1\t--name\ts1"), "error\tswitch s1 exists already");
  // A switch that cannot be built is an error and is not kept.
  EXPECT_EQ(h.handle_line("add\ts3\t--bad"), "error\t--bad: not an option");
  EXPECT_EQ(h.handle_line("list"), "ok\ts1=running,s2=running");
  EXPECT_EQ(c.built, 2);

  // One switch stopped alone, then started again with its arguments.
  EXPECT_EQ(h.handle_line("stop\ts1"), "ok");
  EXPECT_EQ(c.destroyed, 1);
  EXPECT_EQ(h.handle_line("list"), "ok\ts1=stopped,s2=running");
  EXPECT_EQ(h.handle_line("stop\ts1"), "error\tswitch s1 is not running");
  EXPECT_EQ(h.handle_line("start\ts2"), "error\tswitch s2 is still running");
  EXPECT_EQ(h.handle_line("start\ts1"), "ok");
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(seen[3], seen[0]);
  EXPECT_EQ(c.built, 3);

  EXPECT_EQ(h.handle_line("stop\ts9"), "error\tno switch s9");
  EXPECT_EQ(h.handle_line("start\ts9"), "error\tno switch s9");
  EXPECT_EQ(h.handle_line("remove\ts2"), "ok");
  EXPECT_EQ(c.destroyed, 2);
  EXPECT_EQ(h.handle_line("list"), "ok\ts1=running");
  EXPECT_EQ(h.handle_line("add"),
            "error\tunknown request 'add' (add NAME ARG..., stop NAME, start NAME, "
            "remove NAME, list)");
  EXPECT_EQ(h.handle_line("reboot\ts1").substr(0, 24), "error\tunknown request 'r");
  EXPECT_EQ(h.handle_line(""),
            "error\tunknown request '' (add NAME ARG..., stop NAME, start NAME, remove NAME, "
            "list)");

  h.close();  // stops the one still running
  EXPECT_EQ(c.destroyed, 3);
  EXPECT_EQ(h.handle_line("add\ts4"), "error\tthe switch host is stopping");
}

TEST(SwitchHost, ControlSocketAnswersEachLineAndCloseStopsEverySwitch) {
  Counts c;
  std::string path = socket_path();
  auto host = SwitchHost::open(path, factory(c));
  ASSERT_TRUE(host.ok()) << host.error().message;
  (*host)->start();
  // Several requests in one write, answered in order.
  EXPECT_EQ(test::unix_ask(path, "add\ta\nadd\tb\nadd\tc\nstop\tb\nlist\n", 5),
            "ok\nok\nok\nok\nok\ta=running,b=stopped,c=running\n");
  // Two clients at once.
  std::string r1, r2;
  std::thread t1([&] { r1 = test::unix_ask(path, "add\td\n", 1); });
  std::thread t2([&] { r2 = test::unix_ask(path, "add\te\n", 1); });
  t1.join();
  t2.join();
  EXPECT_EQ(r1, "ok\n");
  EXPECT_EQ(r2, "ok\n");
  EXPECT_EQ(c.built, 5);
  (*host)->close();
  EXPECT_EQ(c.destroyed, 5);
  EXPECT_FALSE(std::filesystem::exists(path));  // the socket file goes with it
  EXPECT_EQ(test::unix_ask(path, "list\n", 1).rfind("connect failed", 0), 0u);
}

TEST(SwitchHost, BadSocketPathIsAnError) {
  Counts c;
  auto too_long = SwitchHost::open(std::string(200, 'x'), factory(c));
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.error().message.find("--control: unix socket xxx"), std::string::npos)
      << too_long.error().message;
  EXPECT_NE(too_long.error().message.find("its file name is too long (200 characters)"), std::string::npos)
      << too_long.error().message;
  auto no_dir = SwitchHost::open("/nonexistent-dir/flowlab.sock", factory(c));
  ASSERT_FALSE(no_dir.ok());
  EXPECT_EQ(no_dir.error().message,
            "--control: unix socket /nonexistent-dir/flowlab.sock: No such file or directory");
}

}  // namespace
}  // namespace flowlab::sw

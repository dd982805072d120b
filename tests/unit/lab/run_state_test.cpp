// Run state files, `lab clean` (kills exactly the recorded processes, verified by
// start time), bounded commands, and the tcp-rr client/server over loopback.
#include "lab/host/run_state.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/clock.h"
#include "lab/host/process.h"
#include "lab/traffic/tcp_rr.h"

extern char** environ;

namespace flowlab::lab {
namespace {

namespace fs = std::filesystem;

class StateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flowlab-state-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    setenv("FLOWLAB_STATE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("FLOWLAB_STATE_DIR");
    fs::remove_all(dir_);
  }
  fs::path dir_;
};

pid_t spawn_sleep() {
  pid_t pid = 0;
  char arg0[] = "sleep", arg1[] = "30";
  char* argv[] = {arg0, arg1, nullptr};
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // own group, like the lab's children
  posix_spawnattr_setpgroup(&attr, 0);
  EXPECT_EQ(posix_spawnp(&pid, "sleep", nullptr, &attr, argv, environ), 0);
  posix_spawnattr_destroy(&attr);
  return pid;
}

bool exited_within(pid_t pid, double seconds) {
  uint64_t end = monotonic_ns() + uint64_t(seconds * 1e9);
  while (monotonic_ns() < end) {
    int st;
    if (waitpid(pid, &st, WNOHANG) == pid) return true;
    usleep(10000);
  }
  return false;
}

TEST_F(StateDir, StateFileRecordsAndRemovesOnCleanExit) {
  std::string dir;
  {
    auto s = RunState::create("demo");
    ASSERT_TRUE(s.ok()) << s.error().message;
    dir = (*s)->dir();
    EXPECT_EQ((*s)->id().size(), 5u);
    (*s)->add_netns("flx-test-ns");
    (*s)->add_process(getpid(), "me");
    std::ifstream in(dir + "/state.json");
    auto j = nlohmann::json::parse(in);
    EXPECT_EQ(j["netns"][0], "flx-test-ns");
    EXPECT_EQ(j["processes"][0]["pid"], getpid());
    EXPECT_EQ(j["processes"][0]["start"], process_start_time(getpid()));
    (*s)->remove_netns("flx-test-ns");
    (*s)->remove_process(getpid());
  }
  EXPECT_FALSE(fs::exists(dir)) << "a clean run leaves no state behind";
}

TEST_F(StateDir, CleanKillsRecordedProcessesAndNothingElse) {
  pid_t recorded = spawn_sleep();
  pid_t other = spawn_sleep();
  std::string dir;
  {
    auto s = RunState::create("demo");
    ASSERT_TRUE(s.ok());
    dir = (*s)->dir();
    (*s)->add_process(recorded, "sleep");
    // Simulate a crash: the process stays recorded. clean_runs treats our own run
    // as dead (a real `lab clean` is another process).
    auto rep = clean_runs(false);
    ASSERT_EQ(rep.actions.size(), 2u) << ::testing::PrintToString(rep.actions);
    EXPECT_NE(rep.actions[0].find("killed pid " + std::to_string(recorded)), std::string::npos);
  }
  EXPECT_TRUE(exited_within(recorded, 2));
  EXPECT_FALSE(exited_within(other, 0.2)) << "a process the run did not record must survive";
  kill(other, SIGKILL);
  waitpid(other, nullptr, 0);
  EXPECT_FALSE(fs::exists(dir));
}

TEST_F(StateDir, CleanLeavesRunsOfALiveLabAndForceStopsIt) {
  // A state file owned by a live process other than us: a child standing for a
  // `lab up` left running.
  pid_t owner = fork();
  ASSERT_GE(owner, 0);
  if (owner == 0) {
    pause();
    _exit(0);
  }
  uint64_t start = 0;
  for (int i = 0; i < 100 && (start = process_start_time(owner)) == 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_NE(start, 0u);
  fs::create_directories(dir_ / "zzzzz");
  nlohmann::json j = {{"run_id", "zzzzz"},
                      {"owner_pid", owner},
                      {"owner_start", start},
                      {"netns", nlohmann::json::array()},
                      {"processes", nlohmann::json::array()}};
  std::ofstream(dir_ / "zzzzz" / "state.json") << j.dump();
  auto rep = clean_runs(false);
  EXPECT_EQ(rep.kept.size(), 1u);
  EXPECT_TRUE(fs::exists(dir_ / "zzzzz"));
  EXPECT_EQ(kill(owner, 0), 0) << "clean without --force touched a live lab's process";
  rep = clean_runs(true);
  EXPECT_FALSE(fs::exists(dir_ / "zzzzz"));
  int status = 0;
  ASSERT_EQ(waitpid(owner, &status, 0), owner);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  ASSERT_FALSE(rep.actions.empty());
  EXPECT_NE(rep.actions.front().find(fmt::format("stopped its lab pid {}", owner)), std::string::npos)
      << rep.actions.front();
}

TEST(Commands, TimeoutKillsTheChild) {
  uint64_t t0 = monotonic_ns();
  auto r = run_command({"sleep", "10"}, with_timeout(0.3));
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_LT(double(monotonic_ns() - t0) / 1e9, 3.0);
}

TEST(Commands, CapturesOutputAndExitCode) {
  auto r = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.describe(), "exit 3: err");
  EXPECT_TRUE(run_checked({"true"}).ok());
  auto st = run_checked({"false"});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("'false' failed: exit 1"), std::string::npos);
}

TEST(TcpRr, PingPongOverLoopback) {
  int port = 20000 + getpid() % 20000;
  Status server_status;
  std::thread server([&] { server_status = tcp_rr_server(port, 5); });
  auto r = tcp_rr_client("127.0.0.1", port, 200, 64, 5);
  server.join();
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(server_status.ok());
  EXPECT_EQ((*r)["count"], 200);
  EXPECT_GT((*r)["rtt_avg_us"].get<double>(), 0);
  EXPECT_LE((*r)["rtt_min_us"].get<double>(), (*r)["rtt_p50_us"].get<double>());
  EXPECT_LE((*r)["rtt_p50_us"].get<double>(), (*r)["rtt_max_us"].get<double>());
  EXPECT_GT((*r)["transactions_per_s"].get<double>(), 0);
}

TEST(TcpRr, ClientFailsWithoutServer) {
  auto r = tcp_rr_client("127.0.0.1", 1, 10, 64, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("connect"), std::string::npos);
}

}  // namespace
}  // namespace flowlab::lab

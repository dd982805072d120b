// `flowlab switch-host`: bad options exit 2 with one line; a running host
// answers its control socket (a switch that cannot start is an error line
// naming the option, as `flowlab switch` prints it) and exits 0 on SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>

#include "cli_run.h"
#include "support/unix_ask.h"

namespace {

using flowlab::test::CliRun;

CliRun run(const std::string& args) { return flowlab::test::run_flowlab("switch-host", args); }

TEST(SwitchHostCli, BadOptionsExit2) {
  for (const char* args : {"", "--control", "--control /nonexistent-dir/x.sock",
                           "--control /tmp/x --log-level loud", "--control /tmp/x --bogus"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out.rfind("flowlab switch-host: error: ", 0), 0u) << args << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << args << ": " << r.out;
  }
  CliRun h = run("--help");
  EXPECT_EQ(h.status, 0);
  EXPECT_NE(h.out.find("--control"), std::string::npos) << h.out;
}

// One request on a new connection, its answer line ("" if none).
std::string ask(const std::string& path, const std::string& line) {
  std::string got = flowlab::test::unix_ask(path, line + "\n");
  return got.rfind("connect failed", 0) == 0 ? "" : got;
}

TEST(SwitchHostCli, AnswersItsControlSocketAndStopsOnSigterm) {
  std::string path = (std::filesystem::temp_directory_path() /
                      ("flowlab-swhost-cli-" + std::to_string(::getpid()) + ".sock"))
                         .string();
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::execl(FLOWLAB_BINARY, FLOWLAB_BINARY, "switch-host", "--control", path.c_str(), "--log-level", "warn",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string listed;
  for (int i = 0; i < 1000 && listed.empty(); ++i) {
    listed = ask(path, "list");
    if (listed.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(listed, "ok\t\n");
  EXPECT_EQ(ask(path, "add\ts1\t--port\tflnoexist0"),
            "error\t--port flnoexist0: no such network interface\n");
  EXPECT_EQ(ask(path, "add\ts1\t--dpid\tzz").rfind("error\t", 0), 0u);
  EXPECT_EQ(ask(path, "stop\ts1"), "error\tno switch s1\n");
  EXPECT_EQ(ask(path, "list"), "ok\t\n");
  ::kill(pid, SIGTERM);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace

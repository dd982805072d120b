// `flowlab switch` command-line errors: one clear line and exit code 2 before
// anything starts (missing interface, bad options, busy TCP port); SIGTERM
// stops a running switch with exit code 0; the switch runs with its heap on
// huge pages (started again by itself with glibc's tunable).
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "cli_run.h"

namespace {

using flowlab::test::CliRun;

CliRun run(const std::string& args) { return flowlab::test::run_flowlab("switch", args); }

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

TEST(SwitchCli, MissingInterfaceExits2WithOneLine) {
  CliRun r = run("--port flnoexist0 --port lo");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "flowlab switch: error: --port flnoexist0: no such network interface\n");
}

TEST(SwitchCli, BadOptionsExit2) {
  for (const char* args :
       {"--port lo --fail-mode open", "--port lo --dpid zz", "--port lo --protocols OpenFlow12",
        "--port lo --controller udp:1.2.3.4:5", "--port lo --listen 6634", "--port lo=1 --port lo2=1",
        "--port lo --bogus", "", "--port lo=0", "--port lo --threads 0", "--port lo --log-level loud",
        "--port lo --local tap:fll0=3", "--port lo --local flnosuchif9", "--port lo --local lo",
        "--port lo --datapath xdp"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_EQ(lines(r.out), 1u) << args << ": " << r.out;
    EXPECT_EQ(r.out.rfind("flowlab switch: error: ", 0), 0u) << args << ": " << r.out;
  }
}

TEST(SwitchCli, DuplicatePortNumber) {
  CliRun r = run("--port lo=3 --port tap:fltap0=3");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("already taken"), std::string::npos) << r.out;
}

TEST(SwitchCli, HelpExits0) {
  CliRun r = run("--help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--controller"), std::string::npos);
  EXPECT_NE(r.out.find("--datapath"), std::string::npos);  // says which datapaths exist
  EXPECT_NE(r.out.find("af-packet"), std::string::npos);
}

TEST(SwitchCli, BusyListenPortExits2) {
  if (::geteuid() != 0) GTEST_SKIP() << "opening an AF_PACKET port on lo needs root";
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  int port = ntohs(a.sin_port);
  // warn: the start-up's info lines (the fast path's load time) are not the error
  CliRun r = run("--port lo --log-level warn --listen ptcp:" + std::to_string(port) + ":127.0.0.1");
  ::close(fd);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--listen ptcp:" + std::to_string(port)), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.out), 1u) << r.out;
}

// Whether the process takes SIGTERM itself: blocked to wait for it (SigBlk of its
// main thread in /proc/PID/status, the switch's sigwait) or caught (SigCgt).
bool takes_sigterm(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("SigBlk:", 0) == 0 || line.rfind("SigCgt:", 0) == 0)
      if ((std::stoull(line.substr(7), nullptr, 16) >> (SIGTERM - 1)) & 1) return true;
  return false;
}

TEST(SwitchCli, SigtermExits0) {
  if (::geteuid() != 0) GTEST_SKIP() << "opening an AF_PACKET port on lo needs root";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::execl(FLOWLAB_BINARY, FLOWLAB_BINARY, "switch", "--port", "lo", "--log-level", "error", nullptr);
    ::_exit(127);
  }
  // SIGTERM before the switch takes it would kill it by the default action: wait
  // (up to 20 s: an ASan build on a loaded machine) until /proc says it takes it,
  // then let it open its port.
  for (int i = 0; i < 2000 && !takes_sigterm(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(takes_sigterm(pid)) << "the switch never blocked or caught SIGTERM";
  // It started itself again with its heap on huge pages (cli/main.cpp): the
  // same pid and arguments, the tunable in its environment.
  std::ifstream env_in("/proc/" + std::to_string(pid) + "/environ");
  std::string env((std::istreambuf_iterator<char>(env_in)), std::istreambuf_iterator<char>());
  if (!std::getenv("GLIBC_TUNABLES"))
    EXPECT_NE(env.find(std::string("GLIBC_TUNABLES=glibc.malloc.hugetlb=1") + '\0'), std::string::npos);
  std::ifstream cmd_in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string cmd((std::istreambuf_iterator<char>(cmd_in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(cmd, std::string(FLOWLAB_BINARY) + '\0' + "switch" + '\0' + "--port" + '\0' + "lo" + '\0' +
                     "--log-level" + '\0' + "error" + '\0');
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGTERM);
  int st = 0;
  bool reaped = false;
  for (int i = 0; i < 500 && !reaped; ++i) {
    reaped = ::waitpid(pid, &st, WNOHANG) == pid;
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &st, 0);
    FAIL() << "switch did not stop on SIGTERM";
  }
  EXPECT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
}

}  // namespace

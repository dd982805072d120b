// Runs `flowlab SUBCOMMAND ARGS` (the binary under test, FLOWLAB_BINARY) with
// stderr merged into stdout: the CLI tests' view of a command, its exit code
// and everything it printed.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace flowlab::test {

struct CliRun {
  int status = -1;  // exit code; -1 when it did not exit normally
  std::string out;  // stdout and stderr
};

// Bounded (coreutils timeout, 120 s, then SIGKILL): a command expected to answer at once
// that runs instead (a switch started on `lo` because a bad option became valid) fails
// the test with status 124 rather than holding the machine until ctest's timeout.
inline CliRun run_flowlab(const std::string& subcommand, const std::string& args) {
  CliRun r;
  FILE* f = ::popen(
      ("timeout -k 5 120 " + std::string(FLOWLAB_BINARY) + " " + subcommand + " " + args + " 2>&1").c_str(),
      "r");
  if (!f) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
  const int st = ::pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace flowlab::test

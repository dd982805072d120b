// `flowlab pktgen` command-line errors: one clear line on stderr, nothing on
// stdout, exit code 2, before anything is sent (no root needed: the options
// and the interface are checked before any BPF program is loaded).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "cli_run.h"

namespace {

using flowlab::test::CliRun;

CliRun run(const std::string& args) { return flowlab::test::run_flowlab("pktgen", args); }

TEST(PktgenCli, MissingInterfaceExits2WithOneLine) {
  CliRun r = run("--mode xdp --dev flnoexist0 --dst 10.0.0.2 --seconds 0.1");
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "flowlab pktgen: error: --dev flnoexist0: no such network interface\n");
}

TEST(PktgenCli, BadOptionsExit2) {
  for (const char* args :
       {"--mode tcp --dst 10.0.0.2", "--mode xdp", "--mode xdp --dst 10.0.0",
        "--dst 10.0.0.2 --dst-mac 02:00:00:00:00:01", "--dst 10.0.0.2 --dev lo",
        "--mode xdp --dst 10.0.0.2 --dev lo --dst-mac zz", "--dst 10.0.0.2 --rate -5",
        "--dst 10.0.0.2 --threads 0", "--mode xdp --dst 10.0.0.2 --flows 0", "--dst 10.0.0.2 --bogus"}) {
    CliRun r = run(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_EQ(r.out.rfind("flowlab pktgen: error: ", 0), 0u) << args << ": " << r.out;
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << args << ": one line: " << r.out;
  }
}

TEST(PktgenCli, WithoutRootXdpSaysSo) {
  if (geteuid() == 0) GTEST_SKIP() << "runs as root: nothing to refuse";
  CliRun r = run("--mode xdp --dev lo --dst 127.0.0.1 --dst-mac 02:00:00:00:00:01 --seconds 0.1");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("needs root"), std::string::npos) << r.out;
}

}  // namespace

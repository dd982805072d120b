// flowlab: one binary, subcommands. Each subcommand lives in its own file in
// src/cli/ and registers itself below; this file only dispatches.
#include <malloc.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>

#include "cli/commands.h"

namespace {

void usage() {
  std::fputs(
      "usage: flowlab COMMAND [ARGS]\n"
      "commands:\n"
      "  switch      userspace OpenFlow 1.0/1.3/1.4/1.5 switch\n"
      "  switch-host many switches in one process (as ovs-vswitchd), added over a control socket\n"
      "  controller  OpenFlow controller with apps (hub, learning-switch, firewall)\n"
      "  ofctl       management client in ovs-ofctl style\n"
      "  lab         build topologies in namespaces, run traffic, report\n"
      "  cbench      controller benchmark\n"
      "  pktgen      UDP packet generator for switch benchmarks\n"
      "  mininet     run a Mininet script unchanged on flowlab's lab\n"
      "run 'flowlab COMMAND --help' for a command's options\n",
      stderr);
}

// A switch's flow table grows its heap by hundreds of megabytes, and each
// 4 KB page is a page fault on its first touch: adding 1M flows spent a
// quarter of the agent's time on one instruction of malloc, writing the header
// of the heap's new top (perf annotate). glibc backs its heap with transparent
// huge pages when the tunable glibc.malloc.hugetlb=1 is set, which only the
// environment at start can do: the switch commands start themselves again
// once with it (the same process: execve keeps the pid). Measured on 1M flows
// (`ofctl add-flows`): 3.4-4.7 s -> 2.8 s, RSS 621 -> 606 MB; idle +2 MB.
// Nothing changes where THP is off (`never`) or glibc knows no such tunable.
void start_with_huge_page_heap(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb=1";
  const char* old = std::getenv("GLIBC_TUNABLES");
  std::string now = old ? old : "";
  if (now.find("glibc.malloc.hugetlb") != std::string::npos) return;  // set, by us or the user
  now = now.empty() ? kTunable : now + ":" + kTunable;
  if (::setenv("GLIBC_TUNABLES", now.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);  // returns only on failure: run without it
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  std::string_view cmd = argv[1];
  if (cmd == "switch" || cmd == "switch-host") start_with_huge_page_heap(argv);
  // The heap grows by 32 MB at a time, not by glibc's 128 KB: a switch
  // filling a table of a million flows (~1 GB) otherwise spends a tenth of its
  // time in mprotect/brk. Untouched pages of the pad are never resident.
  mallopt(M_TOP_PAD, 32 << 20);
  try {
    for (const auto& c : flowlab::cli::commands()) {
      if (cmd == c.name) return c.run(argc - 1, argv + 1);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flowlab %s: error: %s\n", argv[1], e.what());
    return 1;
  }
  std::fprintf(stderr, "flowlab: unknown command '%s'\n", argv[1]);
  usage();
  return 2;
}

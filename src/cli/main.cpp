// flowlab: one binary, subcommands. Each subcommand lives in its own file in
// src/cli/ and registers itself below; this file only dispatches.
#include <malloc.h>

#include <cstdio>
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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    usage();
    return argc < 2 ? 2 : 0;
  }
  std::string_view cmd = argv[1];
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

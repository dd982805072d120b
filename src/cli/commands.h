// The subcommand table. Each src/cli/<name>.cpp defines one `int run_<name>(argc, argv)`
// (argv[0] is the subcommand name) and is listed in commands.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace flowlab::cli {

struct Command {
  std::string_view name;
  int (*run)(int argc, char** argv);
};

std::span<const Command> commands();

// Prints "flowlab COMMAND: error: MSG" on stderr; returns `code`, the exit code to give.
int error_exit(std::string_view command, const std::string& msg, int code = 1);

int run_switch(int argc, char** argv);
// `flowlab switch-host`: many switches in one process (src/cli/switch_host.cpp).
int run_switch_host(int argc, char** argv);
int run_controller(int argc, char** argv);
// `flowlab controller cluster-status` (src/cli/cluster.cpp).
int run_cluster_status(int argc, char** argv);
int run_ofctl(int argc, char** argv);
int run_lab(int argc, char** argv);
int run_cbench(int argc, char** argv);
int run_pktgen(int argc, char** argv);
// `flowlab mininet SCRIPT.py` (src/cli/mininet.cpp).
int run_mininet(int argc, char** argv);

}  // namespace flowlab::cli

#include "cli/commands.h"

#include <array>
#include <cstdio>

namespace flowlab::cli {

std::span<const Command> commands() {
  static constexpr std::array kCommands = {
      Command{"switch", run_switch},   Command{"controller", run_controller},   Command{"ofctl", run_ofctl},
      Command{"lab", run_lab},         Command{"cbench", run_cbench},           Command{"pktgen", run_pktgen},
      Command{"mininet", run_mininet}, Command{"switch-host", run_switch_host},
  };
  return kCommands;
}

int error_exit(std::string_view command, const std::string& msg, int code) {
  std::fprintf(stderr, "flowlab %.*s: error: %s\n", int(command.size()), command.data(), msg.c_str());
  return code;
}

}  // namespace flowlab::cli

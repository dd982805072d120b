#include "cli/commands.h"

#include <array>

namespace flowlab::cli {

std::span<const Command> commands() {
  static constexpr std::array kCommands = {
      Command{"switch", run_switch},   Command{"controller", run_controller}, Command{"ofctl", run_ofctl},
      Command{"lab", run_lab},         Command{"cbench", run_cbench},         Command{"pktgen", run_pktgen},
      Command{"mininet", run_mininet},
  };
  return kCommands;
}

}  // namespace flowlab::cli

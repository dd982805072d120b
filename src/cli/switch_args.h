// The command line of `flowlab switch`, parsed into SwitchOptions: shared by
// `flowlab switch` (one switch, one process) and `flowlab switch-host`, which
// takes the same arguments for each switch it hosts.
#pragma once

#include <string>
#include <vector>

#include "core/log.h"
#include "core/result.h"
#include "switch/options.h"

namespace flowlab::cli {

struct SwitchCommand {
  sw::SwitchOptions opts;
  std::string metrics;  // --metrics HOST:PORT, empty: none
  log::Level log_level = log::Level::kInfo;
  std::string help;  // set (and nothing else) for --help
};

// args[0] is the command's name ("switch"). Every option is checked, the
// interfaces too (sw::validate_options); the error names the option at fault.
Result<SwitchCommand> parse_switch_command(const std::vector<std::string>& args);

}  // namespace flowlab::cli

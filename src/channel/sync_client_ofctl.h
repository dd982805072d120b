// The commands of `flowlab ofctl`, in ovs-ofctl style, on top of SyncClient and
// the flow-text parser/printer. src/cli/ofctl.cpp only parses arguments and calls
// run_ofctl(); everything a command does lives here.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace flowlab::channel {

struct OfctlOptions {
  std::vector<uint8_t> versions;  // wire versions to offer; empty = {OF1.3, OF1.0}
  bool strict = false;            // mod-flows / del-flows: strict match
  bool no_stats = false;          // dump-flows: like --no-stats
  bool bundle = false;            // add-flow(s), mod-flows, del-flows: all in one atomic bundle (OF1.3)
  std::chrono::milliseconds timeout{5000};
  // trace: the packet as hex (instead of flow text), its in_port, JSON output.
  std::string trace_packet_hex;
  std::string trace_in_port;
  bool trace_json = false;
  // monitor: where each reply goes as it arrives, and how many flow updates
  // end the command (0: run until the connection closes or the process is killed).
  std::function<void(const std::string&)> monitor_out;
  uint64_t monitor_count = 0;
};

struct OfctlCommand {
  std::string_view name;
  int min_args;  // arguments after the command name (the switch target included)
  int max_args;  // -1: unlimited
  bool offline;  // needs no switch (ofp-parse, ofp-print)
  std::string_view usage;
};
// nullptr for an unknown command.
const OfctlCommand* find_ofctl_command(std::string_view name);
const std::vector<OfctlCommand>& ofctl_commands();

// Checks what can be checked before connecting (trace: the flow text or
// --packet hex builds a frame, an in_port is given); an error here is a usage
// error (ofctl exits 2).
Status check_ofctl_args(const OfctlCommand& cmd, const std::vector<std::string>& args,
                        const OfctlOptions& opts);

// Runs `cmd` with `args` (args[0] is the switch target for online commands);
// what the command prints is appended to `out` (also on failure: what was
// printed before the error).
Status run_ofctl(const OfctlCommand& cmd, const std::vector<std::string>& args, const OfctlOptions& opts,
                 std::string& out);

}  // namespace flowlab::channel

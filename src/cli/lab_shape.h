// Hidden `flowlab lab` helpers of shaped links, the probe test and remote
// controllers, run by the lab (argument parsing only; the work is in src/lab):
//   flowlab lab controller-relay --netns NS [--listen-host A] --listen-port P --to HOST:PORT
//   flowlab lab delay-line --a IF --b IF --a-to-b D,J,Q --b-to-a D,J,Q [--stats FILE] [--params FILE] [--max
//   S] flowlab lab probe-recv --port P --out FILE [--max S] flowlab lab probe-send --host A [--port P]
//   --duration S --interval-us U [--size B] [--start-at NS]
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

namespace flowlab::cli {

struct LabShapeCommands;

// Adds the subcommands to `lab` (hidden from --help); keep the result until run.
std::shared_ptr<LabShapeCommands> add_lab_shape_commands(CLI::App& lab);
// The exit code of the helper that was chosen, or -1 when none was.
int run_lab_shape_commands(const LabShapeCommands& c);

}  // namespace flowlab::cli

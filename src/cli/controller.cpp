// `flowlab controller`: not implemented yet.
#include <cstdio>

#include "cli/commands.h"

namespace flowlab::cli {

int run_controller(int, char**) {
  std::fputs("flowlab controller: not implemented yet\n", stderr);
  return 2;
}

}  // namespace flowlab::cli

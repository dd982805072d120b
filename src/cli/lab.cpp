// `flowlab lab`: not implemented yet.
#include <cstdio>

#include "cli/commands.h"

namespace flowlab::cli {

int run_lab(int, char**) {
  std::fputs("flowlab lab: not implemented yet\n", stderr);
  return 2;
}

}  // namespace flowlab::cli

// `flowlab cbench`: not implemented yet.
#include <cstdio>

#include "cli/commands.h"

namespace flowlab::cli {

int run_cbench(int, char**) {
  std::fputs("flowlab cbench: not implemented yet\n", stderr);
  return 2;
}

}  // namespace flowlab::cli

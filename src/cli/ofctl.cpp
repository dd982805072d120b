// `flowlab ofctl`: not implemented yet.
#include <cstdio>

#include "cli/commands.h"

namespace flowlab::cli {

int run_ofctl(int, char**) {
  std::fputs("flowlab ofctl: not implemented yet\n", stderr);
  return 2;
}

}  // namespace flowlab::cli
